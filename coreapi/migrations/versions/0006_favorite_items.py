"""Shoppers' favorite products.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-09

Written by hand after the model (``coreapi.models.FavoriteItems``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming
convention of ``coreapi.extensions``), the CHECK constraint is the model's.

**Upgrade.** One new table, nothing existing changes: ``favorite_items``, one row per shopper, (supplier,
identity) like a basket or preferences: the products the shopper marked as favorites (a JSON list of
product keys, in the order given) and when they were last stored.

**Downgrade.** The table is dropped, the shoppers' favorite products with it: ingredients then get their
first available product again, as before this revision.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IDENTITY_ID = sa.String(length=200)  # coreapi.services.identity.MAX_ID_LENGTH
IDENTITY_KINDS = "('user_id', 'authless_id')"


def upgrade() -> None:
    """Create ``favorite_items``."""
    op.create_table(
        "favorite_items",
        sa.Column("supplier_id", sa.Integer(), nullable=False),
        sa.Column("identity_kind", sa.String(length=16), nullable=False),
        sa.Column("identity_id", IDENTITY_ID, nullable=False),
        sa.Column("product_ids", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"identity_kind IN {IDENTITY_KINDS}", name=op.f("ck_favorite_items_identity_kind")),
        sa.ForeignKeyConstraint(
            ["supplier_id"], ["suppliers.id"], name=op.f("fk_favorite_items_supplier_id_suppliers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("supplier_id", "identity_kind", "identity_id", name=op.f("pk_favorite_items")),
    )


def downgrade() -> None:
    """Drop the favorite products (see the module's doc)."""
    op.drop_table("favorite_items")

"""Which cart of each browser a basket followed last.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

Written by hand after the model (``coreapi.models.CartReport``), then checked on SQLite and PostgreSQL against it
(the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming convention of
``coreapi.extensions``).

**Upgrade.** One new table, nothing existing changes: ``basket_cart_reports``, per basket and reporting browser,
when that browser's clock says it reported the newest cart the basket followed, and when the basket followed it
(``coreapi.services.cart_reports``). The baskets of before have none: their next reconcile is followed as before.

**Downgrade.** The table is dropped: a reconcile is then followed whenever it arrives, as before this revision.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``basket_cart_reports``."""
    op.create_table(
        "basket_cart_reports",
        sa.Column("basket_id", sa.Integer(), nullable=False),
        sa.Column("reporter", sa.String(length=64), nullable=False),
        sa.Column("reported_at", sa.Float(), nullable=False),
        sa.Column("followed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["basket_id"],
            ["baskets.id"],
            name=op.f("fk_basket_cart_reports_basket_id_baskets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("basket_id", "reporter", name=op.f("pk_basket_cart_reports")),
    )


def downgrade() -> None:
    """Drop which carts the baskets followed (see the module's doc)."""
    op.drop_table("basket_cart_reports")

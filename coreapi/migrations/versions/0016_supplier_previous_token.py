"""The token a rotation replaced, accepted for a while.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04

Written by hand after the model (``coreapi.models.Supplier.previous_token``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** Two nullable columns, ``suppliers.previous_token`` (unique, as ``token`` is) and
``suppliers.previous_token_expires_at``: no supplier of before has a replaced token (NULL), as it was.

**Downgrade.** Both are dropped: a token replaced meanwhile stops being accepted at once, its overlap cut short.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``suppliers.previous_token`` and ``suppliers.previous_token_expires_at``."""
    with op.batch_alter_table("suppliers") as batch:
        batch.add_column(sa.Column("previous_token", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("previous_token_expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_unique_constraint(op.f("uq_suppliers_previous_token"), ["previous_token"])


def downgrade() -> None:
    """Drop both columns (see the module's doc)."""
    with op.batch_alter_table("suppliers") as batch:
        batch.drop_constraint(op.f("uq_suppliers_previous_token"), type_="unique")
        batch.drop_column("previous_token_expires_at")
        batch.drop_column("previous_token")

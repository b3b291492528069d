"""When the deployment suspended a supplier.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04

Written by hand after the model (``coreapi.models.Supplier.suspended_at``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** One nullable column, ``suppliers.suspended_at``: every supplier of before is active (NULL), as it was.

**Downgrade.** The column is dropped: a supplier suspended meanwhile is served again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``suppliers.suspended_at``."""
    with op.batch_alter_table("suppliers") as batch:
        batch.add_column(sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Drop ``suppliers.suspended_at`` (see the module's doc)."""
    with op.batch_alter_table("suppliers") as batch:
        batch.drop_column("suspended_at")

"""When the retailer closed a store.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03

Written by hand after the model (``coreapi.models.Store.closed_at``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** One nullable column, ``stores.closed_at``: every store of before is open (NULL), as it was.

**Downgrade.** The column is dropped: a store closed meanwhile is open again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``stores.closed_at``."""
    with op.batch_alter_table("stores") as batch:
        batch.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Drop ``stores.closed_at`` (see the module's doc)."""
    with op.batch_alter_table("stores") as batch:
        batch.drop_column("closed_at")

"""An index of the events by when coreapi stored them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03

Written by hand after the model (``coreapi.models.Event``, ``ix_events_received_at``), then checked on SQLite and
PostgreSQL against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** The index ``ix_events_received_at``: ``flask --app coreapi prune`` deletes the events stored before a
time every night (coreapi/services/retention.py), which without it reads the whole table. Nothing else changes. On
PostgreSQL it is built CONCURRENTLY (in its own transaction: ``coreapi.migrate``): a plain build would stop every
event's insert for as long as it reads the table, which holds 13 months of events.

**Downgrade.** The index is dropped: the prune reads the whole table again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``ix_events_received_at``; on PostgreSQL CONCURRENTLY, outside a transaction, so the events keep
    being written while it is built on a large table (an index a failed build left invalid is dropped first)."""
    if op.get_bind().dialect.name != "postgresql":
        op.create_index("ix_events_received_at", "events", ["received_at"])
        return
    with op.get_context().autocommit_block():
        invalid = op.get_bind().scalar(
            sa.text("SELECT NOT indisvalid FROM pg_index WHERE indexrelid = to_regclass('ix_events_received_at')")
        )
        if invalid:
            op.drop_index("ix_events_received_at", table_name="events", postgresql_concurrently=True)
        op.create_index(
            "ix_events_received_at", "events", ["received_at"], postgresql_concurrently=True, if_not_exists=True
        )


def downgrade() -> None:
    """Drop ``ix_events_received_at`` (see the module's doc)."""
    op.drop_index("ix_events_received_at", table_name="events")

"""An index of the events by when coreapi stored them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03

Written by hand after the model (``coreapi.models.Event``, ``ix_events_received_at``), then checked on SQLite and
PostgreSQL against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** The index ``ix_events_received_at``: ``flask --app coreapi prune`` deletes the events stored before a
time every night (coreapi/services/retention.py), which without it reads the whole table. Nothing else changes.

**Downgrade.** The index is dropped: the prune reads the whole table again.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``ix_events_received_at``."""
    op.create_index("ix_events_received_at", "events", ["received_at"])


def downgrade() -> None:
    """Drop ``ix_events_received_at`` (see the module's doc)."""
    op.drop_index("ix_events_received_at", table_name="events")

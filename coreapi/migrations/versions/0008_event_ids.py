"""Events' ids.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28

Written by hand after the model (``coreapi.models.Event``), then checked on SQLite and PostgreSQL against it
(the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming convention of
``coreapi.extensions``). SQLite adds a unique constraint by copying the table (batch mode, foreign keys off:
``coreapi.migrate``); the events keep their rows and keys.

**Upgrade.** A nullable column ``events.event_id`` (up to 64 characters: the id a browser gives each event,
a UUID from prerender's SDK) and the unique constraint ``uq_events_supplier_event`` on
``(supplier_id, event_id)``: an event sent again by a retried batch is not stored twice (``POST /events``
inserts ignoring conflicts). The events stored before have no id (NULL, never equal to another), as have
those of older SDKs from now on: nothing existing changes.

**Downgrade.** The constraint and the column are dropped, the ids with them; the events stay.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``events.event_id``, unique per supplier (see the module's doc)."""
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("event_id", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_events_supplier_event", ["supplier_id", "event_id"])


def downgrade() -> None:
    """Drop the events' ids (see the module's doc)."""
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint("uq_events_supplier_event", type_="unique")
        batch.drop_column("event_id")

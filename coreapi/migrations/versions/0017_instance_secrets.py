"""The deployment's own secrets, shared by its nodes through the database; the first: the key of public ids.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04

Written by hand after the model (``coreapi.models.InstanceSecret``), then checked on SQLite and PostgreSQL against
it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** A table ``instance_secrets`` (a name, a value) and its first row, ``public-ids``: 64 random hex
digits, made here once per database, that key the ids a shopper's answers show for baskets and menus
(coreapi/services/public_ids.py). Every node reads the one row, so they all show the same ids, and a copy of the
database shows what the original did.

**Downgrade.** The table is dropped. The release before (whose code has no public ids) then shows the rows' own
numbers again; today's code, still running until that release is installed, answers its basket and menu routes with
a 500 (no key) meanwhile, as it fails on any column a downgrade drops (docs/operations.md, "Rolling back a
release"). An upgrade after makes a new key, so the ids shown before are not shown again (they are labels, never
asked back), and a process that kept the old key shows the old ids until its reload.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``instance_secrets`` with its ``public-ids`` key."""
    table = op.create_table(
        "instance_secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_instance_secrets")),
    )
    op.bulk_insert(table, [{"name": "public-ids", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    """Drop ``instance_secrets`` (see the module's doc)."""
    op.drop_table("instance_secrets")

"""When the catalog stopped offering a recipe.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02

Written by hand after the model (``coreapi.models.Recipe.retired_at``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``).

**Upgrade.** One nullable column, ``recipes.retired_at``: every recipe of before is offered (NULL), as it was.

**Downgrade.** The column is dropped: a recipe retired meanwhile is offered again (the baskets and menus it was
taken out of at its retirement do not get it back).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``recipes.retired_at``."""
    with op.batch_alter_table("recipes") as batch:
        batch.add_column(sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Drop ``recipes.retired_at`` (see the module's doc)."""
    with op.batch_alter_table("recipes") as batch:
        batch.drop_column("retired_at")

"""The table of what a browser's cart showed, on a database whose revision 0010 was another one.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03

**Why.** Two scripts have carried revision id 0010. A release (commit ``c13b60f``) shipped
``0010_basket_cart_reports`` (a table ``basket_cart_reports``); the next commits replaced that script with
``0010_basket_shown_products`` under the same id (a table ``basket_shown_products``, ``coreapi.models.ShownProduct``).
Alembic knows a revision by its id only, so a database that release had migrated to 0010 was taken as having
``basket_shown_products``: the next upgrade ran 0011 onwards, and every basket write that reads the table failed.
A revision that shipped is never rewritten (docs/decisions.md, "a revision that shipped is never rewritten"); this
one mends the databases the rewrite left behind.

**Upgrade.** ``basket_shown_products`` is created, exactly as 0010 creates it, where it does not exist (a database of
that release); elsewhere nothing changes. ``basket_cart_reports``, where it exists, is left in place: that release's
coreapi, still running during a rolling upgrade or after a rollback of the code, writes to it; nothing of this
release reads it, ``coreapi.migrate.differences`` leaves out tables no model names, and a later revision may drop it.

**Downgrade.** Nothing: the table is 0010's (its downgrade drops it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``basket_shown_products`` where the released 0010 left it out."""
    if "basket_shown_products" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "basket_shown_products",
        sa.Column("basket_id", sa.Integer(), nullable=False),
        sa.Column("recipe_id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("reporter", sa.String(length=32), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("reported_at", sa.Float(), nullable=False),
        sa.Column("shown_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_basket_shown_products_quantity_positive")),
        sa.ForeignKeyConstraint(
            ["basket_id"],
            ["baskets.id"],
            name=op.f("fk_basket_shown_products_basket_id_baskets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["recipe_id"],
            ["recipes.id"],
            name=op.f("fk_basket_shown_products_recipe_id_recipes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_basket_shown_products_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "basket_id", "recipe_id", "product_id", "reporter", name=op.f("pk_basket_shown_products")
        ),
    )
    op.create_index(op.f("ix_basket_shown_products_recipe_id"), "basket_shown_products", ["recipe_id"], unique=False)
    op.create_index(op.f("ix_basket_shown_products_product_id"), "basket_shown_products", ["product_id"], unique=False)


def downgrade() -> None:
    """Nothing (see the module's doc)."""

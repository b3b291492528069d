"""What a browser's cart showed of what a basket awaited.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

Written by hand after the model (``coreapi.models.ShownProduct``), then checked on SQLite and PostgreSQL against
it (the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming convention of
``coreapi.extensions``), the CHECK constraint is the model's.

**Upgrade.** One new table, nothing existing changes: ``basket_shown_products``, per basket, recipe, product and
reporting browser (a digest of its id and the basket's), the packages whose wait that browser's cart ended, when
its clock says it reported that cart, and when the service followed it (``coreapi.services.cart_waits``). The
baskets of before have none: their next reconcile follows the cart as before.

**Downgrade.** The table is dropped: an older cart of a browser reaching the service after a newer one is then
followed as it comes, as before this revision.
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
    """Create ``basket_shown_products``."""
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
    """Drop what the browsers' carts showed (see the module's doc)."""
    op.drop_index(op.f("ix_basket_shown_products_product_id"), table_name="basket_shown_products")
    op.drop_index(op.f("ix_basket_shown_products_recipe_id"), table_name="basket_shown_products")
    op.drop_table("basket_shown_products")

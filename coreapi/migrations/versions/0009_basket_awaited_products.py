"""What the retailer cart was asked to add and has not shown yet.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Written by hand after the model (``coreapi.models.AwaitedProduct``), then checked on SQLite and PostgreSQL
against it (the tests of ``tests/coreapi/test_migrations.py``): every name is spelled out (the naming
convention of ``coreapi.extensions``), the CHECK constraint is the model's.

**Upgrade.** One new table, nothing existing changes: ``basket_awaited_products``, per basket, recipe and
product, the packages the basket's writes for that recipe asked the retailer cart to add that no reconciled cart
has shown yet, and when the last of them was asked (``coreapi.services.cart_waits``). The baskets of before have
none: their next reconcile follows the cart as before.

**Downgrade.** The table is dropped: a reconcile then takes out of the basket whatever the cart does not show,
as before this revision.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``basket_awaited_products``."""
    op.create_table(
        "basket_awaited_products",
        sa.Column("basket_id", sa.Integer(), nullable=False),
        sa.Column("recipe_id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("quantity > 0", name=op.f("ck_basket_awaited_products_quantity_positive")),
        sa.ForeignKeyConstraint(
            ["basket_id"],
            ["baskets.id"],
            name=op.f("fk_basket_awaited_products_basket_id_baskets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["recipe_id"],
            ["recipes.id"],
            name=op.f("fk_basket_awaited_products_recipe_id_recipes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["product_id"],
            ["products.id"],
            name=op.f("fk_basket_awaited_products_product_id_products"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("basket_id", "recipe_id", "product_id", name=op.f("pk_basket_awaited_products")),
    )
    op.create_index(
        op.f("ix_basket_awaited_products_recipe_id"), "basket_awaited_products", ["recipe_id"], unique=False
    )
    op.create_index(
        op.f("ix_basket_awaited_products_product_id"), "basket_awaited_products", ["product_id"], unique=False
    )


def downgrade() -> None:
    """Drop what the carts were awaited for (see the module's doc)."""
    op.drop_index(op.f("ix_basket_awaited_products_product_id"), table_name="basket_awaited_products")
    op.drop_index(op.f("ix_basket_awaited_products_recipe_id"), table_name="basket_awaited_products")
    op.drop_table("basket_awaited_products")

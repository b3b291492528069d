"""The catalog objects ``coreapi.drawing`` draws, loaded with what the drawings read."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from coreapi.models import Product, ProductIngredient, Recipe, RecipeIngredient
from coreapi.services.catalog import MAX_DATABASE_ID


def recipe_for_picture(session: Session, recipe_id: int) -> Recipe | None:
    if not 0 < recipe_id <= MAX_DATABASE_ID:
        return None
    return session.scalars(
        select(Recipe)
        .where(Recipe.id == recipe_id)
        .options(
            selectinload(Recipe.categories),
            selectinload(Recipe.ingredients).selectinload(RecipeIngredient.ingredient),
        )
    ).one_or_none()


def product_for_picture(session: Session, product_id: int) -> Product | None:
    if not 0 < product_id <= MAX_DATABASE_ID:
        return None
    return session.scalars(
        select(Product)
        .where(Product.id == product_id)
        .options(selectinload(Product.ingredient_links).selectinload(ProductIngredient.ingredient))
    ).one_or_none()

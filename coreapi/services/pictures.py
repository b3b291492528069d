"""What the catalog's pictures are drawn from (``coreapi.drawing``): read from the models, as plain data."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from coreapi.drawing import dish_of
from coreapi.models import Product, ProductIngredient, Recipe, RecipeIngredient
from coreapi.services.catalog import MAX_DATABASE_ID


@dataclass(frozen=True)
class RecipePicture:
    """The arguments of ``recipe_picture_svg``: the ingredients' colours, the primary ingredient's first."""

    recipe_id: str
    recipe_type: str
    colors: list[str | None]
    # What the title says the dish is (``coreapi.drawing.dish_of``): a salad is drawn as a salad.
    dish: str | None


@dataclass(frozen=True)
class ProductPicture:
    """The arguments of ``product_picture_svg``: coloured like its best-ranked ingredient."""

    product_id: str
    package: str
    brand: str
    name: str
    color: str | None


def recipe_picture(session: Session, recipe_id: int) -> RecipePicture | None:
    if not 0 < recipe_id <= MAX_DATABASE_ID:
        return None
    recipe = session.scalars(
        select(Recipe)
        .where(Recipe.id == recipe_id)
        .options(selectinload(Recipe.ingredients).selectinload(RecipeIngredient.ingredient))
    ).one_or_none()
    if recipe is None:
        return None
    items = sorted(recipe.ingredients, key=lambda item: not item.is_primary)
    return RecipePicture(
        recipe_id=str(recipe.id),
        recipe_type=recipe.type,
        colors=[item.ingredient.color for item in items],
        dish=dish_of(recipe.title, recipe.type),
    )


def product_picture(session: Session, product_id: int) -> ProductPicture | None:
    if not 0 < product_id <= MAX_DATABASE_ID:
        return None
    product = session.scalars(
        select(Product)
        .where(Product.id == product_id)
        .options(selectinload(Product.ingredient_links).selectinload(ProductIngredient.ingredient))
    ).one_or_none()
    if product is None:
        return None
    colors = [link.ingredient.color for link in product.ingredient_links if link.ingredient.color]
    return ProductPicture(
        product_id=str(product.id),
        package=product.package or "box",
        brand=product.brand or "",
        name=product.name,
        color=colors[0] if colors else None,
    )

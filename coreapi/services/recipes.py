"""Recipe reads: summaries, details priced at a store, and the completion filter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.orm import InstrumentedAttribute, Session, aliased, selectinload

from coreapi.models import (
    Ingredient,
    ProductIngredient,
    Recipe,
    RecipeCategory,
    RecipeIngredient,
    Store,
    StoreProduct,
)
from coreapi.services.catalog import (
    CandidateView,
    database_id,
    database_ids,
    load_offers,
    make_offer,
    product_view,
)
from coreapi.services.pagination import Page, paginate
from coreapi.services.pricing import Line, Pricing, is_promoted, price_recipe
from coreapi.services.quantities import format_quantity, packages, scale
from coreapi.services.text import DEFAULT_LANGUAGE, localized, search_key

DETAIL_LOADING = (
    selectinload(Recipe.categories),
    selectinload(Recipe.steps),
    selectinload(Recipe.ingredients)
    .selectinload(RecipeIngredient.ingredient)
    .selectinload(Ingredient.product_links)
    .selectinload(ProductIngredient.product),
)


@dataclass(frozen=True)
class RecipeSummary:
    id: int
    external_id: str
    title: str
    description: str
    type: str
    categories: list[str]
    difficulty: int
    preparation_time: int
    cooking_time: int
    total_time: int
    guests: int


@dataclass(frozen=True)
class Step:
    position: int
    text: str


@dataclass(frozen=True)
class IngredientView:
    id: str
    name: str
    quantity: Decimal
    unit: str
    display: str
    primary: bool
    products: list[CandidateView]


@dataclass(frozen=True)
class RecipeDetail(RecipeSummary):
    """A summary plus steps and ingredients; the store fields are ``None`` without a store."""

    steps: list[Step]
    ingredients: list[IngredientView]
    available: bool | None
    promoted: bool | None
    pricing: Pricing | None


def completed_at(store_id: int, recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    """SQL condition of the completion filter: the recipe's primary ingredient can be bought."""
    primary = aliased(RecipeIngredient)
    link = aliased(ProductIngredient)
    stocked = aliased(StoreProduct)
    return exists().where(
        primary.recipe_id == recipe_id,
        primary.is_primary.is_(True),
        link.ingredient_id == primary.ingredient_id,
        stocked.product_id == link.product_id,
        stocked.store_id == store_id,
        stocked.available.is_(True),
        stocked.price.is_not(None),
    )


def in_category(category_id: str, recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    tagged = aliased(RecipeCategory)
    return exists().where(tagged.recipe_id == recipe_id, tagged.category_id == category_id)


def recipe_filters(
    *,
    store: Store | None = None,
    type: str | None = None,
    category_id: str | None = None,
    query: str | None = None,
) -> list[ColumnElement[bool]]:
    """The WHERE conditions on ``Recipe`` shared by the recipe list and the suggestions."""
    conditions: list[ColumnElement[bool]] = []
    if type:
        conditions.append(Recipe.type == type)
    if category_id:
        conditions.append(in_category(category_id, Recipe.id))
    if query:
        conditions.append(Recipe.search_text.contains(search_key(query), autoescape=True))
    if store is not None:
        conditions.append(completed_at(store.id, Recipe.id))
    return conditions


def summary(recipe: Recipe, language: str, guests: int | None = None) -> RecipeSummary:
    return RecipeSummary(
        id=recipe.id,
        external_id=recipe.external_id,
        title=localized(recipe.title, recipe.title_en, language),
        description=localized(recipe.description, recipe.description_en, language),
        type=recipe.type,
        categories=[category.id for category in recipe.categories],
        difficulty=recipe.difficulty,
        preparation_time=recipe.preparation_time,
        cooking_time=recipe.cooking_time,
        total_time=recipe.total_time,
        guests=guests or recipe.guests,
    )


def list_recipes(
    session: Session,
    *,
    page: int,
    per_page: int,
    store: Store | None = None,
    type: str | None = None,
    category_id: str | None = None,
    query: str | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Page[RecipeSummary]:
    """A page of recipe summaries, filtered, in id order."""
    statement = (
        select(Recipe)
        .where(*recipe_filters(store=store, type=type, category_id=category_id, query=query))
        .options(selectinload(Recipe.categories))
        .order_by(Recipe.id)
    )
    return paginate(session, statement, page, per_page).map(
        lambda recipe: summary(recipe, language)
    )


def find_summary_by_external_id(
    session: Session, external_id: str, language: str = DEFAULT_LANGUAGE
) -> RecipeSummary | None:
    recipe = session.scalars(
        select(Recipe)
        .where(Recipe.external_id == external_id)
        .options(selectinload(Recipe.categories))
    ).one_or_none()
    return summary(recipe, language) if recipe is not None else None


def recipe_details(
    session: Session,
    ids: Sequence[str],
    *,
    store: Store | None = None,
    serves: int | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> list[RecipeDetail]:
    """Details of the known recipes among ``ids``, in the order asked, in a fixed number of queries.

    Unknown ids are left out.
    """
    keys = database_ids(ids)
    if not keys:
        return []
    recipes = session.scalars(
        select(Recipe).where(Recipe.id.in_(keys)).options(*DETAIL_LOADING)
    ).all()
    offers = load_offers(
        session,
        store,
        (
            link.product_id
            for recipe in recipes
            for item in recipe.ingredients
            for link in item.ingredient.product_links
        ),
    )
    by_id = {recipe.id: recipe for recipe in recipes}
    return [_detail(by_id[key], store, offers, serves, language) for key in keys if key in by_id]


def find_detail(
    session: Session,
    recipe_id: str,
    *,
    store: Store | None = None,
    serves: int | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> RecipeDetail | None:
    key = database_id(recipe_id)
    if key is None:
        return None
    details = recipe_details(session, [str(key)], store=store, serves=serves, language=language)
    return details[0] if details else None


def _detail(
    recipe: Recipe,
    store: Store | None,
    offers: dict[int, StoreProduct],
    serves: int | None,
    language: str,
) -> RecipeDetail:
    guests = serves or recipe.guests
    ingredients: list[IngredientView] = []
    lines: list[Line] = []
    primary_line: Line | None = None
    for item in recipe.ingredients:
        ingredient = item.ingredient
        quantity = scale(item.quantity, recipe.guests, guests)
        products = [link.product for link in ingredient.product_links]
        line = Line(quantity, [make_offer(p, offers.get(p.id)) for p in products])
        lines.append(line)
        if item.is_primary:
            primary_line = line
        ingredients.append(
            IngredientView(
                id=ingredient.id,
                name=localized(ingredient.name, ingredient.name_en, language),
                quantity=quantity,
                unit=ingredient.unit,
                display=format_quantity(quantity, ingredient.unit, language, item.display_unit),
                primary=item.is_primary,
                products=[
                    CandidateView(
                        **vars(product_view(product, offer if store is not None else None, language)),
                        packages=packages(item.quantity, recipe.guests, guests, product.size_value),
                    )
                    for product, offer in zip(products, line.offers, strict=True)
                ],
            )
        )
    has_store = store is not None
    return RecipeDetail(
        **vars(summary(recipe, language, guests)),
        steps=_steps(recipe, language),
        ingredients=ingredients,
        available=(primary_line is not None and primary_line.chosen is not None)
        if has_store
        else None,
        promoted=is_promoted(lines) if has_store else None,
        pricing=price_recipe(lines, guests) if has_store else None,
    )


def _steps(recipe: Recipe, language: str) -> list[Step]:
    """The steps in ``language``, the French ones when that language has none."""
    steps = [step for step in recipe.steps if step.language == language]
    if not steps:
        steps = [step for step in recipe.steps if step.language == DEFAULT_LANGUAGE]
    return [Step(position, step.text) for position, step in enumerate(steps, start=1)]

"""Recipe reads: summaries, details priced at a store, the completion filter and a shopper's
preferences."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import BindParameter, ColumnElement, Row, and_, bindparam, exists, select
from sqlalchemy.orm import InstrumentedAttribute, Session, aliased, selectinload
from sqlalchemy.sql.base import ExecutableOption

from coreapi.models import (
    Category,
    Equipment,
    Ingredient,
    Product,
    ProductIngredient,
    Recipe,
    RecipeCategory,
    RecipeEquipment,
    RecipeIngredient,
    RecipeStep,
    Store,
    StoreProduct,
)
from coreapi.services.catalog import database_id, database_ids, offered
from coreapi.services.pagination import Page, paginate
from coreapi.services.pricing import Line, Offer, choose, is_promoted, money_number, price_recipe
from coreapi.services.quantities import (
    format_quantity,
    format_size,
    packages,
    quantity_number,
    scale,
)
from coreapi.services.text import DEFAULT_LANGUAGE, localized, search_key


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
    equipment: list[str]
    tags: list[str]


# The label of each recipe type (French, English), a recipe's first tag.
TYPE_LABELS: dict[str, tuple[str, str]] = {
    "starter": ("Entrée", "Starter"),
    "main-dish": ("Plat principal", "Main course"),
    "dessert": ("Dessert", "Dessert"),
    "drink": ("Boisson", "Drink"),
}
MAX_TAGS = 6
# The product pictures a detail or summary lists for its ingredients (a recipe card shows them, at most 4).
MAX_INGREDIENT_PICTURES = 4


class TagSource(NamedTuple):
    """A category of a recipe, as its tags read it."""

    name: str
    name_en: str | None
    diet: bool


def recipe_tags(recipe_type: str, categories: Iterable[TagSource], language: str) -> list[str]:
    """What a recipe page shows as the recipe's tags: the label of its type, then the names of its categories
    that are diets, then of its others (themes), each in the recipe's order; at most ``MAX_TAGS``."""
    label = TYPE_LABELS.get(recipe_type)
    tags = [localized(*label, language)] if label is not None else []
    ordered = sorted(categories, key=lambda category: not category.diet)  # stable: the recipe's order kept
    tags += [localized(category.name, category.name_en, language) for category in ordered]
    return list(dict.fromkeys(tags))[:MAX_TAGS]


@dataclass(frozen=True)
class RecipePreferences:
    """What a shopper's stored preferences ask of recipes (``coreapi.services.preferences``): in
    every category of ``diets``, using none of ``avoided_ingredients``, needing none of
    ``missing_equipment``."""

    diets: tuple[str, ...] = ()
    avoided_ingredients: tuple[str, ...] = ()
    missing_equipment: tuple[str, ...] = ()


def completed_at(store_id: int | BindParameter[int], recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    """SQL condition of the completion filter: the recipe's primary ingredient can be bought.

    The store's shelf is an EXISTS nested in the one on the primary ingredient's products, so
    the plan has to go recipe -> primary ingredient -> its products -> their row at the store (a
    primary-key lookup). Flat, SQLite (without statistics) walked the store's whole shelf for
    each row of the outer query: 50 ms instead of under 1 ms for a page of suggestions.
    """
    # Fresh aliases for each condition: SQL elements shared between statements at module level
    # (and between threads) are the one suspect of an intermittent wrong store seen once in a full
    # `make test` run; a few tens of microseconds buy them out of the question.
    primary, link, stocked = aliased(RecipeIngredient), aliased(ProductIngredient), aliased(StoreProduct)
    on_shelf = exists().where(
        stocked.store_id == store_id,
        stocked.product_id == link.product_id,
        stocked.available.is_(True),
        stocked.price.is_not(None),
    )
    return exists().where(
        primary.recipe_id == recipe_id,
        primary.is_primary.is_(True),
        link.ingredient_id == primary.ingredient_id,
        on_shelf,
    )


def in_category(category_id: str | BindParameter[str], recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    tagged = aliased(RecipeCategory)
    return exists().where(tagged.recipe_id == recipe_id, tagged.category_id == category_id)


def using_none_of(ingredient_ids: Sequence[str], recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    used = aliased(RecipeIngredient)
    return ~exists().where(used.recipe_id == recipe_id, used.ingredient_id.in_(sorted(set(ingredient_ids))))


def needing_none_of(equipment_ids: Sequence[str], recipe_id: InstrumentedAttribute[int]) -> ColumnElement[bool]:
    needed = aliased(RecipeEquipment)
    return ~exists().where(needed.recipe_id == recipe_id, needed.equipment_id.in_(sorted(set(equipment_ids))))


def preferred(preferences: RecipePreferences, recipe_id: InstrumentedAttribute[int]) -> list[ColumnElement[bool]]:
    """The conditions of a shopper's preferences on a recipe: none when it has none."""
    conditions = [in_category(diet, recipe_id) for diet in sorted(set(preferences.diets))]
    if preferences.avoided_ingredients:
        conditions.append(using_none_of(preferences.avoided_ingredients, recipe_id))
    if preferences.missing_equipment:
        conditions.append(needing_none_of(preferences.missing_equipment, recipe_id))
    return conditions


def recipe_filters(
    *,
    store: Store | None = None,
    type: str | Sequence[str] | None = None,
    category_id: str | None = None,
    query: str | None = None,
    exclude_ids: Sequence[int] = (),
    preferences: RecipePreferences | None = None,
) -> list[ColumnElement[bool]]:
    """The WHERE conditions on ``Recipe`` shared by the recipe list and the suggestions; ``type``
    is one type or any of several; ``preferences``: a shopper's, applied (``preferences=apply``)."""
    conditions: list[ColumnElement[bool]] = [offered()]
    types = [type] if isinstance(type, str) else sorted(set(type or ()))
    if len(types) == 1:
        conditions.append(Recipe.type == types[0])
    elif types:
        conditions.append(Recipe.type.in_(types))
    if exclude_ids:
        conditions.append(Recipe.id.not_in(sorted(set(exclude_ids))))
    if category_id:
        conditions.append(in_category(category_id, Recipe.id))
    if query:
        conditions.append(Recipe.search_text.contains(search_key(query), autoescape=True))
    if store is not None:
        conditions.append(completed_at(store.id, Recipe.id))
    if preferences is not None:
        conditions.extend(preferred(preferences, Recipe.id))
    return conditions


def summary_loading() -> tuple[ExecutableOption, ...]:
    """What a summary reads of a recipe besides its columns (fresh options for each statement, like
    ``completed_at``'s conditions)."""
    return selectinload(Recipe.categories), selectinload(Recipe.equipment)


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
        equipment=[equipment.id for equipment in recipe.equipment],
        tags=recipe_tags(recipe.type, (TagSource(c.name, c.name_en, c.diet) for c in recipe.categories), language),
    )


def list_recipes(
    session: Session,
    *,
    page: int,
    per_page: int,
    store: Store | None = None,
    type: str | Sequence[str] | None = None,
    category_id: str | None = None,
    query: str | None = None,
    exclude_ids: Sequence[int] = (),
    preferences: RecipePreferences | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Page[RecipeSummary]:
    """A page of recipe summaries, filtered, in id order."""
    conditions = recipe_filters(
        store=store, type=type, category_id=category_id, query=query, exclude_ids=exclude_ids, preferences=preferences
    )
    statement = select(Recipe).where(*conditions).options(*summary_loading()).order_by(Recipe.id)
    return paginate(session, statement, page, per_page).map(lambda recipe: summary(recipe, language))


def find_summary_by_external_id(
    session: Session, external_id: str, language: str = DEFAULT_LANGUAGE
) -> RecipeSummary | None:
    recipe = session.scalars(
        select(Recipe).where(Recipe.external_id == external_id, offered()).options(*summary_loading())
    ).one_or_none()
    return summary(recipe, language) if recipe is not None else None


class PictureUrls(NamedTuple):
    """The picture URL of a recipe and of a product, from their ids (the request decides them)."""

    recipe: Callable[[int], str]
    product: Callable[[int], str]


# A recipe detail exactly as the contract answers it (docs/upstream.md): JSON values only.
RecipeDetail = dict[str, Any]


def recipe_details(
    session: Session,
    ids: Sequence[str],
    *,
    pictures: PictureUrls,
    store: Store | None = None,
    serves: int | None = None,
    language: str = DEFAULT_LANGUAGE,
    summary: bool = False,
) -> list[RecipeDetail]:
    """Details of the known recipes among ``ids``, in the order asked, in a fixed number of queries;
    with ``summary``, without their ``ingredients`` and ``steps`` (price, availability and promotion are
    still computed from the ingredients: a card needs them, not the lists).

    Unknown ids are left out. A page of cards asks for 24 recipes of about 20 candidate products
    each, so every table is read once for the whole batch, only the columns the answer needs, as
    rows rather than ORM objects, through statements built once, and the answer is built as JSON
    values directly (a marshmallow dump of the same cost several times the whole of this).
    """
    keys = database_ids(ids)
    if not keys:
        return []
    connection = session.connection(bind_arguments={"mapper": Recipe})
    offered_recipes = _RECIPES.where(offered())
    recipes: dict[int, _RecipeRow] = {row[0]: row for row in connection.execute(offered_recipes, {"keys": keys}).all()}
    if not recipes:
        return []
    found = list(recipes)

    categories: dict[int, list[str]] = defaultdict(list)
    tag_sources: dict[int, list[TagSource]] = defaultdict(list)
    for recipe_id, category_id, name, name_en, diet in connection.execute(_CATEGORIES, {"keys": found}).all():
        categories[recipe_id].append(category_id)
        tag_sources[recipe_id].append(TagSource(name, name_en, diet))
    equipment: dict[int, list[str]] = defaultdict(list)
    for recipe_id, equipment_id in connection.execute(_EQUIPMENT, {"keys": found}).all():
        equipment[recipe_id].append(equipment_id)

    steps: dict[tuple[int, str], list[str]] = defaultdict(list)
    languages = sorted({language, DEFAULT_LANGUAGE})
    if not summary:
        for recipe_id, step_language, text in connection.execute(_STEPS, {"keys": found, "languages": languages}).all():
            steps[recipe_id, step_language].append(text)

    items: dict[int, list[_ItemRow]] = defaultdict(list)
    for item in connection.execute(_ITEMS, {"keys": found}).all():
        items[item[0]].append(item)

    builder = _DetailBuilder(pictures, store is not None, serves, language, summary=summary)
    ingredient_ids = sorted({item[1] for rows in items.values() for item in rows})
    if ingredient_ids:
        rows: Sequence[_CandidateRow]
        if store is None:
            rows = connection.execute(_CANDIDATES, {"ingredients": ingredient_ids}).all()
        else:
            rows = connection.execute(_CANDIDATES_AT_STORE, {"ingredients": ingredient_ids, "store_id": store.id}).all()
        builder.add_candidates(rows)
    return [
        builder.detail(
            recipes[key],
            categories[key],
            tag_sources[key],
            equipment[key],
            steps[key, language] or steps[key, DEFAULT_LANGUAGE],
            items[key],
        )
        for key in keys
        if key in recipes
    ]


def find_detail(
    session: Session,
    recipe_id: str,
    *,
    pictures: PictureUrls,
    store: Store | None = None,
    serves: int | None = None,
    language: str = DEFAULT_LANGUAGE,
    summary: bool = False,
) -> RecipeDetail | None:
    key = database_id(recipe_id)
    if key is None:
        return None
    details = recipe_details(
        session,
        [str(key)],
        pictures=pictures,
        store=store,
        serves=serves,
        language=language,
        summary=summary,
    )
    return details[0] if details else None


def _keys(name: str) -> BindParameter[Any]:
    return bindparam(name, expanding=True)


# The statements of recipe_details. Their rows keep the orders of the relationships they stand
# for (Recipe.categories, Recipe.equipment, Recipe.steps, Recipe.ingredients, Ingredient.product_links) within each
# recipe or ingredient.
_RECIPES = select(
    Recipe.id,
    Recipe.external_id,
    Recipe.title,
    Recipe.title_en,
    Recipe.description,
    Recipe.description_en,
    Recipe.type,
    Recipe.difficulty,
    Recipe.preparation_time,
    Recipe.cooking_time,
    Recipe.guests,
).where(Recipe.id.in_(_keys("keys")))
_CATEGORIES = (
    select(RecipeCategory.recipe_id, Category.id, Category.name, Category.name_en, Category.diet)
    .join(Category, Category.id == RecipeCategory.category_id)
    .where(RecipeCategory.recipe_id.in_(_keys("keys")))
    .order_by(RecipeCategory.position)
)
_EQUIPMENT = (
    select(RecipeEquipment.recipe_id, Equipment.id)
    .join(Equipment, Equipment.id == RecipeEquipment.equipment_id)
    .where(RecipeEquipment.recipe_id.in_(_keys("keys")))
    .order_by(Equipment.position)
)
_STEPS = (
    select(RecipeStep.recipe_id, RecipeStep.language, RecipeStep.text)
    .where(RecipeStep.recipe_id.in_(_keys("keys")), RecipeStep.language.in_(_keys("languages")))
    .order_by(RecipeStep.language, RecipeStep.position)
)
_ITEMS = (
    select(
        RecipeIngredient.recipe_id,
        RecipeIngredient.ingredient_id,
        RecipeIngredient.quantity,
        RecipeIngredient.is_primary,
        RecipeIngredient.display_unit,
        Ingredient.name,
        Ingredient.name_en,
        Ingredient.unit,
    )
    .join(Ingredient, Ingredient.id == RecipeIngredient.ingredient_id)
    .where(RecipeIngredient.recipe_id.in_(_keys("keys")))
    .order_by(RecipeIngredient.position)
)
_CANDIDATES = (
    select(
        ProductIngredient.ingredient_id,
        Product.id,
        Product.name,
        Product.brand,
        Product.size_value,
        Product.size_unit,
    )
    .join(Product, Product.id == ProductIngredient.product_id)
    .where(ProductIngredient.ingredient_id.in_(_keys("ingredients")))
    .order_by(ProductIngredient.rank, ProductIngredient.product_id)
)
# With the product's row at the store when the store stocks it (see make_offer).
_CANDIDATES_AT_STORE = _CANDIDATES.add_columns(
    StoreProduct.price, StoreProduct.available, StoreProduct.promoted
).outerjoin(
    StoreProduct,
    and_(
        StoreProduct.store_id == bindparam("store_id"),
        StoreProduct.product_id == Product.id,
    ),
)

if TYPE_CHECKING:
    # The rows of those statements, one type per column (Row's parameters since SQLAlchemy 2.1,
    # hence only for the type checker). A candidate at a store has the store's three columns after
    # the product's: price, available, promoted (all None when the store does not stock it).
    _RecipeRow = Row[int, str, str, str | None, str, str | None, str, int, int, int, int]
    _ItemRow = Row[int, str, Decimal, bool, str | None, str, str | None, str]
    _CandidateRow = Row[str, int, str, str | None, Decimal, str, *tuple[Any, ...]]


class _Candidate(NamedTuple):
    size: Decimal
    view: dict[str, Any]  # its JSON but for the packages
    offer: Offer | None  # None without a store


class _DetailBuilder:
    """The details of one call: each product's part of the answer is built once per call."""

    def __init__(
        self,
        pictures: PictureUrls,
        has_store: bool,
        serves: int | None,
        language: str,
        *,
        summary: bool = False,
    ) -> None:
        self.pictures = pictures
        self.has_store = has_store
        self.serves = serves
        self.language = language
        self.summary = summary  # no ingredient lists: only what pricing needs
        self.candidates: dict[str, list[_Candidate]] = defaultdict(list)

    def add_candidates(self, rows: Iterable[_CandidateRow]) -> None:
        """The ingredients' candidates, best ranked first (rows of _CANDIDATES[_AT_STORE])."""
        products: dict[int, _Candidate] = {}
        for row in rows:
            ingredient_id, product_id = row[0], row[1]
            candidate = products.get(product_id)
            if candidate is None:
                products[product_id] = candidate = self._candidate(row)
            self.candidates[ingredient_id].append(candidate)

    def _candidate(self, row: _CandidateRow) -> _Candidate:
        product_id, name, brand, size, size_unit = row[1:6]
        offer: Offer | None = None
        if self.has_store:
            # The store's columns (see _CandidateRow), read one by one to give them their types.
            price: Decimal | None = row[6]
            available: bool | None = row[7]
            if available is None:  # the store does not stock it
                offer = Offer(product_id, size, None, available=False, promoted=False)
            else:
                promoted: bool = row[8]
                offer = Offer(product_id, size, price, available, promoted)
        if self.summary:
            return _Candidate(size, {"id": product_id}, offer)
        view = {
            "id": str(product_id),
            "name": name,
            "brand": brand,
            "size": format_size(size, size_unit, self.language),
            "picture_url": self.pictures.product(product_id),
            "price": money_number(offer.price) if offer is not None else None,
            "available": offer.available if offer is not None else None,
            "promoted": offer.promoted if offer is not None else None,
        }
        return _Candidate(size, view, offer)

    def detail(
        self,
        recipe: _RecipeRow,
        categories: list[str],
        tag_sources: list[TagSource],
        equipment: list[str],
        steps: list[str],
        items: list[_ItemRow],
    ) -> RecipeDetail:
        (
            recipe_id,
            external_id,
            title,
            title_en,
            description,
            description_en,
            recipe_type,
            difficulty,
            preparation_time,
            cooking_time,
            written_for,
        ) = recipe
        language = self.language
        guests = self.serves or written_for
        ingredients = []
        lines: list[Line] = []
        primary_line: Line | None = None
        # The products a card may show the pictures of: each ingredient's chosen one (else its first candidate).
        pictured: dict[int, None] = {}
        for _, ingredient_id, written, is_primary, display_unit, name, name_en, unit in items:
            quantity = scale(written, written_for, guests)
            candidates = self.candidates.get(ingredient_id, ())
            # A detail is the same for every shopper (prerender caches it per store): no shopper's favorites.
            chosen = choose(offer for _, _, offer in candidates if offer is not None)
            if len(pictured) < MAX_INGREDIENT_PICTURES and candidates:
                pictured[chosen.product_id if chosen is not None else int(candidates[0][1]["id"])] = None
            # Pricing only looks at the chosen offer of each line (Line.chosen).
            line = Line(quantity, (chosen,) if chosen is not None else ())
            lines.append(line)
            if is_primary:
                primary_line = line
            if self.summary:
                continue
            products = [
                {**view, "packages": packages(written, written_for, guests, size)} for size, view, _ in candidates
            ]
            ingredients.append(
                {
                    "id": ingredient_id,
                    "name": localized(name, name_en, language),
                    "quantity": quantity_number(quantity),
                    "unit": unit,
                    "display": format_quantity(quantity, unit, language, display_unit),
                    "primary": is_primary,
                    "products": products,
                }
            )
        pricing = None
        available: bool | None
        promoted: bool | None
        if self.has_store:
            available = primary_line is not None and primary_line.chosen is not None
            promoted = is_promoted(lines)
            priced = price_recipe(lines, guests)
            if priced is not None:
                pricing = {
                    "guests": priced.guests,
                    "total": money_number(priced.total),
                    "price_per_guest": money_number(priced.price_per_guest),
                    "currency": priced.currency,
                }
        else:
            available = promoted = None
        detail: RecipeDetail = {
            "id": str(recipe_id),
            "external_id": external_id,
            "title": localized(title, title_en, language),
            "description": localized(description, description_en, language),
            "picture_url": self.pictures.recipe(recipe_id),
            "type": recipe_type,
            "categories": categories,
            "tags": recipe_tags(recipe_type, tag_sources, language),
            "ingredient_pictures": [self.pictures.product(product_id) for product_id in pictured],
            "equipment": equipment,
            "difficulty": difficulty,
            "preparation_time": preparation_time,
            "cooking_time": cooking_time,
            "total_time": preparation_time + cooking_time,
            "guests": guests,
            "steps": [{"position": position, "text": text} for position, text in enumerate(steps, start=1)],
            "ingredients": ingredients,
            "available": available,
            "promoted": promoted,
            "pricing": pricing,
        }
        if self.summary:
            del detail["steps"], detail["ingredients"]
        return detail


def summaries(session: Session, ids: Sequence[int], language: str = DEFAULT_LANGUAGE) -> list[RecipeSummary]:
    """The summaries of the known recipes among ``ids``, in that order, in two queries."""
    keys = list(dict.fromkeys(ids))
    if not keys:
        return []
    found = {
        recipe.id: recipe
        for recipe in session.scalars(select(Recipe).where(Recipe.id.in_(keys), offered()).options(*summary_loading()))
    }
    return [summary(found[key], language) for key in keys if key in found]

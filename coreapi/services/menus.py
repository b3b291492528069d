"""Planner menus: a shopper's recipes for a number of guests, priced at a point of sale, and the
products of those recipes the shopper keeps.

A menu belongs to a shopper, an identity under a supplier (``BasketOwner``), like a basket: the same
identity under two suppliers has two menus, and a shopper has at most one. It is created by its
first read (``current_menu``), empty or filled with the shopper's suggestions, and deleted when it is
finalized: its selected products go into the shopper's basket (``finalize``), and the next read
creates a new one.

Products are not stored, only what the shopper changed (``MenuChoice``): at the menu's store, each
ingredient of a recipe gets the product a basket line would get (its first available one, or the first
available one of the shopper's favorite products: ``pricing.choose``), or the candidate the shopper chose
while it is available there, selected unless the shopper unselected it.
So prices and products follow the store. A menu without a store has neither products nor prices, nor
a budget (the planner without a point of sale). At a store, a menu only holds recipes the completion
filter keeps there: moving it to another store removes the others and says which.

Writes lock the shopper's menu first, as basket writes lock the basket (PostgreSQL:
``SELECT ... FOR UPDATE``; SQLite: a write on the menu table first takes the database's write lock),
flush but never commit (the caller's transaction holds the write, with the outcome of its
idempotency key), and answer the whole menu. Reads and writes cost a fixed number of queries
whatever the number of recipes.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, NamedTuple

from sqlalchemy import ColumnElement, and_, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, selectinload

from coreapi.extensions import Base
from coreapi.models import (
    Menu,
    MenuChoice,
    MenuRecipe,
    Product,
    ProductIngredient,
    Recipe,
    RecipeIngredient,
    Store,
    StoreProduct,
)
from coreapi.services import baskets, favorite_items
from coreapi.services.baskets import BasketOwner
from coreapi.services.catalog import database_id, offered
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.owners import owned_by
from coreapi.services.pricing import CURRENCY, NO_FAVORITES, Line, Offer, Pricing, choose, price_recipe, to_cents
from coreapi.services.quantities import format_size, packages, scale
from coreapi.services.recipes import completed_at
from coreapi.services.text import DEFAULT_LANGUAGE, localized

# Bounds (docs/upstream.md, Menus). The planner shows 6 plate slots, and "+N" past them.
MAX_RECIPES = 20
SUGGESTED_RECIPES = 6
MIN_GUESTS = 1
MAX_GUESTS = 50
DEFAULT_GUESTS = 4
MAX_BUDGET = Decimal(100000)

# INSERT ... ON CONFLICT DO NOTHING, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}
_MENU_LOADING = (selectinload(Menu.recipes).selectinload(MenuRecipe.choices),)


# --- errors --------------------------------------------------------------------------------


class MenuError(Exception):
    """A write the menu refuses; nothing was changed."""


class MenuNotFound(MenuError):
    """Something the request names does not exist (404)."""


class NoMenu(MenuNotFound):
    pass


class UnknownRecipe(MenuNotFound):
    pass


class NotInMenu(MenuNotFound):
    pass


class NotAProduct(MenuNotFound):
    """The product is not one of the recipe's at the menu's store."""


class MenuConflict(MenuError):
    """The menu, as it is, cannot do it (409); ``reason`` says why, for the caller's message."""

    reason: ClassVar[str] = "conflict"


class MenuFull(MenuConflict):
    reason = "menu-full"


class AlreadyInMenu(MenuConflict):
    reason = "already-in-menu"


class NotAtStore(MenuConflict):
    """The recipe's primary ingredient, or the product, is not available at the menu's store."""

    reason = "unavailable-at-store"


class NoStore(MenuConflict):
    """Products, budgets and finalizing need a store."""

    reason = "no-store"


class NothingToFinalize(MenuConflict):
    reason = "empty"


# --- answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProductView:
    """The product of one ingredient of a menu recipe at the menu's store, in packages for the
    recipe's guests; ``price`` is ``unit_price * quantity``."""

    ingredient_id: str
    product_id: int
    name: str
    brand: str | None
    size: str
    quantity: int
    unit_price: Decimal
    price: Decimal
    selected: bool


@dataclass(frozen=True)
class RecipeView:
    """A recipe of a menu; without a store, no pricing and no products."""

    recipe_id: int
    title: str
    type: str
    guests: int
    position: int
    pricing: Pricing | None
    products: list[ProductView]


@dataclass(frozen=True)
class MenuView:
    """A menu; ``total`` (``None`` without a store) sums the prices of the selected products.

    ``removed_recipe_ids``: the recipes this request removed by moving the menu to another store.
    """

    id: int
    store_id: int | None
    guests: int
    budget: Decimal | None
    recipes: list[RecipeView]
    total: Decimal | None
    removed_recipe_ids: list[int] = field(default_factory=list)
    currency: str = CURRENCY

    @property
    def recipe_count(self) -> int:
        return len(self.recipes)


# --- the catalog a menu reads --------------------------------------------------------------


class _Candidate(NamedTuple):
    """A candidate product of an ingredient at the menu's store."""

    product_id: int
    name: str
    brand: str | None
    size: Decimal
    size_unit: str
    offer: Offer


class _Item(NamedTuple):
    ingredient_id: str
    quantity: Decimal  # for the recipe's own guests


class _RecipeRow(NamedTuple):
    id: int
    title: str
    title_en: str | None
    type: str
    guests: int


_RECIPES = select(Recipe.id, Recipe.title, Recipe.title_en, Recipe.type, Recipe.guests).where(
    Recipe.id.in_(bindparam("keys", expanding=True))
)
_ITEMS = (
    select(RecipeIngredient.recipe_id, RecipeIngredient.ingredient_id, RecipeIngredient.quantity)
    .where(RecipeIngredient.recipe_id.in_(bindparam("keys", expanding=True)))
    .order_by(RecipeIngredient.recipe_id, RecipeIngredient.position)
)
_CANDIDATES = (
    select(
        ProductIngredient.ingredient_id,
        Product.id,
        Product.name,
        Product.brand,
        Product.size_value,
        Product.size_unit,
        StoreProduct.price,
        StoreProduct.available,
        StoreProduct.promoted,
    )
    .join(Product, Product.id == ProductIngredient.product_id)
    .outerjoin(
        StoreProduct,
        and_(StoreProduct.store_id == bindparam("store_id"), StoreProduct.product_id == Product.id),
    )
    .where(ProductIngredient.ingredient_id.in_(bindparam("ingredients", expanding=True)))
    .order_by(ProductIngredient.rank, ProductIngredient.product_id)
)


class _Catalog:
    """What a menu's answer needs of its recipes, in four queries: the recipes, their ingredients
    and, at a store, every ingredient's candidates, best ranked first, with their offer there, and the
    favorite products of the menu's shopper."""

    def __init__(self, session: Session, menu: Menu, recipe_ids: Iterable[int]) -> None:
        keys = sorted(set(recipe_ids))
        store_id = menu.store_id
        self.favorites = NO_FAVORITES
        self.recipes: dict[int, _RecipeRow] = {}
        self.items: dict[int, list[_Item]] = defaultdict(list)
        self.candidates: dict[str, list[_Candidate]] = defaultdict(list)
        if not keys:
            return
        for recipe_id, title, title_en, recipe_type, guests in session.execute(_RECIPES, {"keys": keys}).all():
            self.recipes[recipe_id] = _RecipeRow(recipe_id, title, title_en, recipe_type, guests)
        for recipe_id, ingredient_id, quantity in session.execute(_ITEMS, {"keys": keys}).all():
            self.items[recipe_id].append(_Item(ingredient_id, quantity))
        ingredients = sorted({item.ingredient_id for items in self.items.values() for item in items})
        if store_id is None or not ingredients:
            return
        rows = session.execute(_CANDIDATES, {"ingredients": ingredients, "store_id": store_id}).all()
        self.favorites = favorite_items.preferred(
            session, menu.supplier_id, Identity(IdentityKind(menu.identity_kind), menu.identity_id)
        )
        for ingredient_id, product_id, name, brand, size, size_unit, price, available, promoted in rows:
            if available is None:  # the store does not stock it
                offer = Offer(product_id, size, None, available=False, promoted=False)
            else:
                offer = Offer(product_id, size, price, available, promoted)
            self.candidates[ingredient_id].append(_Candidate(product_id, name, brand, size, size_unit, offer))

    def chosen(self, ingredient_id: str, choice: MenuChoice | None) -> _Candidate | None:
        """The ingredient's product at the store: the shopper's choice while it is available
        there, else the product a basket line would get (``pricing.choose``, the shopper's favorites
        first); ``None`` when none is available."""
        candidates = self.candidates.get(ingredient_id, [])
        if choice is not None and choice.product_id is not None:
            for candidate in candidates:
                if candidate.product_id == choice.product_id and candidate.offer.purchasable:
                    return candidate
        offer = choose((candidate.offer for candidate in candidates), self.favorites)
        return next((candidate for candidate in candidates if candidate.offer is offer), None)


def complete_at(session: Session, store_id: int, recipe_ids: Iterable[int]) -> set[int]:
    """The recipes among ``recipe_ids`` the completion filter keeps at the store, in one query."""
    keys = sorted(set(recipe_ids))
    if not keys:
        return set()
    return set(session.scalars(select(Recipe.id).where(Recipe.id.in_(keys), completed_at(store_id, Recipe.id))))


# --- reads ---------------------------------------------------------------------------------


def find_menu(session: Session, owner: BasketOwner) -> Menu | None:
    """The shopper's menu as it is (no creation, no move), with its recipes and choices."""
    return session.scalars(select(Menu).where(*_of(owner)).options(*_MENU_LOADING)).one_or_none()


# How a new menu is filled: ``suggest(store, limit)`` answers recipe ids, in order.
Suggester = Callable[[Store | None, int], list[int]]
# The guests a new menu is for when the request names none: the shopper's preference, or None.
PreferredGuests = Callable[[], int | None]


def current_menu(
    session: Session,
    owner: BasketOwner,
    *,
    store: Store | None = None,
    guests: int | None = None,
    preferred_guests: PreferredGuests | None = None,
    suggester: Suggester | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """The shopper's menu; moved to ``store`` when one is given and differs from the menu's (a
    write: recipes the completion filter rejects there are removed). When the shopper has none, it is
    created at ``store`` for ``guests``, else for what ``preferred_guests`` answers, else for
    ``DEFAULT_GUESTS``: with ``suggester``, filled with up to ``SUGGESTED_RECIPES`` of its recipes
    (each for the menu's guests), else empty."""
    menu = find_menu(session, owner)
    if menu is not None and (store is None or menu.store_id == store.id):
        return _view(session, menu, language)
    menu = _lock(session, owner)
    removed: list[int] = []
    if menu is None:
        # A concurrent first read may create it too: one insert wins, the other does nothing.
        if guests is None:
            guests = (preferred_guests() if preferred_guests is not None else None) or DEFAULT_GUESTS
        created = _insert(session, owner, store, guests)
        menu = _lock(session, owner)
        assert menu is not None
        if created and suggester is not None:
            for recipe_id in suggester(store, SUGGESTED_RECIPES):
                menu.recipes.append(MenuRecipe(recipe_id=recipe_id, guests=menu.guests, position=_next_position(menu)))
    elif store is not None and menu.store_id != store.id:
        removed = _move(session, menu, store)
        _touch(menu)
    session.flush()
    return _view(session, menu, language, removed)


# --- writes --------------------------------------------------------------------------------


_UNSET: Any = object()


def update_menu(
    session: Session,
    owner: BasketOwner,
    *,
    store: Store | None = _UNSET,
    guests: int | None = None,
    budget: Decimal | None = _UNSET,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """Change what is given, in this order: the store (``None``: no store, which clears the budget;
    recipes the completion filter rejects at a new store are removed), the guests (the menu's and
    every recipe's), the budget (``None`` clears it; a budget needs a store)."""

    def apply(menu: Menu) -> list[int]:
        removed: list[int] = []
        if store is not _UNSET:
            removed = _move(session, menu, store)
        if guests is not None:
            menu.guests = guests
            for entry in menu.recipes:
                entry.guests = guests
        if budget is not _UNSET:
            if budget is not None and menu.store_id is None:
                raise NoStore("A budget needs a store: set the menu's store first.")
            menu.budget = budget
        return removed

    return _write(session, owner, language, apply)


def add_recipe(
    session: Session,
    owner: BasketOwner,
    recipe_id: str,
    guests: int | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """Add a recipe after the others, for ``guests`` (the menu's by default), its products the
    default ones. A recipe already in the menu stays where it is, re-scaled to ``guests`` when
    given."""
    key = _find_recipe(session, recipe_id)

    def apply(menu: Menu) -> None:
        entry = _entry_of(menu, key)
        if entry is not None:
            if guests is not None:
                entry.guests = guests
            return
        if len(menu.recipes) >= MAX_RECIPES:
            raise MenuFull(f"A menu holds at most {MAX_RECIPES} recipes.")
        _check_at_store(session, menu, key)
        menu.recipes.append(MenuRecipe(recipe_id=key, guests=guests or menu.guests, position=_next_position(menu)))

    return _write(session, owner, language, apply)


def rescale_recipe(
    session: Session, owner: BasketOwner, recipe_id: str, guests: int, language: str = DEFAULT_LANGUAGE
) -> MenuView:
    """Set a recipe's guests (its products' quantities follow)."""

    def apply(menu: Menu) -> None:
        _entry_in(menu, recipe_id).guests = guests

    return _write(session, owner, language, apply)


def remove_recipe(session: Session, owner: BasketOwner, recipe_id: str, language: str = DEFAULT_LANGUAGE) -> MenuView:
    """Remove a recipe (the others keep their order)."""

    def apply(menu: Menu) -> None:
        menu.recipes.remove(_entry_in(menu, recipe_id))

    return _write(session, owner, language, apply)


def swap_recipe(
    session: Session,
    owner: BasketOwner,
    recipe_id: str,
    new_recipe_id: str,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """Replace a recipe with another at its position, for the same guests, with the new recipe's
    default products. Swapping a recipe with itself changes nothing."""
    new_key = _find_recipe(session, new_recipe_id)

    def apply(menu: Menu) -> None:
        entry = _entry_in(menu, recipe_id)
        if entry.recipe_id == new_key:
            return
        if _entry_of(menu, new_key) is not None:
            raise AlreadyInMenu(f"Recipe {new_recipe_id!r} is already in the menu.")
        _check_at_store(session, menu, new_key)
        entry.choices.clear()
        entry.recipe_id = new_key

    return _write(session, owner, language, apply)


def select_product(
    session: Session,
    owner: BasketOwner,
    recipe_id: str,
    product_id: str,
    selected: bool,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """Select or unselect a product of a recipe at the menu's store (every ingredient of the recipe
    that has it as its product).

    Selecting a candidate that is not an ingredient's product yet makes it that ingredient's product
    (for every ingredient it can stand for), selected; it must be available at the store. The
    products of a menu without a store cannot be chosen (``NoStore``)."""
    product_key = database_id(product_id)

    def apply(menu: Menu) -> None:
        entry = _entry_in(menu, recipe_id)
        if menu.store_id is None:
            raise NoStore("The menu has no store: its recipes have no products until it has one.")
        catalog = _Catalog(session, menu, [entry.recipe_id])
        choices = {choice.ingredient_id: choice for choice in entry.choices}
        items = catalog.items[entry.recipe_id]
        current = [
            item.ingredient_id
            for item in items
            if (chosen := catalog.chosen(item.ingredient_id, choices.get(item.ingredient_id))) is not None
            and chosen.product_id == product_key
        ]
        if current:
            for ingredient_id in current:
                _choose(entry, choices, ingredient_id, selected=selected)
            return
        candidate_of = [
            (item.ingredient_id, candidate)
            for item in items
            for candidate in catalog.candidates.get(item.ingredient_id, [])
            if candidate.product_id == product_key
        ]
        if not selected or not candidate_of:
            raise NotAProduct(f"Product {product_id!r} is not a product of recipe {recipe_id!r} at the menu's store.")
        if not candidate_of[0][1].offer.purchasable:
            raise NotAtStore(f"Product {product_id!r} is not available at the menu's store.")
        for ingredient_id, _ in candidate_of:
            _choose(entry, choices, ingredient_id, selected=True, product_id=product_key)

    return _write(session, owner, language, apply)


def merge_authless(
    session: Session,
    user: BasketOwner,
    authless_id: str,
    store: Store | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> MenuView:
    """Give the menu of the logged-out visitor ``authless_id`` (under the user's supplier) to the
    connected user: it replaces the user's menu, if any (no merge of their recipes), and the visitor
    has none afterwards. Without a visitor's menu, the user's stays as it is; with neither,
    ``NoMenu``. Then moved to ``store`` when given (as ``current_menu`` does).

    coreapi cannot tell who holds ``authless_id``: its caller vouches for it (as for baskets)."""
    authless = BasketOwner(user.supplier_id, Identity(IdentityKind.AUTHLESS, authless_id))
    # Always the visitor's menu first, then the user's: no two writers wait on each other.
    source = _lock(session, authless)
    target = _lock(session, user)
    if source is None:
        if target is None:
            raise NoMenu("Neither the user nor the logged-out visitor has a menu.")
        menu = target
    else:
        if target is not None:
            session.delete(target)
            session.flush()  # the user's menu goes before the visitor's takes its owner
        source.identity_kind = user.identity.kind.value
        source.identity_id = user.identity.value
        menu = source
    removed = _move(session, menu, store) if store is not None and store.id != menu.store_id else []
    _touch(menu)
    session.flush()
    return _view(session, menu, language, removed)


def finalize(session: Session, owner: BasketOwner, language: str = DEFAULT_LANGUAGE) -> baskets.BasketUpdate:
    """Move the menu's selected products into the shopper's basket at the menu's store, then delete
    the menu (the next read creates a new one).

    Each recipe with a selected product becomes a basket entry for the recipe's guests with one line
    per selected product, in packages for those guests (``baskets.put_recipes``: a recipe the basket
    already holds takes the menu's guests and products); recipes without any selected product are
    left out. A menu without a store is ``NoStore``, one without a selected product
    ``NothingToFinalize``; both change nothing."""
    menu = _lock(session, owner)
    if menu is None:
        raise NoMenu("The shopper has no menu.")
    if menu.store_id is None:
        raise NoStore("The menu has no store: choose a point of sale before finalizing it.")
    store = session.get(Store, menu.store_id)
    assert store is not None
    catalog = _Catalog(session, menu, (entry.recipe_id for entry in menu.recipes))
    moving = []
    for entry in _ordered(menu):
        choices = {choice.ingredient_id: choice for choice in entry.choices}
        products = {}
        for item in catalog.items[entry.recipe_id]:
            choice = choices.get(item.ingredient_id)
            chosen = catalog.chosen(item.ingredient_id, choice)
            if chosen is not None and (choice is None or choice.selected):
                products[item.ingredient_id] = chosen.product_id
        if products:
            moving.append(baskets.RecipeProducts(entry.recipe_id, entry.guests, products))
    if not moving:
        raise NothingToFinalize("The menu has no selected product to move into the basket.")
    update_ = baskets.put_recipes(session, owner, store, moving, language)
    session.delete(menu)
    session.flush()
    return update_


# --- the write transaction -----------------------------------------------------------------


def _write(session: Session, owner: BasketOwner, language: str, apply: Callable[[Menu], list[int] | None]) -> MenuView:
    """Run ``apply`` on the shopper's locked menu (``NoMenu`` when it has none: a read creates it)
    and flush (the caller commits, or rolls back when anything fails)."""
    menu = _lock(session, owner)
    if menu is None:
        raise NoMenu("The shopper has no menu: GET /menus/current creates it.")
    removed = apply(menu) or []
    _touch(menu)
    session.flush()
    return _view(session, menu, language, removed)


def _of(owner: BasketOwner) -> list[ColumnElement[bool]]:
    return owned_by(Menu, owner.supplier_id, owner.identity)


def _lock(session: Session, owner: BasketOwner) -> Menu | None:
    """The shopper's menu, locked for this transaction (see the module's doc)."""
    if session.get_bind().dialect.name == "sqlite":
        # pysqlite opens the transaction at its first write: writing first takes SQLite's write
        # lock now (waiting for a concurrent writer to finish), so what follows reads fresh rows.
        session.execute(
            update(Menu)
            .where(*_of(owner))
            .values(updated_at=Menu.updated_at)
            .execution_options(synchronize_session=False)
        )
    return session.scalars(
        select(Menu)
        .where(*_of(owner))
        .options(*_MENU_LOADING)
        .with_for_update(of=Menu)
        .execution_options(populate_existing=True)
    ).one_or_none()


def _insert(session: Session, owner: BasketOwner, store: Store | None, guests: int) -> bool:
    """Insert the shopper's menu unless it has one; whether this call inserted it."""
    now = dt.datetime.now(dt.UTC)
    statement = (
        _INSERTS[session.get_bind().dialect.name](Menu)
        .values(
            supplier_id=owner.supplier_id,
            identity_kind=owner.identity.kind.value,
            identity_id=owner.identity.value,
            store_id=store.id if store is not None else None,
            guests=guests,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing()
        .returning(Menu.id)
    )
    return session.execute(statement).first() is not None


def _touch(menu: Menu) -> None:
    menu.updated_at = dt.datetime.now(dt.UTC)


def _move(session: Session, menu: Menu, store: Store | None) -> list[int]:
    """Move the menu to ``store`` (``None``: no store, and no budget); at a new store, remove the
    recipes the completion filter rejects there. The removed recipes' ids, in menu order."""
    if store is None:
        menu.store_id = None
        menu.budget = None
        return []
    if menu.store_id == store.id:
        return []
    kept = complete_at(session, store.id, (entry.recipe_id for entry in menu.recipes))
    removed = [entry for entry in _ordered(menu) if entry.recipe_id not in kept]
    for entry in removed:
        menu.recipes.remove(entry)
    menu.store_id = store.id
    return [entry.recipe_id for entry in removed]


def _find_recipe(session: Session, recipe_id: str) -> int:
    key = database_id(recipe_id)
    found = session.scalar(select(Recipe.id).where(Recipe.id == key, offered())) if key is not None else None
    if found is None:
        raise UnknownRecipe(f"No recipe {recipe_id!r}.")
    return found


def _check_at_store(session: Session, menu: Menu, recipe_id: int) -> None:
    if menu.store_id is not None and recipe_id not in complete_at(session, menu.store_id, [recipe_id]):
        raise NotAtStore(f"Recipe {str(recipe_id)!r} is not available at the menu's store (completion filter).")


def _ordered(menu: Menu) -> list[MenuRecipe]:
    return sorted(menu.recipes, key=lambda entry: (entry.position, entry.id or 0))


def _entry_of(menu: Menu, recipe_id: int | None) -> MenuRecipe | None:
    return next((entry for entry in menu.recipes if entry.recipe_id == recipe_id), None)


def _entry_in(menu: Menu, recipe_id: str) -> MenuRecipe:
    entry = _entry_of(menu, database_id(recipe_id))
    if entry is None:
        raise NotInMenu(f"Recipe {recipe_id!r} is not in the menu.")
    return entry


def _next_position(menu: Menu) -> int:
    return max((entry.position for entry in menu.recipes), default=0) + 1


def _choose(
    entry: MenuRecipe,
    choices: dict[str, MenuChoice],
    ingredient_id: str,
    *,
    selected: bool,
    product_id: int | None = _UNSET,
) -> None:
    """Record the shopper's choice for an ingredient; no row when it is the default (the product a basket
    line would get, selected)."""
    choice = choices.get(ingredient_id)
    if choice is None:
        choice = MenuChoice(ingredient_id=ingredient_id, product_id=None, selected=True)
        entry.choices.append(choice)
        choices[ingredient_id] = choice
    if product_id is not _UNSET:
        choice.product_id = product_id
    choice.selected = selected
    if choice.product_id is None and choice.selected:
        entry.choices.remove(choice)
        del choices[ingredient_id]


# --- the answer ----------------------------------------------------------------------------


def _view(session: Session, menu: Menu, language: str, removed: Sequence[int] = ()) -> MenuView:
    """The whole menu priced at its store, in four queries (``_Catalog``) whatever its size."""
    entries = _ordered(menu)
    store_id = menu.store_id
    catalog = _Catalog(session, menu, (entry.recipe_id for entry in entries))
    recipes = []
    total = Decimal(0)
    for position, entry in enumerate(entries, start=1):
        recipe = catalog.recipes[entry.recipe_id]
        products: list[ProductView] = []
        pricing: Pricing | None = None
        if store_id is not None:
            choices = {choice.ingredient_id: choice for choice in entry.choices}
            lines = []
            for item in catalog.items[entry.recipe_id]:
                choice = choices.get(item.ingredient_id)
                chosen = catalog.chosen(item.ingredient_id, choice)
                lines.append(Line(scale(item.quantity, recipe.guests, entry.guests), (chosen.offer,) if chosen else ()))
                if chosen is None or chosen.offer.price is None:
                    continue
                quantity = packages(item.quantity, recipe.guests, entry.guests, chosen.size)
                product = ProductView(
                    ingredient_id=item.ingredient_id,
                    product_id=chosen.product_id,
                    name=chosen.name,
                    brand=chosen.brand,
                    size=format_size(chosen.size, chosen.size_unit, language),
                    quantity=quantity,
                    unit_price=chosen.offer.price,
                    price=to_cents(chosen.offer.price * quantity),
                    selected=choice is None or choice.selected,
                )
                products.append(product)
                if product.selected:
                    total += product.price
            pricing = price_recipe(lines, entry.guests)
        recipes.append(
            RecipeView(
                recipe_id=recipe.id,
                title=localized(recipe.title, recipe.title_en, language),
                type=recipe.type,
                guests=entry.guests,
                position=position,
                pricing=pricing,
                products=products,
            )
        )
    return MenuView(
        id=menu.id,
        store_id=store_id,
        guests=menu.guests,
        budget=menu.budget,
        recipes=recipes,
        total=total if store_id is not None else None,
        removed_recipe_ids=list(removed),
    )

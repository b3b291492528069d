"""Baskets: recipe entries, the product line of each ingredient, the retailer cart's view of them.

A basket belongs to a shopper: an identity under the supplier it shops with (``BasketOwner``), as
likes do: the same identity under two suppliers is two shoppers. A shopper has one open basket at
a time. Every write works on that basket locked first, so that concurrent writes to one basket are
serialised: ``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite, whose driver begins a transaction
only at its first write, a write on the basket table comes first and takes the database's write
lock before anything is read. The writes flush but never commit: the caller's transaction holds
the write (``coreapi.blueprints.baskets`` commits it with the outcome of its idempotency key, or
rolls it back), so a failed write changes nothing. Each write answers the basket and the
``changes`` the retailer cart must make to follow it: per product, the difference of the
quantities before and after. ``move_entries`` moves one shopper's entries into another's basket: the
merge of a logged-out visitor's basket, and basket transfers (``coreapi.services.transfers``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.sql.base import ExecutableOption

from coreapi.extensions import Base
from coreapi.models import (
    Basket,
    BasketEntry,
    BasketLine,
    Ingredient,
    Product,
    ProductIngredient,
    Recipe,
    RecipeIngredient,
    Store,
    StoreProduct,
)
from coreapi.services import cart_waits, favorite_items
from coreapi.services.catalog import database_id, load_offers, make_offer, offered
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.owners import owned_by
from coreapi.services.pricing import CURRENCY, Line, to_cents
from coreapi.services.quantities import format_size, packages
from coreapi.services.text import DEFAULT_LANGUAGE, localized

OPEN = "open"
CONFIRMED = "confirmed"

# INSERT ... ON CONFLICT DO NOTHING, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}

# What the answers and the writes read of a basket, in a fixed number of queries.
_BASKET_LOADING = (
    selectinload(Basket.entries).selectinload(BasketEntry.lines).selectinload(BasketLine.product),
    selectinload(Basket.entries).selectinload(BasketEntry.recipe).selectinload(Recipe.ingredients),
)
# What adding a recipe reads: every ingredient's candidate products, best ranked first.
_RECIPE_LOADING = (
    selectinload(Recipe.ingredients)
    .selectinload(RecipeIngredient.ingredient)
    .selectinload(Ingredient.product_links)
    .selectinload(ProductIngredient.product),
)


# --- errors --------------------------------------------------------------------------------


class BasketError(Exception):
    """A write the basket refuses; nothing was changed."""


class UnknownRecipe(BasketError):
    pass


class NotInBasket(BasketError):
    pass


class UnknownIngredient(BasketError):
    """The ingredient is not one of the recipe's."""


class NotACandidate(BasketError):
    """The product cannot stand for the ingredient."""


class BadChoice(BasketError):
    """A shopper's choice sent with a recipe names an ingredient or a product that cannot be: ``field`` is
    the body's field at fault (``lines.<index>.ingredient_id`` or ``lines.<index>.product_id``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class TotalMismatch(BasketError):
    """A confirmation whose total does not cover the basket's (by more than ``TOTAL_TOLERANCE``)."""

    def __init__(self, expected: Decimal) -> None:
        super().__init__(
            f"The total paid does not cover the basket's: {expected:.2f} {CURRENCY} at this store. "
            "Nothing was confirmed."
        )
        self.expected = expected


# How far below the basket's total the total paid may be (rounding on the retailer's side). It may be any
# amount above: the retailer's cart, whose total it is, also holds products of no recipe.
TOTAL_TOLERANCE = Decimal("0.01")


# --- whose basket --------------------------------------------------------------------------


@dataclass(frozen=True)
class BasketOwner:
    """A shopper: an identity under the supplier it shops with (ids are the supplier's own)."""

    supplier_id: int
    identity: Identity


# --- answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProductQuantity:
    """A product and a number of packages (a quantity held, or a change: negative removes)."""

    id: int
    quantity: int


@dataclass(frozen=True)
class LineView:
    """An ingredient's product at the store; unit price and price are ``None`` when unavailable."""

    ingredient_id: str
    product_id: int
    quantity: int
    name: str
    brand: str | None
    size: str
    unit_price: Decimal | None
    price: Decimal | None
    available: bool


@dataclass(frozen=True)
class EntryView:
    recipe_id: int
    guests: int
    title: str
    lines: list[LineView]


@dataclass(frozen=True)
class BasketView:
    """A basket priced at a store; ``total`` sums the prices of the available lines. ``store_id`` is
    ``None`` only for a shopper without basket asked without a store (``get_basket``)."""

    store_id: int | None
    recipes: list[EntryView]
    products: list[ProductQuantity]
    total: Decimal
    currency: str = CURRENCY

    @property
    def recipe_count(self) -> int:
        return len(self.recipes)


@dataclass(frozen=True)
class BasketUpdate:
    basket: BasketView
    changes: list[ProductQuantity]


@dataclass(frozen=True)
class Moved:
    """Entries moved from a shopper's basket into another's: the target's update, how many moved."""

    update: BasketUpdate
    recipe_count: int


@dataclass(frozen=True)
class Held:
    """What a shopper's open basket holds: its recipes (entries), and its products' packages."""

    recipe_count: int
    packages: int


@dataclass(frozen=True)
class Confirmation:
    """Confirmed with the basket's id, or not with the reason: ``empty``, ``already-confirmed``."""

    confirmed: bool
    basket_id: int | None = None
    reason: str | None = None


# --- reads ---------------------------------------------------------------------------------


def get_basket(
    session: Session, owner: BasketOwner, store: Store | None, language: str = DEFAULT_LANGUAGE
) -> BasketView:
    """The shopper's open basket at ``store`` (moved there first: a write, for the caller to
    commit); empty when it has none. Without ``store``: at its own store, not moved (a read only);
    empty and at no store when the shopper has none."""
    basket = session.scalars(select(Basket).where(*_open_basket_of(owner)).options(*_BASKET_LOADING)).one_or_none()
    if store is None:
        if basket is None:
            return _no_basket()
        return _view(session, basket, session.get_one(Store, basket.store_id), language)
    if basket is not None and basket.store_id != store.id:
        return _write(session, owner, store, language, lambda basket: None).basket
    return _view(session, basket, store, language)


# --- writes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """The shopper's choice for one ingredient of a recipe being added: its product and packages (``None``:
    as many as the recipe needs for the guests; 0: the ingredient is left out)."""

    ingredient_id: str
    product_id: str
    quantity: int | None = None


def add_recipe(
    session: Session,
    owner: BasketOwner,
    store: Store,
    recipe_id: str,
    guests: int,
    language: str = DEFAULT_LANGUAGE,
    choices: Sequence[Choice] = (),
) -> BasketUpdate:
    """Add a recipe for ``guests``: each ingredient's product at the store (``Line.chosen``: its first
    available one, or the first available one of the shopper's favorite products), as many packages as the
    recipe needs. A recipe already in the basket is re-scaled instead (its lines keep their products).
    Then, in the same write, each of ``choices`` sets its ingredient's line (0 packages removes it): all of
    them are checked before anything changes (``BadChoice``)."""
    recipe = _find_recipe(session, recipe_id, _RECIPE_LOADING)
    chosen_lines = _checked_choices(recipe, choices)
    favorites = favorite_items.preferred(session, owner.supplier_id, owner.identity)
    offers = load_offers(
        session,
        store,
        (link.product_id for item in recipe.ingredients for link in item.ingredient.product_links),
    )

    def add(basket: Basket) -> BasketEntry:
        entry = _entry_of(basket, recipe.id)
        if entry is not None:
            _rescale(entry, guests)
            return entry
        entry = _new_entry(basket, recipe, guests)
        for item in recipe.ingredients:
            candidates = [link.product for link in item.ingredient.product_links]
            line = Line(item.quantity, [make_offer(p, offers.get(p.id)) for p in candidates], favorites)
            chosen = line.chosen
            if chosen is None:
                continue  # nothing to buy for it at this store
            product = next(p for p in candidates if p.id == chosen.product_id)
            entry.lines.append(
                BasketLine(
                    ingredient_id=item.ingredient_id,
                    product=product,
                    quantity=packages(item.quantity, recipe.guests, guests, product.size_value),
                )
            )
        return entry

    def apply(basket: Basket) -> None:
        entry = add(basket)
        for ingredient_id, (product, quantity) in chosen_lines.items():
            line = _line_of(entry, ingredient_id)
            if quantity is None:
                needed = next(i.quantity for i in recipe.ingredients if i.ingredient_id == ingredient_id)
                quantity = packages(needed, recipe.guests, guests, product.size_value)
            if quantity == 0:
                if line is not None:
                    entry.lines.remove(line)  # the entry stays, as an entry added without lines does
            elif line is None:
                entry.lines.append(BasketLine(ingredient_id=ingredient_id, product=product, quantity=quantity))
            else:
                line.product = product
                line.quantity = quantity

    return _write(session, owner, store, language, apply)


def _checked_choices(recipe: Recipe, choices: Sequence[Choice]) -> dict[str, tuple[Product, int | None]]:
    """Each choice's ingredient (one of the recipe's) and product (one of its candidates), by ingredient."""
    checked: dict[str, tuple[Product, int | None]] = {}
    items = {item.ingredient_id: item for item in recipe.ingredients}
    for index, choice in enumerate(choices):
        item = items.get(choice.ingredient_id)
        if item is None:
            raise BadChoice(
                f"lines.{index}.ingredient_id",
                f"Recipe {str(recipe.id)!r} has no ingredient {choice.ingredient_id!r}.",
            )
        key = database_id(choice.product_id)
        product = next((link.product for link in item.ingredient.product_links if link.product_id == key), None)
        if product is None:
            raise BadChoice(
                f"lines.{index}.product_id",
                f"Product {choice.product_id!r} cannot stand for {choice.ingredient_id!r}.",
            )
        checked[choice.ingredient_id] = (product, choice.quantity)
    return checked


def rescale_recipe(
    session: Session,
    owner: BasketOwner,
    store: Store,
    recipe_id: str,
    guests: int,
    language: str = DEFAULT_LANGUAGE,
) -> BasketUpdate:
    """Re-scale a recipe's lines to ``guests``, keeping their products."""
    recipe = _find_recipe(session, recipe_id)

    def apply(basket: Basket) -> None:
        _rescale(_entry_in(basket, recipe), guests)

    return _write(session, owner, store, language, apply)


def remove_recipe(
    session: Session,
    owner: BasketOwner,
    store: Store,
    recipe_id: str,
    language: str = DEFAULT_LANGUAGE,
) -> BasketUpdate:
    """Remove a recipe and its lines."""
    recipe = _find_recipe(session, recipe_id)

    def apply(basket: Basket) -> None:
        basket.entries.remove(_entry_in(basket, recipe))

    return _write(session, owner, store, language, apply)


def set_ingredient(
    session: Session,
    owner: BasketOwner,
    store: Store,
    recipe_id: str,
    ingredient_id: str,
    product_id: str,
    quantity: int,
    language: str = DEFAULT_LANGUAGE,
    *,
    guests: int | None = None,
) -> BasketUpdate:
    """Set the line of one ingredient of a recipe: product and number of packages.

    ``quantity`` 0 removes the line, and the entry with it when that was its last line (on a
    recipe not in the basket it changes nothing). Otherwise the line gets this product, one of
    the ingredient's candidates, and this quantity; a recipe not in the basket yet is added
    (for ``guests``, else its own number of guests) with this line only. An entry the basket
    holds keeps its guests.
    """
    recipe = _find_recipe(session, recipe_id, _RECIPE_LOADING)
    item = next((i for i in recipe.ingredients if i.ingredient_id == ingredient_id), None)
    if item is None:
        raise UnknownIngredient(f"Recipe {recipe_id!r} has no ingredient {ingredient_id!r}.")
    key = database_id(product_id)
    product = next((link.product for link in item.ingredient.product_links if link.product_id == key), None)
    if product is None:
        raise NotACandidate(f"Product {product_id!r} cannot stand for {ingredient_id!r}.")

    def apply(basket: Basket) -> None:
        entry = _entry_of(basket, recipe.id)
        line = _line_of(entry, ingredient_id) if entry is not None else None
        if quantity == 0:
            if entry is not None and line is not None:
                entry.lines.remove(line)
                if not entry.lines:
                    basket.entries.remove(entry)
            return
        if entry is None:
            entry = _new_entry(basket, recipe, guests or recipe.guests)
        if line is None:
            entry.lines.append(BasketLine(ingredient_id=ingredient_id, product=product, quantity=quantity))
        else:
            line.product = product
            line.quantity = quantity

    return _write(session, owner, store, language, apply)


@dataclass(frozen=True)
class RecipeProducts:
    """A recipe for a number of guests with the product each kept ingredient gets (ingredient id ->
    product id; the product must be one of the ingredient's candidates)."""

    recipe_id: int
    guests: int
    products: Mapping[str, int]


def put_recipes(
    session: Session,
    owner: BasketOwner,
    store: Store,
    recipes: Sequence[RecipeProducts],
    language: str = DEFAULT_LANGUAGE,
) -> BasketUpdate:
    """Put recipes in the basket with the given products (a finalized menu): per recipe, one line
    per listed ingredient with ``ceil(needed / size)`` packages of its product for ``guests``, as
    ``add_recipe`` makes them. A recipe the basket already holds gets these guests and lines instead
    of its own (its lines of other ingredients are removed) and keeps its place; the others are
    added after the basket's entries, in the order given. In a fixed number of queries."""
    keys = [item.recipe_id for item in recipes]
    found = {
        recipe.id: recipe
        for recipe in session.scalars(select(Recipe).where(Recipe.id.in_(keys), offered()).options(*_RECIPE_LOADING))
    }
    for key in keys:
        if key not in found:
            raise UnknownRecipe(f"No recipe {str(key)!r}.")

    def apply(basket: Basket) -> None:
        for item in recipes:
            recipe = found[item.recipe_id]
            entry = _entry_of(basket, recipe.id)
            if entry is None:
                entry = _new_entry(basket, recipe, item.guests)
            entry.guests = item.guests
            wanted: dict[str, tuple[Product, int]] = {}
            for ingredient in recipe.ingredients:
                product_id = item.products.get(ingredient.ingredient_id)
                if product_id is None:
                    continue
                product = next(
                    (link.product for link in ingredient.ingredient.product_links if link.product_id == product_id),
                    None,
                )
                if product is None:
                    raise NotACandidate(f"Product {str(product_id)!r} cannot stand for {ingredient.ingredient_id!r}.")
                quantity = packages(ingredient.quantity, recipe.guests, item.guests, product.size_value)
                wanted[ingredient.ingredient_id] = (product, quantity)
            # Lines are changed in place (their key is the entry and the ingredient): no line is
            # deleted and inserted again in one flush.
            for line in list(entry.lines):
                if line.ingredient_id not in wanted:
                    entry.lines.remove(line)
            for ingredient_id, (product, quantity) in wanted.items():
                kept = _line_of(entry, ingredient_id)
                if kept is None:
                    entry.lines.append(BasketLine(ingredient_id=ingredient_id, product=product, quantity=quantity))
                else:
                    kept.product = product
                    kept.quantity = quantity

    return _write(session, owner, store, language, apply)


def reconcile(
    session: Session,
    owner: BasketOwner,
    store: Store,
    cart: Iterable[tuple[str, int]],
    language: str = DEFAULT_LANGUAGE,
    report: cart_waits.Report | None = None,
) -> BasketUpdate:
    """Follow the retailer cart ``(product id, quantity)``: every product the basket holds more of
    than the cart is reduced to the cart's quantity (none when absent), from the most recently
    added entries first; entries this leaves without lines are removed. What the basket's writes
    asked the cart to add for a recipe less than ``cart_waits.CATCH_UP`` ago, and no cart showed
    yet, is left to the cart (another page of the shopper may still be handing it over); so is,
    for a cart its browser ``report``ed before another of its carts that showed them, what that
    one showed of it (the two reconciles crossed on their way). ``changes`` is empty: the cart
    already is that way. A shopper without an open basket has nothing to follow: its empty basket is answered
    and no row is made (every visitor's first page reconciles its cart)."""
    in_cart = _cart_quantities(cart)
    now = dt.datetime.now(dt.UTC)

    def apply(basket: Basket) -> None:
        _follow_cart(basket, in_cart, cart_waits.kept(basket, now, report))
        cart_waits.settle(basket, in_cart, now, report)

    return _write(session, owner, store, language, apply, cart_follows=False, creates=False)


def _cart_quantities(cart: Iterable[tuple[str, int]]) -> Counter[int]:
    """The retailer cart's quantity of each product the basket may hold (other ids are no product of ours)."""
    in_cart: Counter[int] = Counter()
    for product_id, quantity in cart:
        key = database_id(product_id)
        if key is not None:  # not a product id: not one the basket holds
            in_cart[key] += quantity
    return in_cart


def _follow_cart(basket: Basket, in_cart: Counter[int], kept: Mapping[cart_waits.Key, int] | None = None) -> None:
    """Reduce every product the basket holds more of than the cart (and the ``kept`` packages its recipes await)
    to that quantity, newest entries first, never a recipe's kept packages; entries left without lines are
    removed."""
    protected = Counter(kept or {})
    shown = Counter(in_cart)
    for (_, product_id), quantity in protected.items():
        shown[product_id] += quantity
    excess = {
        product_id: held - shown[product_id]
        for product_id, held in _product_quantities(basket).items()
        if held > shown[product_id]
    }
    for entry in sorted(basket.entries, key=lambda entry: entry.position, reverse=True):
        had_lines = bool(entry.lines)
        for line in reversed(_ordered_lines(entry)):
            key = (entry.recipe.id, line.product.id)
            awaited = min(protected[key], line.quantity)
            protected[key] -= awaited
            taken = min(excess.get(line.product.id, 0), line.quantity - awaited)
            if taken == 0:
                continue
            excess[line.product.id] -= taken
            line.quantity -= taken
            if line.quantity == 0:
                entry.lines.remove(line)
        if had_lines and not entry.lines:
            basket.entries.remove(entry)


def confirm(
    session: Session,
    owner: BasketOwner,
    store: Store,
    total: Decimal,
    order_id: str | None,
    cart: Iterable[tuple[str, int]] | None = None,
) -> Confirmation:
    """The user paid ``total``: store the basket as confirmed (the shopper starts an empty one).

    With the paid retailer ``cart``, the basket first follows it, as ``reconcile`` does, in the same
    transaction and after the order check: what is confirmed is what was paid, and a repeated call for a
    confirmed order touches no basket.

    The stored total is the basket's own at ``store``, computed as ``GET /basket`` computes it;
    ``total``, what the retailer says the user paid for the whole cart, only checks it: less than the
    basket's by more than ``TOTAL_TOLERANCE`` is ``TotalMismatch`` and nothing is confirmed. An ``order_id`` the
    shopper already confirmed changes nothing, so repeated calls never confirm twice; a basket
    without products is not confirmed, nor is a ``cart`` without a line of a positive quantity, which is not
    followed either (all answered before the total is checked).
    """
    basket = _lock_open_basket(session, owner)
    if order_id is not None and _order_confirmed(session, owner, order_id):
        return Confirmation(False, reason="already-confirmed")
    if cart is not None:
        paid = list(cart)
        if not any(quantity > 0 for _, quantity in paid):
            # Nothing paid is no cart to follow: the caller had none at hand (a confirmation page whose cart was
            # already emptied). Following it would take every recipe out of the basket for a payment of nothing.
            return Confirmation(False, reason="empty")
        if basket is not None:
            _follow_cart(basket, _cart_quantities(paid))
            session.flush()
    if basket is None or not _product_quantities(basket):
        return Confirmation(False, reason="empty")
    expected = _view(session, basket, store, DEFAULT_LANGUAGE).total
    if to_cents(total) < expected - TOTAL_TOLERANCE:
        raise TotalMismatch(expected)
    basket.status = CONFIRMED
    cart_waits.forget(basket)
    basket.store_id = store.id
    basket.total = expected
    basket.order_id = order_id
    basket.confirmed_at = dt.datetime.now(dt.UTC)
    session.flush()
    return Confirmation(True, basket_id=basket.id)


def merge_authless(
    session: Session,
    user: BasketOwner,
    authless_id: str,
    store: Store | None,
    language: str = DEFAULT_LANGUAGE,
) -> BasketUpdate:
    """Move a logged-out visitor's entries into the connected user's basket, and empty the
    visitor's: the visitor's basket under the user's supplier only (``move_entries``). A recipe
    both baskets hold keeps the visitor's entry. ``changes`` are those of the user's basket.

    Without ``store`` (a login before any store was chosen), the basket goes where the shopper was shopping
    (``_merge_store``); with no basket on either side nothing is created and the answer is the empty basket at no
    store, as ``get_basket`` answers it.

    coreapi cannot tell who holds ``authless_id``: its caller (prerender) vouches for it, having
    checked the browser's proof of that identity before calling. The visitor's favorite products join the
    user's too (``favorite_items.merge_authless``), and so do its confirmed baskets (``move_history``); the route
    moves its preferences as well (``preferences.merge_authless``, coreapi/blueprints/baskets.py)."""
    authless = BasketOwner(user.supplier_id, Identity(IdentityKind.AUTHLESS, authless_id))
    if store is None:
        store = _merge_store(session, authless, user)
    moved = (
        move_entries(session, authless, user, store, language).update
        if store is not None
        else BasketUpdate(_no_basket(), [])
    )
    favorite_items.merge_authless(session, user.supplier_id, user.identity, authless_id)
    move_history(session, authless, user)
    return moved


def _merge_store(session: Session, source: BasketOwner, target: BasketOwner) -> Store | None:
    """Where a merge named no store puts the basket: the visitor's store when its basket holds entries (what the
    shopper was just choosing, priced there), else the user's basket's own; a store still open before a closed one
    (``close-store``: a request naming it is refused), a closed one rather than leaving the entries behind; ``None``
    when the user has no basket and the visitor's holds nothing (nothing to move, no basket to create). Locks both
    baskets, the source's first, as ``move_entries`` does."""
    source_basket = _lock_open_basket(session, source)
    target_basket = _lock_open_basket(session, target)
    candidates = [
        basket.store_id
        for basket in (source_basket if source_basket is not None and source_basket.entries else None, target_basket)
        if basket is not None
    ]
    if not candidates:
        return None
    stores = [session.get_one(Store, store_id) for store_id in candidates]
    return next((store for store in stores if store.closed_at is None), stores[0])


def move_history(session: Session, source: BasketOwner, target: BasketOwner) -> None:
    """Give the ``source`` shopper's confirmed baskets (its order history) to ``target``. An order
    ``target`` already has under the same ``order_id`` stays the source's (one shopper holds an order once)."""
    taken = select(Basket.order_id).where(*_of(target), Basket.order_id.is_not(None))
    session.execute(
        update(Basket)
        .where(*_of(source), Basket.status == CONFIRMED, or_(Basket.order_id.is_(None), Basket.order_id.not_in(taken)))
        .values(identity_kind=target.identity.kind.value, identity_id=target.identity.value)
        .execution_options(synchronize_session=False)
    )


def move_entries(
    session: Session,
    source: BasketOwner,
    target: BasketOwner,
    store: Store,
    language: str = DEFAULT_LANGUAGE,
) -> Moved:
    """Move the entries of the ``source`` shopper's open basket, each recipe with its guests and its
    lines, into the ``target`` shopper's (created when missing), moved to ``store``; the source
    basket stays open, empty. A recipe both baskets hold keeps the source's entry; the moved entries
    count as the most recently added, in their order. ``changes`` are those of the target basket.

    Always the source basket locked first, then the target's: no two writers wait on each other."""
    source_basket = _lock_open_basket(session, source)
    target_basket = _lock_open_basket(session, target, create_at=store)
    assert target_basket is not None
    before = _product_quantities(target_basket)
    target_basket.store_id = store.id
    moving = (
        sorted(source_basket.entries, key=lambda entry: entry.position)
        if source_basket is not None and source_basket is not target_basket
        else []
    )
    source_before = cart_waits.held_by_recipe(source_basket) if moving else {}
    target_before = cart_waits.held_by_recipe(target_basket)
    replaced = {entry.recipe_id for entry in moving}
    for entry in [e for e in target_basket.entries if e.recipe_id in replaced]:
        target_basket.entries.remove(entry)
    session.flush()  # the replaced entries go before the moved ones take their recipe
    for entry in moving:
        entry.position = _next_position(target_basket)
        entry.basket = target_basket
    target_basket.updated_at = dt.datetime.now(dt.UTC)
    cart_waits.record(target_basket, target_before, cart_waits.held_by_recipe(target_basket), target_basket.updated_at)
    if source_basket is not None and moving:
        source_basket.updated_at = target_basket.updated_at
        # The source basket is left empty: it awaits nothing of a cart any more.
        cart_waits.record(source_basket, source_before, {}, target_basket.updated_at)
    session.flush()
    answer = BasketUpdate(_view(session, target_basket, store, language), _changes(before, target_basket))
    return Moved(answer, len(moving))


def lock(session: Session, owner: BasketOwner, *, move_to: Store | None = None) -> Held:
    """Lock the shopper's open basket for the rest of the transaction (a write that depends on it
    takes it first, in the order writers take their locks), and move it to ``move_to`` when given
    (a write, for the caller to commit): what it holds, nothing when the shopper has none."""
    basket = _lock_open_basket(session, owner)
    if basket is None:
        return Held(recipe_count=0, packages=0)
    if move_to is not None and basket.store_id != move_to.id:
        basket.store_id = move_to.id
        basket.updated_at = dt.datetime.now(dt.UTC)
        session.flush()
    return Held(recipe_count=len(basket.entries), packages=sum(_product_quantities(basket).values()))


# --- the write transaction -----------------------------------------------------------------


def _write(
    session: Session,
    owner: BasketOwner,
    store: Store,
    language: str,
    apply: Callable[[Basket], None],
    *,
    cart_follows: bool = True,
    creates: bool = True,
) -> BasketUpdate:
    """Run ``apply`` on the shopper's locked open basket (created when missing, unless not ``creates``: then
    the empty basket is answered), moved to ``store``, and flush (the caller commits, or rolls back when
    anything fails)."""
    basket = _lock_open_basket(session, owner, create_at=store if creates else None)
    if basket is None:
        return BasketUpdate(_view(session, None, store, language), [])
    before = _product_quantities(basket)
    recipes_before = cart_waits.held_by_recipe(basket) if cart_follows else {}
    basket.store_id = store.id
    basket.updated_at = dt.datetime.now(dt.UTC)
    apply(basket)
    if cart_follows:
        cart_waits.record(basket, recipes_before, cart_waits.held_by_recipe(basket), basket.updated_at)
    session.flush()
    changes = _changes(before, basket) if cart_follows else []
    return BasketUpdate(_view(session, basket, store, language), changes)


def _of(owner: BasketOwner) -> list[ColumnElement[bool]]:
    return owned_by(Basket, owner.supplier_id, owner.identity)


def _open_basket_of(owner: BasketOwner) -> list[ColumnElement[bool]]:
    return [*_of(owner), Basket.status == OPEN]


def _lock_open_basket(session: Session, owner: BasketOwner, *, create_at: Store | None = None) -> Basket | None:
    """The shopper's open basket, locked for this transaction; when it has none, a new one at
    ``create_at`` (``None``: no basket)."""
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        # pysqlite opens the transaction at its first write: writing first takes SQLite's write
        # lock now (waiting for a concurrent writer to finish), so what follows reads fresh rows.
        # The write changes nothing (a refused write may be committed with its idempotency key).
        session.execute(
            update(Basket)
            .where(*_open_basket_of(owner))
            .values(updated_at=Basket.updated_at)
            .execution_options(synchronize_session=False)
        )
    basket = _select_locked(session, owner)
    if basket is None and create_at is not None:
        # A concurrent first write may insert it too: one insert wins, the other does nothing.
        session.execute(
            _INSERTS[dialect](Basket)
            .values(
                supplier_id=owner.supplier_id,
                identity_kind=owner.identity.kind.value,
                identity_id=owner.identity.value,
                status=OPEN,
                store_id=create_at.id,
            )
            .on_conflict_do_nothing()
        )
        basket = _select_locked(session, owner)
    return basket


def _select_locked(session: Session, owner: BasketOwner) -> Basket | None:
    return session.scalars(
        select(Basket)
        .where(*_open_basket_of(owner))
        .options(*_BASKET_LOADING)
        .with_for_update(of=Basket)
        .execution_options(populate_existing=True)
    ).one_or_none()


def _order_confirmed(session: Session, owner: BasketOwner, order_id: str) -> bool:
    return session.scalar(select(Basket.id).where(*_of(owner), Basket.order_id == order_id)) is not None


# --- entries and lines ---------------------------------------------------------------------


def _find_recipe(session: Session, recipe_id: str, loading: Iterable[ExecutableOption] = ()) -> Recipe:
    key = database_id(recipe_id)
    recipe = (
        session.scalars(select(Recipe).where(Recipe.id == key, offered()).options(*loading)).one_or_none()
        if key is not None
        else None
    )
    if recipe is None:
        raise UnknownRecipe(f"No recipe {recipe_id!r}.")
    return recipe


def _entry_of(basket: Basket, recipe_id: int) -> BasketEntry | None:
    return next((entry for entry in basket.entries if entry.recipe_id == recipe_id), None)


def _entry_in(basket: Basket, recipe: Recipe) -> BasketEntry:
    entry = _entry_of(basket, recipe.id)
    if entry is None:
        raise NotInBasket(f"Recipe {str(recipe.id)!r} is not in the basket.")
    return entry


def _line_of(entry: BasketEntry, ingredient_id: str) -> BasketLine | None:
    return next((line for line in entry.lines if line.ingredient_id == ingredient_id), None)


def _next_position(basket: Basket) -> int:
    return max((entry.position for entry in basket.entries), default=0) + 1


def _new_entry(basket: Basket, recipe: Recipe, guests: int) -> BasketEntry:
    entry = BasketEntry(recipe=recipe, guests=guests, position=_next_position(basket))
    basket.entries.append(entry)
    return entry


def _rescale(entry: BasketEntry, guests: int) -> None:
    """Each line's packages for ``guests`` of the recipe, with the line's own product. An entry for ``guests``
    already is left as it is: the quantities the shopper set on its lines stay (a rollback sends the guests the
    entry had, which an "add all" of the recipe for the same guests leaves unchanged)."""
    if entry.guests == guests:
        return
    recipe = entry.recipe
    needed = {item.ingredient_id: item.quantity for item in recipe.ingredients}
    entry.guests = guests
    for line in entry.lines:
        if line.ingredient_id in needed:
            line.quantity = packages(needed[line.ingredient_id], recipe.guests, guests, line.product.size_value)


def _ordered_lines(entry: BasketEntry) -> list[BasketLine]:
    """The entry's lines in the order of the recipe's ingredients."""
    positions = {item.ingredient_id: item.position for item in entry.recipe.ingredients}
    return sorted(entry.lines, key=lambda line: (positions.get(line.ingredient_id, 0), line.ingredient_id))


# --- quantities, changes and the answer ----------------------------------------------------


def _product_quantities(basket: Basket | None) -> dict[int, int]:
    """Packages of each product, summed over the basket's entries."""
    held: Counter[int] = Counter()
    for entry in basket.entries if basket is not None else ():
        for line in entry.lines:
            held[line.product.id] += line.quantity
    return dict(held)


def _changes(before: Mapping[int, int], basket: Basket) -> list[ProductQuantity]:
    """What the retailer cart must do to follow: per product, non-zero, in id order."""
    after = _product_quantities(basket)
    return [
        ProductQuantity(product_id, after.get(product_id, 0) - before.get(product_id, 0))
        for product_id in sorted(before.keys() | after.keys())
        if after.get(product_id, 0) != before.get(product_id, 0)
    ]


def _no_basket() -> BasketView:
    """What a shopper without an open basket, at no store, is answered."""
    return BasketView(store_id=None, recipes=[], products=[], total=Decimal(0))


def _view(session: Session, basket: Basket | None, store: Store, language: str) -> BasketView:
    entries = sorted(basket.entries, key=lambda e: e.position) if basket is not None else []
    offers = load_offers(session, store, (line.product.id for e in entries for line in e.lines))
    recipes = [
        EntryView(
            recipe_id=entry.recipe.id,
            guests=entry.guests,
            title=localized(entry.recipe.title, entry.recipe.title_en, language),
            lines=[_line_view(line, offers.get(line.product.id), language) for line in _ordered_lines(entry)],
        )
        for entry in entries
    ]
    held = _product_quantities(basket)
    return BasketView(
        store_id=store.id,
        recipes=recipes,
        products=[ProductQuantity(key, held[key]) for key in sorted(held)],
        total=sum(
            (line.price for entry in recipes for line in entry.lines if line.price is not None),
            Decimal(0),
        ),
    )


def _line_view(line: BasketLine, stocked: StoreProduct | None, language: str) -> LineView:
    product: Product = line.product
    offer = make_offer(product, stocked)
    unit_price = offer.price if offer.purchasable else None
    return LineView(
        ingredient_id=line.ingredient_id,
        product_id=product.id,
        quantity=line.quantity,
        name=product.name,
        brand=product.brand,
        size=format_size(product.size_value, product.size_unit, language),
        unit_price=unit_price,
        price=to_cents(unit_price * line.quantity) if unit_price is not None else None,
        available=offer.purchasable,
    )

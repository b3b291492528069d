"""Catalog reads: stores, categories, suppliers and the retailer's products at a store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import ColumnElement, and_, bindparam, or_, select
from sqlalchemy.orm import Session, selectinload, undefer_group

from coreapi.models import STORE_COORDINATES, Category, Product, Recipe, Store, StoreProduct, Supplier
from coreapi.services.pagination import Page, paginate
from coreapi.services.pricing import Offer
from coreapi.services.quantities import format_size
from coreapi.services.text import localized, search_key

MAX_DATABASE_ID = 2**31 - 1


def database_ids(values: Iterable[str]) -> list[int]:
    """The integer keys of contract ids, in order, without duplicates.

    Ids are opaque strings in the contract; one that is not a database key is simply unknown.
    """
    ids: dict[int, None] = {}
    for value in values:
        value = value.strip()
        if value.isascii() and value.isdigit() and 0 < int(value) <= MAX_DATABASE_ID:
            ids.setdefault(int(value), None)
    return list(ids)


def database_id(value: str) -> int | None:
    ids = database_ids([value])
    return ids[0] if ids else None


def offered() -> ColumnElement[bool]:
    """SQL condition: the catalog offers the recipe (not retired, coreapi/services/retirement.py). Every read that
    lists, suggests or looks up a recipe for a shopper, and every write that adds one, takes a retired recipe for
    an unknown one; the orders that hold it (the history) still read it."""
    return Recipe.retired_at.is_(None)


def store_open() -> ColumnElement[bool]:
    """SQL condition: the store is open (not closed, coreapi/services/store_closing.py). The store lists leave a
    closed store out and every request naming one takes it for an unknown store; the baskets, menus and orders
    that name it still read it (their prices there stay as they were until the shopper names another store)."""
    return Store.closed_at.is_(None)


def list_stores(session: Session) -> Sequence[Store]:
    """Every open store, with its coordinates."""
    statement = select(Store).where(store_open()).options(undefer_group(STORE_COORDINATES)).order_by(Store.id)
    return session.scalars(statement).all()


def find_store(session: Session, store_id: str, *, with_coordinates: bool = False) -> Store | None:
    """The open store of an id, or None. Its coordinates are loaded with it when asked (to show the store), else
    on first access (pricing never reads them)."""
    key = database_id(store_id)
    if key is None:
        return None
    statement = select(Store).where(Store.id == key, store_open())
    if with_coordinates:
        statement = statement.options(undefer_group(STORE_COORDINATES))
    return session.scalars(statement).one_or_none()


def supplier_active() -> ColumnElement[bool]:
    """SQL condition: the supplier is not suspended (coreapi/services/supplier_suspension.py). A request naming a
    suspended supplier, by its token or as a service by its id, is refused as one naming an unknown supplier; the
    commands still find it (its shoppers' data, its settings)."""
    return Supplier.suspended_at.is_(None)


def token_names(token: ColumnElement[str], *, now: ColumnElement[dt.datetime]) -> ColumnElement[bool]:
    """SQL condition: ``token`` is the supplier's token, or the one its last rotation replaced while that one is
    still accepted at ``now`` (coreapi/services/token_rotation.py)."""
    return or_(
        Supplier.token == token,
        and_(Supplier.previous_token == token, Supplier.previous_token_expires_at > now),
    )


# Every API request looks its supplier up, by token or (a service) by id: the statements are built once.
ACTIVE_SUPPLIER_BY_TOKEN = select(Supplier).where(
    token_names(bindparam("token"), now=bindparam("now")), supplier_active()
)
ACTIVE_SUPPLIER_BY_ID = select(Supplier).where(Supplier.id == bindparam("id"), supplier_active())


def find_active_supplier(session: Session, token: str, *, now: dt.datetime) -> Supplier | None:
    """The supplier of a ``Supplier-Token``; ``None`` for a token that names none (a replaced one past its overlap
    included), or a suspended supplier."""
    return session.scalars(ACTIVE_SUPPLIER_BY_TOKEN, {"token": token, "now": now}).one_or_none()


def find_active_supplier_by_id(session: Session, supplier_id: str) -> Supplier | None:
    """The supplier of a contract id a service names (``Supplier-Id``); ``None`` for an id that names none, or a
    suspended supplier."""
    key = database_id(supplier_id)
    return session.scalars(ACTIVE_SUPPLIER_BY_ID, {"id": key}).one_or_none() if key is not None else None


def find_supplier_by_id(session: Session, supplier_id: str) -> Supplier | None:
    """The supplier of a contract id (by primary key), suspended or not; ``None`` for an id that names none."""
    key = database_id(supplier_id)
    return session.get(Supplier, key) if key is not None else None


class UnknownSupplier(LookupError):
    """No supplier with that id (a command naming one: ``get_supplier``)."""


def get_supplier(session: Session, supplier_id: str) -> Supplier:
    """The supplier of a contract id, suspended or not, as a command names it; ``UnknownSupplier`` for an id that
    names none."""
    supplier = find_supplier_by_id(session, supplier_id)
    if supplier is None:
        raise UnknownSupplier(f"No supplier {supplier_id!r}.")
    return supplier


@dataclass(frozen=True)
class CategoryView:
    id: str
    name: str


def list_categories(session: Session, language: str) -> list[CategoryView]:
    categories = session.scalars(select(Category).order_by(Category.position)).all()
    return [CategoryView(c.id, localized(c.name, c.name_en, language)) for c in categories]


@dataclass(frozen=True)
class ProductView:
    """A product as shown at a store; price, availability and promotion are ``None`` without one."""

    id: int
    name: str
    brand: str | None
    size: str
    price: Decimal | None
    available: bool | None
    promoted: bool | None
    ingredient_ids: list[str]


def load_offers(session: Session, store: Store | None, product_ids: Iterable[int]) -> dict[int, StoreProduct]:
    """The store's prices of the given products (none without a store), in one query."""
    ids = set(product_ids)
    if store is None or not ids:
        return {}
    rows = session.scalars(
        select(StoreProduct).where(StoreProduct.store_id == store.id, StoreProduct.product_id.in_(ids))
    )
    return {row.product_id: row for row in rows}


def make_offer(product: Product, stocked: StoreProduct | None) -> Offer:
    """A product at a store; a product the store does not stock is unavailable."""
    if stocked is None:
        return Offer(product.id, product.size_value, None, available=False, promoted=False)
    return Offer(product.id, product.size_value, stocked.price, stocked.available, stocked.promoted)


def product_view(
    product: Product, offer: Offer | None, language: str, ingredient_ids: list[str] | None = None
) -> ProductView:
    return ProductView(
        id=product.id,
        name=product.name,
        brand=product.brand,
        size=format_size(product.size_value, product.size_unit, language),
        price=offer.price if offer else None,
        available=offer.available if offer else None,
        promoted=offer.promoted if offer else None,
        ingredient_ids=ingredient_ids or [],
    )


def list_products(
    session: Session,
    *,
    store: Store | None,
    query: str | None,
    ids: list[str] | None,
    page: int,
    per_page: int,
    language: str,
) -> Page[ProductView]:
    """A page of the catalog, optionally searched by name or brand, or restricted to ``ids``."""
    statement = select(Product).options(selectinload(Product.ingredient_links)).order_by(Product.id)
    if query:
        statement = statement.where(Product.search_text.contains(search_key(query), autoescape=True))
    if ids is not None:
        statement = statement.where(Product.id.in_(database_ids(ids)))
    products = paginate(session, statement, page, per_page)
    offers = load_offers(session, store, (product.id for product in products.items))

    def view(product: Product) -> ProductView:
        offer = make_offer(product, offers.get(product.id)) if store is not None else None
        links = [link.ingredient_id for link in product.ingredient_links]
        return product_view(product, offer, language, links)

    return products.map(view)

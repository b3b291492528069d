"""A shopper's data in coreapi: all of it for the right of access (``export``), and none of it after the right to
erasure (``forget``); ``flask --app coreapi export-shopper`` and ``forget-shopper`` (coreapi/cli.py).

A shopper is an identity under the supplier it shops with (``BasketOwner``, coreapi/services/baskets.py): the same
id under two suppliers is two shoppers, and so are a ``user_id`` and an ``authless_id`` of the same value. Every
table of coreapi/models.py that holds an identity (its ``identity_kind`` and ``identity_id``, or ``likes.user_id``)
is covered, with the rows that hang from them:

- ``likes`` (a connected user's: a logged-out visitor has none);
- ``baskets``, open and confirmed, with their ``basket_entries``, ``basket_lines``, ``basket_awaited_products`` and
  ``basket_shown_products`` (whose ``reporter`` is a digest of the browser's id with the basket's,
  coreapi/services/cart_waits.py);
- ``menus``, with their ``menu_recipes`` and ``menu_choices``;
- ``preferences`` and ``favorite_items`` (a row each at most);
- ``basket_transfers`` the shopper created (a transfer names its source shopper only, not who redeemed it);
- ``idempotency_keys``: the export says how many outcomes are kept and until when, not what they hold (a copy of a
  write's answer, a day long: coreapi/services/idempotency.py); ``forget`` deletes them;
- ``events`` stored with the identity for that supplier.

Not covered, because nothing in them names the shopper: events stored without an identity (``Profiling: false``,
or no ``Authorization``: the session id only), and events sent without a supplier, whose ids cannot be told to be
this supplier's shopper's. Both go with the events' retention (coreapi/services/retention.py).

**Orders are kept, unlinked.** A confirmed basket is an order the retailer was paid for: its order id, store,
total and time, and what it held, are what the retailer's accounts name, and keeping accounting records is a legal
duty the right to erasure gives way to (GDPR article 17(3)(b)). So ``forget`` does not delete it: it gives it an
identity no request can name (``FORGOTTEN_PREFIX``) and deletes what it held of the shopper's browser (awaited
and shown products, which a confirmation already forgot). coreapi then cannot tell whose order it was; the
retailer can, through the order id in its own records, which is where that order's erasure and retention are
decided. The shopper's history (``GET /baskets/history``) no longer shows it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Delete, String, cast, delete, func, literal, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session, selectinload

from coreapi.models import (
    AwaitedProduct,
    Basket,
    BasketEntry,
    BasketLine,
    BasketTransfer,
    Event,
    FavoriteItems,
    IdempotencyKey,
    Like,
    Menu,
    MenuChoice,
    MenuRecipe,
    Preferences,
    Product,
    Recipe,
    ShownProduct,
    Supplier,
)
from coreapi.services.baskets import CONFIRMED, OPEN, BasketOwner
from coreapi.services.catalog import get_supplier
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.moments import as_utc
from coreapi.services.owners import Owned, owned_by
from coreapi.services.public_ids import BASKET, MENU, TRANSFER, public_id
from coreapi.services.rows import execute_counted

# What a forgotten shopper's order keeps as its identity: a user id holding a space, which no request can name
# (``parse_authorization`` refuses an id with a space, and the only id a request names otherwise, the logged-out
# visitor's of a merge, is of the other kind), followed by the basket's id, so that two orders never meet in
# ``uq_baskets_order``.
FORGOTTEN_KIND = IdentityKind.USER
FORGOTTEN_PREFIX = "forgotten "


def find_shopper(session: Session, supplier_id: str, identity: Identity) -> tuple[Supplier, BasketOwner]:
    """The supplier of ``supplier_id`` and its shopper ``identity``; ``catalog.UnknownSupplier`` when no supplier has
    it."""
    supplier = get_supplier(session, supplier_id)
    return supplier, BasketOwner(supplier.id, identity)


# --- access --------------------------------------------------------------------------------


def export(
    session: Session, owner: BasketOwner, *, idempotency_retention: dt.timedelta, public_id_key: bytes
) -> dict[str, Any]:
    """Everything coreapi holds of the shopper, as one JSON-ready document (ids as strings, times in ISO 8601 UTC,
    money in euros): empty lists and ``None`` for a shopper it holds nothing of. ``names`` gives the title of every
    recipe and the name of every product the document mentions. No row number: they count every supplier's rows,
    and the document reaches the retailer. A basket, menu or transfer is named by its public id
    (coreapi/services/public_ids.py, with ``public_id_key``), the id the shopper's answers showed (the order id a
    shopper quotes from its history), and the browser that reported what a cart showed by its rank in the document
    (``browser 1``...), not by its stored key, a digest of the basket's number."""
    browsers: dict[str, str] = {}
    baskets = [_basket(basket, public_id_key, browsers) for basket in _baskets(session, owner)]
    menus = [_menu(menu, public_id_key) for menu in _menus(session, owner)]
    likes = _likes(session, owner)
    favorites = session.get(FavoriteItems, (owner.supplier_id, owner.identity.kind.value, owner.identity.value))
    document: dict[str, Any] = {
        "supplier_id": str(owner.supplier_id),
        "identity": {"kind": owner.identity.kind.value, "id": owner.identity.value},
        "likes": likes,
        "baskets": baskets,
        "menus": menus,
        "preferences": _preferences(session, owner),
        "favorite_items": None
        if favorites is None
        else {"product_ids": [str(key) for key in favorites.product_ids], "updated_at": _time(favorites.updated_at)},
        "basket_transfers": _transfers(session, owner, public_id_key),
        "idempotency_outcomes": _idempotency(session, owner, idempotency_retention),
        "events": _events(session, owner),
    }
    recipes, products = _mentioned(baskets, menus, likes, favorites)
    document["names"] = {
        "recipes": _names(session, Recipe.id, Recipe.title, recipes),
        "products": _names(session, Product.id, Product.name, products),
    }
    return document


def _baskets(session: Session, owner: BasketOwner) -> Iterable[Basket]:
    return session.scalars(
        select(Basket)
        .where(*_of(Basket, owner))
        .options(
            selectinload(Basket.entries).selectinload(BasketEntry.lines),
            selectinload(Basket.awaited),
            selectinload(Basket.shown),
        )
        .order_by(Basket.created_at, Basket.id)
    )


def _basket(basket: Basket, key: bytes, browsers: dict[str, str]) -> dict[str, Any]:
    """A basket; ``browsers``: the label of each reporter key met so far in the document (filled here)."""
    return {
        "id": public_id(key, BASKET, basket.id),
        "status": basket.status,
        "store_id": str(basket.store_id),
        "created_at": _time(basket.created_at),
        "updated_at": _time(basket.updated_at),
        "confirmed_at": _time(basket.confirmed_at),
        "order_id": basket.order_id,
        "total": _money(basket.total),
        "entries": [
            {
                "recipe_id": str(entry.recipe_id),
                "guests": entry.guests,
                "position": entry.position,
                "added_at": _time(entry.added_at),
                "lines": [
                    {"ingredient_id": line.ingredient_id, "product_id": str(line.product_id), "quantity": line.quantity}
                    for line in entry.lines
                ],
            }
            for entry in basket.entries
        ],
        "awaited_products": [
            {
                "recipe_id": str(row.recipe_id),
                "product_id": str(row.product_id),
                "quantity": row.quantity,
                "asked_at": _time(row.asked_at),
            }
            for row in basket.awaited
        ],
        "shown_products": [
            {
                "recipe_id": str(row.recipe_id),
                "product_id": str(row.product_id),
                "reporter": browsers.setdefault(row.reporter, f"browser {len(browsers) + 1}"),
                "quantity": row.quantity,
                "reported_at_ms": row.reported_at,
                "shown_at": _time(row.shown_at),
            }
            for row in basket.shown
        ],
    }


def _menus(session: Session, owner: BasketOwner) -> Iterable[Menu]:
    return session.scalars(
        select(Menu)
        .where(*_of(Menu, owner))
        .options(selectinload(Menu.recipes).selectinload(MenuRecipe.choices))
        .order_by(Menu.id)
    )


def _menu(menu: Menu, key: bytes) -> dict[str, Any]:
    return {
        "id": public_id(key, MENU, menu.id),
        "store_id": None if menu.store_id is None else str(menu.store_id),
        "guests": menu.guests,
        "budget": _money(menu.budget),
        "created_at": _time(menu.created_at),
        "updated_at": _time(menu.updated_at),
        "recipes": [
            {
                "recipe_id": str(entry.recipe_id),
                "guests": entry.guests,
                "position": entry.position,
                "choices": [
                    {
                        "ingredient_id": choice.ingredient_id,
                        "product_id": None if choice.product_id is None else str(choice.product_id),
                        "selected": choice.selected,
                    }
                    for choice in entry.choices
                ],
            }
            for entry in menu.recipes
        ],
    }


def _likes(session: Session, owner: BasketOwner) -> list[dict[str, Any]]:
    if owner.identity.kind is not IdentityKind.USER:
        return []
    rows = session.execute(
        select(Like.recipe_id, Like.created_at)
        .where(Like.supplier_id == owner.supplier_id, Like.user_id == owner.identity.value)
        .order_by(Like.created_at, Like.recipe_id)
    )
    return [{"recipe_id": str(recipe_id), "liked_at": _time(liked_at)} for recipe_id, liked_at in rows]


def _preferences(session: Session, owner: BasketOwner) -> dict[str, Any] | None:
    row = session.get(Preferences, (owner.supplier_id, owner.identity.kind.value, owner.identity.value))
    if row is None:
        return None
    return {
        "diets": list(row.diets),
        "avoided_ingredients": list(row.avoided_ingredients),
        "missing_equipment": list(row.missing_equipment),
        "guests": row.guests,
        "updated_at": _time(row.updated_at),
    }


def _transfers(session: Session, owner: BasketOwner, key: bytes) -> list[dict[str, Any]]:
    """The shopper's transfers, without the digest of their token (a credential's, which tells the shopper
    nothing)."""
    rows = session.scalars(
        select(BasketTransfer).where(*_of(BasketTransfer, owner)).order_by(BasketTransfer.created_at, BasketTransfer.id)
    )
    return [
        {
            "id": public_id(key, TRANSFER, row.id),
            "target_supplier_id": str(row.target_supplier_id),
            "store_id": str(row.store_id),
            "created_at": _time(row.created_at),
            "expires_at": _time(row.expires_at),
            "redeemed_at": _time(row.redeemed_at),
            "revoked_at": _time(row.revoked_at),
        }
        for row in rows
    ]


def _idempotency(session: Session, owner: BasketOwner, retention: dt.timedelta) -> dict[str, Any]:
    """How many outcomes are kept, and when the newest may be pruned (a write prunes, now and then, those older
    than the retention: coreapi/blueprints/writes.py)."""
    count, newest = session.execute(
        select(func.count(), func.max(IdempotencyKey.created_at)).where(*_of(IdempotencyKey, owner))
    ).one()
    return {"count": count, "kept_until": None if newest is None else _time(as_utc(newest) + retention)}


def _events(session: Session, owner: BasketOwner) -> list[dict[str, Any]]:
    rows = session.scalars(select(Event).where(*_of(Event, owner)).order_by(Event.timestamp, Event.id))
    return [
        {
            "id": row.event_id,
            "name": row.name,
            "path": row.path,
            "props": row.props,
            "timestamp": _time(row.timestamp),
            "received_at": _time(row.received_at),
            "session_id": row.session_id,
        }
        for row in rows
    ]


def _mentioned(
    baskets: list[dict[str, Any]],
    menus: list[dict[str, Any]],
    likes: list[dict[str, Any]],
    favorites: FavoriteItems | None,
) -> tuple[set[int], set[int]]:
    """The recipes and products the document names."""
    recipes = {int(like["recipe_id"]) for like in likes}
    products = set(favorites.product_ids) if favorites is not None else set()
    for basket in baskets:
        for entry in basket["entries"]:
            recipes.add(int(entry["recipe_id"]))
            products.update(int(line["product_id"]) for line in entry["lines"])
        for row in (*basket["awaited_products"], *basket["shown_products"]):
            recipes.add(int(row["recipe_id"]))
            products.add(int(row["product_id"]))
    for menu in menus:
        for entry in menu["recipes"]:
            recipes.add(int(entry["recipe_id"]))
            products.update(int(choice["product_id"]) for choice in entry["choices"] if choice["product_id"])
    return recipes, products


def _names(
    session: Session, key: InstrumentedAttribute[int], name: InstrumentedAttribute[str], ids: set[int]
) -> dict[str, str]:
    if not ids:
        return {}
    return {str(row_id): row_name for row_id, row_name in session.execute(select(key, name).where(key.in_(ids)))}


def _time(moment: dt.datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).isoformat()


def _money(amount: Decimal | None) -> float | None:
    return None if amount is None else float(amount)


# --- erasure -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forgotten:
    """What ``forget`` did: the rows it deleted, per kind in the order it deleted them, and how many of the
    shopper's orders it kept without the shopper."""

    deleted: dict[str, int]
    orders_unlinked: int

    @property
    def nothing(self) -> bool:
        return not self.orders_unlinked and not any(self.deleted.values())


def forget(session: Session, owner: BasketOwner) -> Forgotten:
    """Delete everything coreapi holds of the shopper, children before parents, and unlink its orders (the module's
    doc); the caller commits, all of it or nothing. Again on a forgotten shopper: nothing to delete.

    The shopper's menu and baskets are locked first (``SELECT ... FOR UPDATE`` on PostgreSQL, in the order the
    writes take them: coreapi/services/menus.py finalizes a menu into the basket), so that a write of the shopper
    running meanwhile finishes before, or starts after, and none waits on the other in a cycle. A write that starts
    after finds nothing and starts anew: erase a shopper whose account is closed."""
    session.execute(select(Menu.id).where(*_of(Menu, owner)).with_for_update())
    session.execute(select(Basket.id).where(*_of(Basket, owner)).with_for_update())
    baskets = select(Basket.id).where(*_of(Basket, owner)).scalar_subquery()
    open_baskets = select(Basket.id).where(*_of(Basket, owner), Basket.status == OPEN).scalar_subquery()
    open_entries = select(BasketEntry.id).where(BasketEntry.basket_id.in_(open_baskets)).scalar_subquery()
    menus = select(Menu.id).where(*_of(Menu, owner)).scalar_subquery()
    menu_recipes = select(MenuRecipe.id).where(MenuRecipe.menu_id.in_(menus)).scalar_subquery()
    steps: list[tuple[str, Delete]] = []
    if owner.identity.kind is IdentityKind.USER:  # a logged-out visitor likes nothing
        steps.append(
            ("likes", delete(Like).where(Like.supplier_id == owner.supplier_id, Like.user_id == owner.identity.value))
        )
    steps += [
        ("shown products", delete(ShownProduct).where(ShownProduct.basket_id.in_(baskets))),
        ("awaited products", delete(AwaitedProduct).where(AwaitedProduct.basket_id.in_(baskets))),
        ("basket lines", delete(BasketLine).where(BasketLine.entry_id.in_(open_entries))),
        ("basket entries", delete(BasketEntry).where(BasketEntry.basket_id.in_(open_baskets))),
        (
            "open baskets",
            delete(Basket).where(*_of(Basket, owner), Basket.status == OPEN),
        ),
        ("menu choices", delete(MenuChoice).where(MenuChoice.menu_recipe_id.in_(menu_recipes))),
        ("menu recipes", delete(MenuRecipe).where(MenuRecipe.menu_id.in_(menus))),
        ("menus", delete(Menu).where(*_of(Menu, owner))),
        ("preferences", delete(Preferences).where(*_of(Preferences, owner))),
        ("favorite items", delete(FavoriteItems).where(*_of(FavoriteItems, owner))),
        (
            "basket transfers",
            delete(BasketTransfer).where(*_of(BasketTransfer, owner)),
        ),
        (
            "idempotency outcomes",
            delete(IdempotencyKey).where(*_of(IdempotencyKey, owner)),
        ),
        ("events", delete(Event).where(*_of(Event, owner))),
    ]
    deleted = {kind: execute_counted(session, statement) for kind, statement in steps}
    unlinked = execute_counted(
        session,
        update(Basket)
        .where(*_of(Basket, owner), Basket.status == CONFIRMED)
        .values(
            identity_kind=FORGOTTEN_KIND.value,
            identity_id=literal(FORGOTTEN_PREFIX) + cast(Basket.id, String),
            updated_at=Basket.updated_at,  # the order is as it was, only whose it was is gone
        ),
    )
    # The baskets and menus loaded in this session are read again from the database.
    session.expire_all()
    return Forgotten(deleted=deleted, orders_unlinked=unlinked)


def _of(model: Owned, owner: BasketOwner) -> list[ColumnElement[bool]]:
    """SQL conditions: the row of ``model`` is the shopper's."""
    return owned_by(model, owner.supplier_id, owner.identity)

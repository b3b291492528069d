"""A shopper's favorite products: the products it marked as favorites at its retailer.

They belong to a shopper (``BasketOwner``: an identity under the supplier it shops with), like a basket,
a menu or preferences: the same identity under two suppliers has two lists. A write replaces the whole
list with the known products among the ids given, in their order, duplicates collapsed (an id that names
no product is unknown, not malformed: left out, as in every ``ids`` list of the contract).

What they change: wherever coreapi picks the product of an ingredient for the shopper (a recipe added to
its basket, the products of its menu and so what finalizing it puts in the basket), a favorite candidate
that is available at the store comes before the others (``coreapi.services.pricing.choose``). Recipe
details are the same for every shopper and never apply them.

Writes flush but never commit: the caller's transaction holds the write.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from coreapi.extensions import Base
from coreapi.models import MAX_FAVORITE_ITEMS, FavoriteItems, Product
from coreapi.services.catalog import database_ids
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.owners import owned_by
from coreapi.services.pricing import NO_FAVORITES

# INSERT ... ON CONFLICT, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


def _of(supplier_id: int, identity: Identity) -> list[ColumnElement[bool]]:
    return owned_by(FavoriteItems, supplier_id, identity)


def product_ids(session: Session, supplier_id: int, identity: Identity) -> list[int]:
    """The shopper's favorite products, in the order stored; ``[]`` when it stored none."""
    stored = session.scalar(select(FavoriteItems.product_ids).where(*_of(supplier_id, identity)))
    return list(stored or [])


def preferred(session: Session, supplier_id: int, identity: Identity) -> frozenset[int]:
    """The shopper's favorite products as the product picks read them (``pricing.choose``), in one query."""
    return frozenset(product_ids(session, supplier_id, identity)) or NO_FAVORITES


def replace(session: Session, supplier_id: int, identity: Identity, ids: Sequence[str]) -> list[int]:
    """Store the shopper's favorite products, replacing what it had: the products among ``ids`` (contract
    ids), in their order, without duplicates; at most ``MAX_FAVORITE_ITEMS`` (the caller refuses more). An
    empty list forgets them. Concurrent writes of one shopper: the last one wins, whole. The products stored."""
    keys = database_ids(ids)[:MAX_FAVORITE_ITEMS]
    known = set(session.scalars(select(Product.id).where(Product.id.in_(keys)))) if keys else set()
    stored = [key for key in keys if key in known]
    _store(session, supplier_id, identity, stored)
    return stored


def merge_authless(session: Session, supplier_id: int, user: Identity, authless_id: str) -> None:
    """At login, the favorites of the logged-out visitor ``authless_id`` (under the same supplier) join the
    user's: the user's first, then the visitor's others, at most ``MAX_FAVORITE_ITEMS``; the visitor has none
    afterwards. Nothing to do when the visitor has none."""
    visitor = Identity(IdentityKind.AUTHLESS, authless_id)
    theirs = product_ids(session, supplier_id, visitor)
    if not theirs:
        return
    merged = list(dict.fromkeys([*product_ids(session, supplier_id, user), *theirs]))[:MAX_FAVORITE_ITEMS]
    _store(session, supplier_id, visitor, [])
    _store(session, supplier_id, user, merged)


def _store(session: Session, supplier_id: int, identity: Identity, stored: list[int]) -> None:
    """Upsert the shopper's row (delete it for an empty list), then flush."""
    if not stored:
        session.execute(delete(FavoriteItems).where(*_of(supplier_id, identity)))
        session.flush()
        return
    values = {"product_ids": stored, "updated_at": dt.datetime.now(dt.UTC)}
    statement = _INSERTS[session.get_bind().dialect.name](FavoriteItems).values(
        supplier_id=supplier_id, identity_kind=identity.kind.value, identity_id=identity.value, **values
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[FavoriteItems.supplier_id, FavoriteItems.identity_kind, FavoriteItems.identity_id],
            set_=values,
        )
    )
    session.flush()

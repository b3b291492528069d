"""Closing a store (``flask --app coreapi close-store``), and opening it again.

A closed store stays in the database (the baskets, menus and orders that name it keep it), but the retailer no
longer sells there: the store lists leave it out and every request naming it is refused as for an unknown store
(``coreapi.services.catalog.store_open``), so a shopper's page that still names it (a cookie, a tab left open)
asks the shopper for another store. What the shoppers hold there is not moved by the command: their open basket
and their menu move to the next store their page names, as for any change of store (``baskets.get_basket``,
``menus.current``), with the recipes and products that store sells; the orders keep the closed store for the
history. Running it again on a closed store keeps the first closing time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from coreapi.models import Basket, Menu, Store
from coreapi.services.catalog import database_id
from coreapi.services.moments import as_utc


class UnknownStore(LookupError):
    """No store with that id."""


@dataclass(frozen=True)
class Closing:
    """What closing a store did: when it was closed (the first time), and how many open baskets and menus are
    still at it (they move at their shopper's next store)."""

    store_id: int
    name: str
    closed_at: dt.datetime
    baskets: int
    menus: int


def close_store(session: Session, store_id: str, *, now: dt.datetime) -> Closing:
    """Close a store (its first closing's time is kept); the caller commits."""
    store = _find(session, store_id)
    if store.closed_at is None:
        store.closed_at = now
    baskets = session.scalar(
        select(func.count()).select_from(Basket).where(Basket.store_id == store.id, Basket.status == "open")
    )
    menus = session.scalar(select(func.count()).select_from(Menu).where(Menu.store_id == store.id))
    return Closing(
        store_id=store.id,
        name=store.name,
        closed_at=as_utc(store.closed_at),
        baskets=baskets or 0,
        menus=menus or 0,
    )


def reopen_store(session: Session, store_id: str) -> bool:
    """Open a closed store again; ``False`` if it was open. The caller commits."""
    store = _find(session, store_id)
    if store.closed_at is None:
        return False
    store.closed_at = None
    return True


def _find(session: Session, store_id: str) -> Store:
    key = database_id(store_id)
    store = session.get(Store, key) if key is not None else None
    if store is None:
        raise UnknownStore(f"No store {store_id!r}.")
    return store

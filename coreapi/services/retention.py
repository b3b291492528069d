"""What coreapi deletes once it is kept long enough (``flask --app coreapi prune``, coreapi/cli.py; run daily,
docs/operations.md):

- analytics events received before ``events_before`` (``COREAPI_EVENT_RETENTION_DAYS``, 13 months by default),
  by the time coreapi stored them (``received_at``), not the browser's clock, which may be anything;
- basket transfers expired before ``idle_before`` (their one-time token long useless, redeemed or not: a link
  that old is then an unknown one, a 404 rather than a 410);
- what logged-out visitors left and no longer use, untouched since ``idle_before``
  (``COREAPI_IDLE_AUTHLESS_RETENTION_DAYS``, 90 days by default): their open baskets that hold no recipe (a merge
  into the user's basket at a login leaves one so, coreapi/services/baskets.py) and their menus that hold no
  recipe. "Untouched" is the row's ``updated_at``, which every write of a basket or a menu moves on (their
  ``_write``); a visitor who comes back gets a new one at the first write (a menu at the first read), as a new
  visitor does. A basket write racing the deletion moves ``updated_at`` on first (PostgreSQL checks the row again
  once its lock is free), or finds the row gone and starts anew. A menu's reads do not move ``updated_at``: a
  planner page opened on a menu untouched that long, and left open across the night's prune, has its next write
  refused as a shopper's without a menu (``NoMenu``, a 404) until the page reads the menu again, which makes one.

Not here: the idempotency outcomes, which the writes prune now and then (coreapi/services/idempotency.py,
``prune_now_and_then``) and the command prunes too (``idempotency.prune``, for a database no write reaches);
orders, which the retailer's accounts need (coreapi/services/shopper_data.py); a connected user's baskets, menus
and settings, which go when the retailer closes the account (``forget-shopper``; their old events and expired
transfers go here as anyone's); a visitor's baskets and menus that hold
recipes, and its preferences and favorite products, which are what the visitor chose to keep.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import ColumnElement, delete, exists, select
from sqlalchemy.orm import Session

from coreapi.models import Basket, BasketEntry, BasketTransfer, Event, Menu, MenuRecipe
from coreapi.services.baskets import OPEN
from coreapi.services.identity import IdentityKind
from coreapi.services.rows import execute_counted

# What prune deletes in batches.
Prunable = Event | Basket | Menu | BasketTransfer


@dataclass(frozen=True)
class Pruned:
    """How many rows ``prune`` deleted, per kind."""

    events: int
    idle_baskets: int
    idle_menus: int
    old_transfers: int


# Rows deleted per transaction: a first prune of a year of events, or of a quarter's abandoned visitors' baskets,
# must not hold SQLite's one write lock (or PostgreSQL's locks on a million rows and what cascades from them) while
# shoppers' writes wait behind it.
BATCH = 5_000


def prune(session: Session, *, events_before: dt.datetime, idle_before: dt.datetime, batch: int = BATCH) -> Pruned:
    """Delete the events received before ``events_before``, then the logged-out visitors' empty baskets and menus
    untouched since ``idle_before`` and the old basket transfers (the module's doc), each kind in batches of
    ``batch`` rows, each batch a transaction of its own (committed here). What hangs from a basket (the products it
    awaited or a cart showed) goes with it (ON DELETE CASCADE)."""
    authless = IdentityKind.AUTHLESS.value
    return Pruned(
        events=_delete_in_batches(session, Event, batch, Event.received_at < events_before),
        idle_baskets=_delete_in_batches(
            session,
            Basket,
            batch,
            Basket.identity_kind == authless,
            Basket.status == OPEN,
            Basket.updated_at < idle_before,
            ~exists(select(BasketEntry.id).where(BasketEntry.basket_id == Basket.id)),
        ),
        idle_menus=_delete_in_batches(
            session,
            Menu,
            batch,
            Menu.identity_kind == authless,
            Menu.updated_at < idle_before,
            ~exists(select(MenuRecipe.id).where(MenuRecipe.menu_id == Menu.id)),
        ),
        # A basket transfer's token is useless once expired (15 minutes), redeemed or not; the row names its shopper.
        old_transfers=_delete_in_batches(session, BasketTransfer, batch, BasketTransfer.expires_at < idle_before),
    )


def _delete_in_batches(session: Session, model: type[Prunable], batch: int, *conditions: ColumnElement[bool]) -> int:
    """Delete the rows of ``model`` that meet ``conditions``, ``batch`` of them per committed transaction, until a
    batch deletes none (not merely fewer: a write may have moved rows of a batch out of it); how many went.

    The delete repeats the conditions beside the batch's ids. On PostgreSQL a row whose lock the delete waited for
    is checked again once the lock is free, but only against the delete's own conditions on that row's columns (the
    ids of the subquery were chosen before): so a basket a visitor wrote meanwhile, which moved its ``updated_at``
    on, is kept. A condition on other rows (``NOT EXISTS`` an entry) is not checked again; every basket and menu
    write moves ``updated_at`` (coreapi/services/baskets.py, menus.py), which is what keeps a basket that gained an
    entry meanwhile."""
    total = 0
    while True:
        chosen = select(model.id).where(*conditions).limit(batch).scalar_subquery()
        deleted = execute_counted(session, delete(model).where(model.id.in_(chosen), *conditions))
        session.commit()
        total += deleted
        if deleted == 0:
            return total

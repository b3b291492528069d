"""Basket transfers: a shopper's basket handed over to the retailer its supplier is affiliated to.

A publisher's shopper builds a basket, then hands it over to the retailer of its supplier's
``affiliated_supplier_id``: ``create`` answers a one-time token (``secrets.token_urlsafe(32)``), of
which only the SHA-256 is stored, redeemable until it expires. A shopper has at most one pending
transfer: a new one revokes the earlier ones not redeemed yet. On the retailer's site, ``redeem``
moves the entries of the source shopper's open basket into the redeeming shopper's, as the merge of a
logged-out visitor's basket does (``coreapi.services.baskets.move_entries``), once.

Locks, taken in this order by every writer, so that none waits on another in a cycle: the source
basket, then the transfer, then the target basket. The redeem claims the transfer with a conditional
``UPDATE`` (not redeemed, not revoked, not expired): of two redeems of one token, the second waits
for the first (the row's lock on PostgreSQL, the database's write lock on SQLite), then finds it
redeemed. As the basket writes, these flush but never commit: a refused write changes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import ClassVar

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import Session

from coreapi.models import BasketTransfer, Store, Supplier
from coreapi.services import baskets
from coreapi.services.baskets import BasketError, BasketOwner
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.moments import as_utc
from coreapi.services.owners import owned_by
from coreapi.services.text import DEFAULT_LANGUAGE

# What a redeem that is not the token's answers: the same for every token it cannot redeem.
NO_SUCH_TRANSFER = "No such basket transfer."
EXPIRED = "expired"
REDEEMED = "redeemed"


# --- errors --------------------------------------------------------------------------------


class TransferConflict(BasketError):
    """The shopper's basket, or supplier, cannot be handed over (409); ``reason`` says why."""

    reason: ClassVar[str] = "conflict"


class NoAffiliate(TransferConflict):
    reason = "no-affiliate"


class EmptyBasket(TransferConflict):
    reason = "empty"


class UnknownTransfer(BasketError):
    """No transfer of this token for the calling supplier (404): never which of the two."""


class TransferGone(BasketError):
    """The token was valid once (410): ``reason`` is ``expired`` (revoked too) or ``redeemed``."""

    def __init__(self, reason: str) -> None:
        detail = "This basket transfer was already redeemed." if reason == REDEEMED else "This basket transfer expired."
        super().__init__(detail)
        self.reason = reason


# --- answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Created:
    """A new transfer: its token (answered once, never stored) and what it hands over."""

    token: str
    expires_at: dt.datetime
    store_id: int
    target_supplier_id: int
    recipe_count: int


@dataclass(frozen=True)
class Source:
    """Where a redeemed basket came from, and how many recipes it brought."""

    source_supplier_id: int
    source_supplier_name: str
    recipe_count: int


@dataclass(frozen=True)
class Redeemed:
    """The redeeming shopper's basket and its ``changes`` (as any basket write), and the transfer's source."""

    basket: baskets.BasketView
    changes: list[baskets.ProductQuantity]
    transfer: Source


# --- writes --------------------------------------------------------------------------------


def create(session: Session, owner: BasketOwner, affiliate_id: int | None, store: Store, ttl: dt.timedelta) -> Created:
    """Hand the shopper's open basket over to ``affiliate_id`` (its supplier's affiliated retailer):
    the basket is moved to ``store`` (as ``GET /basket`` moves it), the shopper's earlier pending
    transfers are revoked, and a new one is stored, redeemable for ``ttl``.

    ``NoAffiliate`` when the supplier has no affiliated retailer, then ``EmptyBasket`` when the basket
    has no product (or the shopper no basket)."""
    if affiliate_id is None:
        raise NoAffiliate("This supplier has no affiliated retailer to hand the basket over to.")
    held = baskets.lock(session, owner, move_to=store)
    if held.packages == 0:
        raise EmptyBasket("The basket has no product: there is nothing to hand over.")
    now = dt.datetime.now(dt.UTC)
    session.execute(
        update(BasketTransfer)
        .where(*_source_is(owner), *_pending())
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    token, expires_at = secrets.token_urlsafe(32), now + ttl
    transfer = BasketTransfer(
        token_hash=token_hash(token),
        supplier_id=owner.supplier_id,
        identity_kind=owner.identity.kind.value,
        identity_id=owner.identity.value,
        target_supplier_id=affiliate_id,
        store_id=store.id,
        created_at=now,
        expires_at=expires_at,
    )
    session.add(transfer)
    session.flush()
    return Created(token, expires_at, store.id, affiliate_id, held.recipe_count)


def redeem(
    session: Session,
    redeemer: BasketOwner,
    token: str,
    store: Store,
    language: str = DEFAULT_LANGUAGE,
) -> Redeemed:
    """Redeem ``token`` for the ``redeemer``, a shopper of the transfer's target supplier: the
    entries of the source shopper's open basket move into the redeemer's (``move_entries``: the
    transferred entry wins a recipe both hold), at ``store``; the source basket stays open, empty.
    A source basket emptied meanwhile moves nothing, and the redeem still succeeds.

    ``UnknownTransfer`` for a token that is no transfer of the redeemer's supplier; ``TransferGone``
    for one redeemed (``redeemed``), revoked or expired (``expired``)."""
    now = dt.datetime.now(dt.UTC)
    transfer = _find(session, token, redeemer.supplier_id)
    gone = _gone(transfer, now)
    if gone is not None:
        raise TransferGone(gone)
    source = BasketOwner(transfer.supplier_id, Identity(IdentityKind(transfer.identity_kind), transfer.identity_id))
    baskets.lock(session, source)  # the source basket's lock comes before the transfer's
    if not _claim(session, transfer, now):  # redeemed or revoked meanwhile, by the writer it waited for
        raise TransferGone(_gone(_find(session, token, redeemer.supplier_id, fresh=True), now) or EXPIRED)
    moved = baskets.move_entries(session, source, redeemer, store, language)
    return Redeemed(
        moved.update.basket,
        moved.update.changes,
        Source(transfer.supplier_id, session.get_one(Supplier, transfer.supplier_id).name, moved.recipe_count),
    )


def token_hash(token: str) -> str:
    """What is stored of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


# --- the transfer row ----------------------------------------------------------------------


def _source_is(owner: BasketOwner) -> list[ColumnElement[bool]]:
    return owned_by(BasketTransfer, owner.supplier_id, owner.identity)


def _pending() -> list[ColumnElement[bool]]:
    return [BasketTransfer.redeemed_at.is_(None), BasketTransfer.revoked_at.is_(None)]


def _find(session: Session, token: str, supplier_id: int, *, fresh: bool = False) -> BasketTransfer:
    """The transfer of ``token`` whose target is ``supplier_id``; ``UnknownTransfer`` otherwise."""
    statement = select(BasketTransfer).where(BasketTransfer.token_hash == token_hash(token))
    transfer = session.scalars(statement.execution_options(populate_existing=fresh)).one_or_none()
    if transfer is None or transfer.target_supplier_id != supplier_id:
        raise UnknownTransfer(NO_SUCH_TRANSFER)
    return transfer


def _gone(transfer: BasketTransfer, now: dt.datetime) -> str | None:
    """Why the transfer can no longer be redeemed at ``now`` (``redeemed``, ``expired``: revoked
    counts as expired); ``None`` while it can."""
    if transfer.redeemed_at is not None:
        return REDEEMED
    if transfer.revoked_at is not None or as_utc(transfer.expires_at) <= now:
        return EXPIRED
    return None


def _claim(session: Session, transfer: BasketTransfer, now: dt.datetime) -> bool:
    """Mark the transfer redeemed if it still is pending and unexpired, in one statement (a
    concurrent redeem waits for this transaction, then finds it redeemed); whether it was."""
    claimed = session.execute(
        update(BasketTransfer)
        .where(BasketTransfer.id == transfer.id, *_pending(), BasketTransfer.expires_at > now)
        .values(redeemed_at=now)
        .returning(BasketTransfer.id)
        .execution_options(synchronize_session=False)
    ).first()
    return claimed is not None

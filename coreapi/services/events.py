"""Analytics events sent by browsers, stored with the session, supplier and identity of the call."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from coreapi.extensions import Base
from coreapi.models import Event
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.moments import as_utc

# INSERT ... ON CONFLICT DO NOTHING, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


@dataclass(frozen=True)
class NewEvent:
    """An event as a browser sends it; ``timestamp`` ``None``: when it is received."""

    name: str
    path: str | None = None
    props: dict[str, Any] | None = None
    timestamp: dt.datetime | None = None
    # The browser's id: the same id again, for the same supplier, is the same event (stored once).
    event_id: str | None = None


@dataclass(frozen=True)
class StoredCount:
    """What a batch did: events newly stored, and events already stored under the same id (not again)."""

    stored: int
    duplicates: int


@dataclass(frozen=True)
class StoredEvent:
    event_id: str | None
    name: str
    path: str | None
    props: dict[str, Any]
    timestamp: dt.datetime
    session_id: str | None
    supplier_id: int | None
    identity: Identity | None


def store_events(
    session: Session,
    events: Sequence[NewEvent],
    *,
    session_id: str | None,
    supplier_id: int | None,
    identity: Identity | None,
) -> StoredCount:
    """Store ``events`` in one statement, each id once per supplier (``INSERT ... ON CONFLICT DO NOTHING``
    on ``uq_events_supplier_event``, both dialects): a batch sent again stores nothing twice, and concurrent
    retries of it neither."""
    now = dt.datetime.now(dt.UTC)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for event in events:
        if event.event_id is not None:
            if event.event_id in seen:
                continue  # the same event twice in one batch
            seen.add(event.event_id)
        rows.append(
            {
                "event_id": event.event_id,
                "name": event.name,
                "path": event.path,
                "props": event.props or {},
                "timestamp": (event.timestamp or now).astimezone(dt.UTC),
                "received_at": now,
                "session_id": session_id,
                "supplier_id": supplier_id,
                "identity_kind": identity.kind.value if identity else None,
                "identity_id": identity.value if identity else None,
            }
        )
    statement = _INSERTS[session.get_bind().dialect.name](Event).on_conflict_do_nothing().returning(Event.id)
    stored = len(session.execute(statement, rows).all())
    session.commit()
    return StoredCount(stored=stored, duplicates=len(events) - stored)


def session_events(session: Session, session_id: str, *, supplier_id: int) -> list[StoredEvent]:
    """A supplier's events of a session, oldest first (ties in the order they were stored)."""
    rows = session.scalars(
        select(Event)
        .where(Event.session_id == session_id, Event.supplier_id == supplier_id)
        .order_by(Event.timestamp, Event.id)
    )
    return [
        StoredEvent(
            event_id=row.event_id,
            name=row.name,
            path=row.path,
            props=row.props,
            timestamp=as_utc(row.timestamp),
            session_id=row.session_id,
            supplier_id=row.supplier_id,
            identity=Identity(IdentityKind(row.identity_kind), row.identity_id)
            if row.identity_kind is not None and row.identity_id is not None
            else None,
        )
        for row in rows
    ]

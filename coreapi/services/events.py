"""Analytics events sent by browsers, stored with the session, supplier and identity of the call."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from coreapi.models import Event
from coreapi.services.identity import Identity, IdentityKind


@dataclass(frozen=True)
class NewEvent:
    """An event as a browser sends it; ``timestamp`` ``None``: when it is received."""

    name: str
    path: str | None = None
    props: dict[str, Any] | None = None
    timestamp: dt.datetime | None = None


@dataclass(frozen=True)
class StoredEvent:
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
) -> int:
    """Store ``events`` in one statement; how many were stored."""
    now = dt.datetime.now(dt.UTC)
    session.execute(
        insert(Event),
        [
            {
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
            for event in events
        ],
    )
    session.commit()
    return len(events)


def session_events(session: Session, session_id: str) -> list[StoredEvent]:
    """A session's events, oldest first (ties in the order they were stored)."""
    rows = session.scalars(select(Event).where(Event.session_id == session_id).order_by(Event.timestamp, Event.id))
    return [
        StoredEvent(
            name=row.name,
            path=row.path,
            props=row.props,
            timestamp=_utc(row.timestamp),
            session_id=row.session_id,
            supplier_id=row.supplier_id,
            identity=Identity(IdentityKind(row.identity_kind), row.identity_id)
            if row.identity_kind is not None and row.identity_id is not None
            else None,
        )
        for row in rows
    ]


def _utc(moment: dt.datetime) -> dt.datetime:
    """SQLite gives back naive datetimes; they were stored in UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)

"""Idempotency keys: a basket write sent again with its ``Idempotency-Key`` (a retry after a
timeout, when the first attempt may have been applied) answers the first attempt's outcome
without applying the write again.

A key belongs to a shopper (supplier and identity) and is kept with the fingerprint of the request
it was first used for (``Fingerprint``) and that request's outcome (status and JSON body), at
least ``retention`` (a day) long. The protocol, in the write's own transaction:

1. ``claim`` inserts the key's row as the transaction's first write (``INSERT ... ON CONFLICT DO
   NOTHING`` on the primary key). Inserted: the key is this request's; a row already there is a
   committed outcome, answered instead (``KeyReused`` when it is another request's).
2. The caller applies the write, then ``record``s its outcome in the same row and commits: the
   write and its outcome are committed together or not at all. A failed write rolls back and
   frees the key.

Two requests with one key at once: the database's unique key makes the second ``claim`` wait for
the first transaction (PostgreSQL: the uncommitted row; SQLite: the database's write lock), then
find its committed outcome. On PostgreSQL the wait is bounded (``wait_seconds``): past it,
``KeyInProgress`` (the caller answers 409 rather than hang until its own client gives up).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from coreapi.models import MAX_IDEMPOTENCY_KEY_LENGTH, MAX_IDEMPOTENCY_PATH_LENGTH, IdempotencyKey
from coreapi.services.identity import Identity
from coreapi.services.owners import owned_by
from coreapi.services.rows import execute_counted
from coreapi.services.write_deadline import LOCK_NOT_AVAILABLE, sqlstate

# A claimed row before its outcome: only ever seen inside the claiming transaction (102 Processing).
PENDING = 102
# app.extensions: when this process last pruned (time.monotonic()), None: never.
PRUNED_AT = "coreapi.idempotency.pruned_at"
_pruning = threading.Lock()


class KeyReused(Exception):
    """The key is stored for another request (method, path, query or body)."""

    def __init__(self, method: str, path: str) -> None:
        super().__init__(f"{method} {path}")
        self.method = method
        self.path = path


class KeyInProgress(Exception):
    """Another request with the key is still running (PostgreSQL, past ``wait_seconds``)."""


def valid_key(value: str) -> bool:
    """1 to 128 printable ASCII characters, no space."""
    return 1 <= len(value) <= MAX_IDEMPOTENCY_KEY_LENGTH and all("!" <= char <= "~" for char in value)


@dataclass(frozen=True)
class Scope:
    """Whose key: the shopper's (supplier and identity)."""

    supplier_id: int
    identity: Identity
    key: str

    def primary_key(self) -> tuple[int, str, str, str]:
        return (self.supplier_id, self.identity.kind.value, self.identity.value, self.key)


@dataclass(frozen=True)
class Fingerprint:
    """A request as a key compares it: method, path, query and body."""

    method: str
    path: str
    digest: str

    @classmethod
    def of(cls, method: str, path: str, query: Iterable[tuple[str, str]], body: bytes) -> Fingerprint:
        """The body counts as JSON when it parses (key order and spacing do not matter), as its
        bytes otherwise; the query as its sorted pairs."""
        try:
            content: Any = {"json": json.loads(body)} if body else None
        except ValueError:
            content = {"bytes": body.hex()}
        canonical = json.dumps(
            [method.upper(), path, sorted(query), content],
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=True,
        )
        return cls(method.upper(), path[:MAX_IDEMPOTENCY_PATH_LENGTH], hashlib.sha256(canonical.encode()).hexdigest())


@dataclass(frozen=True)
class Outcome:
    """What a write answered: its status and JSON body."""

    status: int
    body: dict[str, Any]


def claim(session: Session, scope: Scope, request: Fingerprint, *, wait_seconds: float) -> Outcome | None:
    """Claim the key for ``request`` in the session's transaction (call it before the write's
    first statement); ``None``: claimed, the caller writes then ``record``s. Otherwise the stored
    outcome of this same request; ``KeyReused`` when it is stored for another request;
    ``KeyInProgress`` when another transaction holding it did not end within ``wait_seconds``
    (PostgreSQL; the session's transaction is then rolled back)."""
    for _ in range(3):  # a row found then pruned before it is read: claim again
        if _insert(session, scope, request, wait_seconds):
            return None
        row = session.get(IdempotencyKey, scope.primary_key(), populate_existing=True)
        if row is None:
            continue
        if row.fingerprint != request.digest:
            raise KeyReused(row.method, row.path)
        if row.status == PENDING:  # never committed so; refused rather than answered
            raise KeyInProgress()
        return Outcome(row.status, dict(row.body))
    raise KeyInProgress()


def record(session: Session, scope: Scope, outcome: Outcome) -> None:
    """Store the outcome in the claimed row (the caller commits it with the write)."""
    session.execute(
        update(IdempotencyKey)
        .where(*_is(scope))
        .values(status=outcome.status, body=outcome.body)
        .execution_options(synchronize_session=False)
    )


def prune(session: Session, older_than: dt.datetime) -> int:
    """Delete the outcomes stored before ``older_than`` (its own transaction); how many."""
    deleted = execute_counted(session, delete(IdempotencyKey).where(IdempotencyKey.created_at < older_than))
    session.commit()
    return deleted


def prune_now_and_then(
    session: Session, state: MutableMapping[str, Any], *, every_seconds: float, retention_seconds: float
) -> int | None:
    """``prune`` what is older than ``retention_seconds``, at most once ``every_seconds`` in
    this process (``state[PRUNED_AT]``) and by one thread at a time; ``None``: not due."""
    if not _pruning.acquire(blocking=False):
        return None
    try:
        last = state.get(PRUNED_AT)
        now = time.monotonic()
        if last is not None and now - last < every_seconds:
            return None
        state[PRUNED_AT] = now
        return prune(session, dt.datetime.now(dt.UTC) - dt.timedelta(seconds=retention_seconds))
    finally:
        _pruning.release()


# --- the claim -----------------------------------------------------------------------------


def _is(scope: Scope) -> list[Any]:
    return [*owned_by(IdempotencyKey, scope.supplier_id, scope.identity), IdempotencyKey.key == scope.key]


def _insert(session: Session, scope: Scope, request: Fingerprint, wait_seconds: float) -> bool:
    """Insert the key's pending row; ``False`` when it is already there (committed)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = (
        insert(IdempotencyKey)
        .values(
            supplier_id=scope.supplier_id,
            identity_kind=scope.identity.kind.value,
            identity_id=scope.identity.value,
            key=scope.key,
            fingerprint=request.digest,
            method=request.method,
            path=request.path,
            status=PENDING,
            body={},
            created_at=dt.datetime.now(dt.UTC),
        )
        .on_conflict_do_nothing()
        .returning(IdempotencyKey.key)  # a row: inserted (rowcount is not reliable here on psycopg)
    )
    if dialect != "postgresql":
        # SQLite: the insert takes the database's write lock, waiting (busy timeout) for the writer
        # holding it, the one with this key included.
        return session.execute(statement).first() is not None
    # An uncommitted row with this key makes the insert wait for its transaction: at most
    # wait_seconds, for this statement only (lock_timeout is set back for the write's own locks).
    timeout = f"{max(1, round(wait_seconds * 1000))}ms" if wait_seconds > 0 else "0"
    session.execute(text("SELECT set_config('lock_timeout', :timeout, true)"), {"timeout": timeout})
    try:
        inserted = session.execute(statement).first() is not None
    except OperationalError as error:
        if sqlstate(error) != LOCK_NOT_AVAILABLE:
            raise
        session.rollback()
        raise KeyInProgress() from error
    session.execute(text("SET LOCAL lock_timeout TO DEFAULT"))
    return inserted

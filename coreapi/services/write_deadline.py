"""The time a shopper's write may take: committed within ``WRITE_DEADLINE_SECONDS`` of the request's arrival, or
rolled back.

prerender stops waiting for a write after its read timeout (3 s, ``PRERENDER_UPSTREAM_READ_TIMEOUT``) and the
browser learns that the outcome is unknown; the SDK then sends the write again with its ``Idempotency-Key``. A
write committed after that was applied while its answer was lost, and a retry arriving before its commit found
it in progress (409). So a write has less time than its client waits, counted from the request's arrival (its
wait for a connection of the pool included), and its waits end with it:

- on PostgreSQL, once ``armed`` (after the idempotency claim, which has its own wait), every statement of the
  transaction is sent with ``lock_timeout`` and ``statement_timeout`` cut to what is left of the whole write
  (``bound_statements``, an engine listener): a row another transaction keeps locked (a stuck write, an
  operator's session) is ``WriteBusy`` at the deadline, and a slow statement ``WriteTooLate``, instead of a
  connection and a worker held for as long as the lock or the statement lasts;
- before it commits, a write past its deadline is rolled back (``WriteTooLate``), on SQLite too.

Either way nothing was written, and the same request may be sent again with its key.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, event, exc

# PostgreSQL's lock_not_available (a lock wait ran past lock_timeout) and query_canceled (statement_timeout).
LOCK_NOT_AVAILABLE = "55P03"
QUERY_CANCELED = "57014"
# A statement gets more than a lock wait, so that a wait for a lock ends as one (WriteBusy), even on a loaded
# server; the check before the commit holds the deadline itself.
STATEMENT_MARGIN_MS = 500

# The deadline the current context's statements are cut to (PostgreSQL), None: none.
_armed: ContextVar[WriteDeadline | None] = ContextVar("coreapi_write_deadline", default=None)


class WriteBusy(Exception):
    """A row the write needed stayed locked by another transaction until the write's deadline."""


class WriteTooLate(Exception):
    """The write ran past its deadline: rolled back."""


@dataclass(frozen=True)
class WriteDeadline:
    """When a write must be committed by (``time.monotonic()``)."""

    ends_at: float

    @classmethod
    def start(cls, seconds: float, *, arrived: float | None = None) -> WriteDeadline:
        """``seconds`` from ``arrived`` (the request's arrival, ``time.monotonic()``), else from now."""
        return cls((time.monotonic() if arrived is None else arrived) + seconds)

    def left(self) -> float:
        return self.ends_at - time.monotonic()

    def arm(self) -> None:
        """From now on, in this context, every statement is cut to what is left (PostgreSQL); ``disarm`` ends it."""
        _armed.set(self)

    def check(self) -> None:
        """Before the commit: ``WriteTooLate`` when the deadline has passed (the caller rolls back)."""
        if self.left() <= 0:
            raise WriteTooLate()


def disarm() -> None:
    """The write is over (committed or rolled back): statements are no longer cut."""
    _armed.set(None)


def bound_statements(engine: Engine) -> None:
    """On PostgreSQL, cut each statement sent while a deadline is armed to what is left of it (one ``set_config``
    round trip before the statement, for the transaction only)."""
    if engine.dialect.name == "postgresql":
        event.listen(engine, "before_cursor_execute", _cut_to_deadline)


def _cut_to_deadline(
    _connection: Any, cursor: Any, _statement: str, _parameters: Any, _context: Any, _executemany: bool
) -> None:
    deadline = _armed.get()
    if deadline is None:
        return
    left = round(deadline.left() * 1000)
    lock, statement = (left, left + STATEMENT_MARGIN_MS) if left >= 1 else (1, 1)  # past it: cut at once
    cursor.execute(
        "SELECT set_config('lock_timeout', %(lock)s, true), set_config('statement_timeout', %(statement)s, true)",
        {"lock": f"{lock}ms", "statement": f"{statement}ms"},
    )


def cut_short(error: exc.OperationalError) -> WriteBusy | WriteTooLate | None:
    """What a database error raised under an armed deadline means for the write: a lock it waited for
    (``WriteBusy``), a statement cut at the deadline (``WriteTooLate``), or neither (``None``: another failure)."""
    code = sqlstate(error)
    if code == LOCK_NOT_AVAILABLE:
        return WriteBusy()
    if code == QUERY_CANCELED:
        return WriteTooLate()
    return None


def sqlstate(error: exc.DBAPIError) -> str | None:
    """PostgreSQL's SQLSTATE of a database error (psycopg's), None for another database's."""
    code = getattr(error.orig, "sqlstate", None)
    return code if isinstance(code, str) else None

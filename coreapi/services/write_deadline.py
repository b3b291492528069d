"""The time a shopper's write may take: committed within ``WRITE_DEADLINE_SECONDS`` of its start, or rolled back.

prerender stops waiting for a write after its read timeout (3 s, ``PRERENDER_UPSTREAM_READ_TIMEOUT``) and the
browser learns that the outcome is unknown; the SDK then sends the write again with its ``Idempotency-Key``. A
write committed after that was applied while its answer was lost, and a retry arriving before its commit found
it in progress (409). So a write has less time than its client waits, and its waits end with it:

- on PostgreSQL, its lock waits and statements are cut to what is left (``lock_timeout`` and
  ``statement_timeout``, for its transaction only): a row another transaction keeps locked (a stuck write, an
  operator's session) is ``WriteBusy`` at the deadline, instead of a connection and a worker held for as long
  as the lock lasts;
- before it commits, a write past its deadline is rolled back (``WriteTooLate``), on SQLite too.

Either way nothing was written, and the same request may be sent again with its key.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flask import Flask, Response
from sqlalchemy import exc, text
from sqlalchemy.orm import Session

from plumbing.problems import problem_response

# PostgreSQL's lock_not_available (a lock wait ran past lock_timeout) and query_canceled (statement_timeout).
LOCK_NOT_AVAILABLE = "55P03"
QUERY_CANCELED = "57014"
STATEMENT_MARGIN_MS = 100


class WriteBusy(Exception):
    """A row the write needed stayed locked by another transaction until the write's deadline."""


class WriteTooLate(Exception):
    """The write ran past its deadline: rolled back."""


@dataclass(frozen=True)
class WriteDeadline:
    """When a write must be committed by (``time.monotonic()``)."""

    ends_at: float

    @classmethod
    def start(cls, seconds: float) -> WriteDeadline:
        return cls(time.monotonic() + seconds)

    def left(self) -> float:
        return self.ends_at - time.monotonic()

    def bound(self, session: Session) -> None:
        """Cut the transaction's lock waits and statements to what is left (PostgreSQL; SQLite has one writer at a
        time, and its own busy timeout). Call it again after anything that changes ``lock_timeout``."""
        if session.get_bind().dialect.name != "postgresql":
            return
        left = max(1, round(self.left() * 1000))
        # A statement gets a little more than a lock wait, so that a wait for a lock ends as one (WriteBusy);
        # the check before the commit holds the deadline itself.
        settings = {"lock_timeout": left, "statement_timeout": left + STATEMENT_MARGIN_MS}
        for setting, milliseconds in settings.items():
            session.execute(
                text("SELECT set_config(:setting, :value, true)"), {"setting": setting, "value": f"{milliseconds}ms"}
            )

    def check(self) -> None:
        """Before the commit: ``WriteTooLate`` when the deadline has passed (the caller rolls back)."""
        if self.left() <= 0:
            raise WriteTooLate()


def cut_short(error: exc.OperationalError) -> WriteBusy | WriteTooLate | None:
    """What a database error raised under ``bound`` means for the write: a lock it waited for (``WriteBusy``),
    a statement cut at the deadline (``WriteTooLate``), or neither (``None``: another failure)."""
    code = getattr(error.orig, "sqlstate", None)
    if code == LOCK_NOT_AVAILABLE:
        return WriteBusy()
    if code == QUERY_CANCELED:
        return WriteTooLate()
    return None


def pool_exhausted(_error: exc.TimeoutError) -> Response:
    """No connection of the pool came free within ``DATABASE_POOL_TIMEOUT_SECONDS`` (every one held by a request,
    as when rows stay locked): a 503 at once, nothing done, rather than a wait past what any client waits."""
    return problem_response(
        503, "The service is busy; nothing was done: retry in a moment.", headers={"Retry-After": "1"}
    )


def register_database_errors(app: Flask) -> None:
    """A request that found no free connection is a 503 (a read or a write alike)."""
    app.register_error_handler(exc.TimeoutError, pool_exhausted)

"""A request holds a PostgreSQL connection ``DATABASE_HOLD_SECONDS`` at most: past it, coreapi cuts the connection.

coreapi's waits on a database that answers slowly have limits on the server's side or the pool's: a write's
``lock_timeout`` and ``statement_timeout`` (coreapi/services/write_deadline.py), ``DATABASE_POOL_TIMEOUT_SECONDS``.
A database that does not answer at all (a hung server, or a proxy before it whose kernel still acknowledges the
packets, so that TCP keepalives see nothing) held a request blocked in a socket read for as long as it hung: the
worker's greenlet or thread, a connection of the pool, and ``/healthz`` unanswered (docs/decisions.md, "the
eighteenth outside check").

While a request runs (``watch_this_context``), each connection it takes from the pool is watched: one thread per
process (a greenlet under gevent's workers) shuts down the socket of a connection held past the limit. The read
blocked on it ends at once as a lost connection (psycopg's ``OperationalError``): SQLAlchemy discards the connection
and the pool's older ones, the server rolls back what its transaction did, and the request answers 503
(``database_unavailable`` in coreapi/blueprints/writes.py), alike under gevent and threads. A write whose ``COMMIT``
was cut may have been committed by a server that answers later: its retry with the same ``Idempotency-Key`` then
answers the stored outcome, applied once either way.

The pool's own ping of a connection it hands out (``pool_pre_ping``) runs before any checkout listener, outside
the watch: coreapi pings in its checkout listener instead, once the connection is watched (a new one is not
pinged, as SQLAlchemy's). A new connection is watched from its making, its wait for the server libpq's
``connect_timeout`` (coreapi/config.py). The request's session is closed while its connection is still watched
(``end_watch`` in coreapi/blueprints/writes.py): a cut of its closing rollback is a log line, not an error after the
answer was made. On PostgreSQL 14 and later, the server cancels the statement of a connection coreapi cut
(``CLIENT_CONNECTION_CHECK_MS``). Outside a request (migrations, the seed, the CLI) nothing is watched: a migration
takes its time.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import Engine, event, exc
from sqlalchemy.pool import ConnectionPoolEntry

log = logging.getLogger(__name__)

# A connection's `info` (SQLAlchemy keeps it for the life of the DBAPI connection) holds this while it was made for
# the checkout to come, which does not ping it.
_FRESH = "coreapi_fresh"

# PostgreSQL 14 and later check this often (milliseconds) whether the client of a running statement is still
# connected, and cancel the statement when it is not: the server's side of a connection coreapi cut (a lock wait, a
# long read of a database that is slow but alive) stops at once, rather than run on while the request's retry opens
# another backend (they piled up past the pool's size without it).
CLIENT_CONNECTION_CHECK_MS = 1000

# The request whose connections taken from the pool in this context are watched (its id, for the log), None: none.
_watching: ContextVar[str | None] = ContextVar("coreapi_watching_connections", default=None)


def watch_this_context(request_id: str) -> Token[str | None]:
    """From now on, the connections taken from the pool in this context are watched (a request's start)."""
    return _watching.set(request_id)


def stop_watching(token: Token[str | None]) -> None:
    """The request is over: what ``watch_this_context`` returned."""
    _watching.reset(token)


@dataclass(frozen=True)
class _Held:
    entry: ConnectionPoolEntry
    until: float  # time.monotonic()
    request_id: str


class ConnectionWatchdog:
    """Shuts down the socket of each watched connection still held ``hold_seconds`` after it was taken. One thread
    per process, started by the first watch in that process (gunicorn forks its workers after the app is made)."""

    def __init__(self, *, hold_seconds: float) -> None:
        self.hold_seconds = hold_seconds
        self._held: dict[int, _Held] = {}  # id(entry): the entry is kept here, so its id is not reused meanwhile
        self._changed = threading.Condition()
        self._running_in: int | None = None  # the process the thread runs in
        self._wakes_at: float | None = None  # when the thread wakes next (None: when told)

    def watch(self, entry: ConnectionPoolEntry, request_id: str) -> None:
        """``entry``'s connection was made or taken from the pool for the request ``request_id``: cut it if it is
        still held after ``hold_seconds`` (from when it was first watched, when it is watched already)."""
        with self._changed:
            if self._running_in != os.getpid():
                self._running_in = os.getpid()
                threading.Thread(target=self._run, name="coreapi-connection-watchdog", daemon=True).start()
            if id(entry) in self._held:
                return
            until = time.monotonic() + self.hold_seconds
            self._held[id(entry)] = _Held(entry, until, request_id)
            if self._wakes_at is None or until < self._wakes_at:  # sooner than the thread wakes (a shorter hold)
                self._changed.notify()

    def release(self, entry: ConnectionPoolEntry) -> None:
        """``entry``'s connection went back to the pool or was discarded: no longer watched."""
        with self._changed:
            self._held.pop(id(entry), None)

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                for key, held in list(self._held.items()):
                    if held.until <= now:
                        del self._held[key]
                        self._cut(held)
                self._wakes_at = min((held.until for held in self._held.values()), default=None)
                self._changed.wait(None if self._wakes_at is None else self._wakes_at - now)

    def _cut(self, held: _Held) -> None:
        connection = held.entry.dbapi_connection
        if connection is None:
            return
        try:
            # shutdown() acts on the connection itself, which a duplicate of its descriptor shares; closing the
            # duplicate leaves the driver's own descriptor to the driver.
            with socket.socket(fileno=os.dup(connection.fileno())) as duplicate:
                duplicate.shutdown(socket.SHUT_RDWR)
        except (psycopg.Error, OSError) as error:  # closed meanwhile (psycopg: "the connection is closed")
            log.info("a database connection held too long was closed already: %s", error)
            return
        # The database did not answer in time, or (no such request today) the request held the connection idle.
        log.warning("cut the database connection request %s held over %.1f s", held.request_id, self.hold_seconds)


def bound_connection_holds(engine: Engine, watchdog: ConnectionWatchdog) -> None:
    """On PostgreSQL, watch each connection a request takes from ``engine``'s pool, after pinging it within the
    watch (the engine has no ``pool_pre_ping``: coreapi/config.py leaves it out there)."""
    if engine.dialect.name != "postgresql":
        return
    dialect = engine.dialect

    def watch_in_a_request(_connection: Any, entry: ConnectionPoolEntry, *_args: Any) -> None:
        request_id = _watching.get()
        if request_id is not None:
            watchdog.watch(entry, request_id)

    def on_connect(connection: Any, entry: ConnectionPoolEntry) -> None:
        entry.info[_FRESH] = True
        if connection.info.server_version >= 140000:
            with connection.cursor() as cursor:
                cursor.execute(f"SET client_connection_check_interval = {CLIENT_CONNECTION_CHECK_MS}")
            connection.commit()

    def on_checkout(connection: Any, entry: ConnectionPoolEntry, proxy: Any) -> None:
        watch_in_a_request(connection, entry, proxy)
        if entry.info.pop(_FRESH, False):
            return
        try:
            dialect.do_ping(connection)
        except dialect.loaded_dbapi.Error as error:
            # Lost, or cut while the database did not answer: the pool discards it and its older connections, and
            # hands out a new one (within connect_timeout), as SQLAlchemy's pre-ping does.
            raise exc.InvalidatePoolError() from error

    def on_release(_connection: Any, entry: ConnectionPoolEntry, *_args: Any) -> None:
        watchdog.release(entry)

    # A new connection is watched from the start: SQLAlchemy's first_connect (the dialect's own queries, once per
    # process) and connect listeners run before the checkout's.
    event.listen(engine, "first_connect", watch_in_a_request, insert=True)
    event.listen(engine, "connect", watch_in_a_request, insert=True)
    event.listen(engine, "connect", on_connect)
    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", on_release)
    event.listen(engine, "invalidate", on_release)

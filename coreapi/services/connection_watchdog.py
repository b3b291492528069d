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
pinged, as SQLAlchemy's). A new connection's wait is libpq's ``connect_timeout`` (coreapi/config.py). Outside a
request (migrations, the seed, the CLI) nothing is watched: a migration takes its time.
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

# Whether the connections taken from the pool in this context are watched (True while a request runs).
_watching: ContextVar[bool] = ContextVar("coreapi_watching_connections", default=False)


def watch_this_context() -> Token[bool]:
    """From now on, the connections taken from the pool in this context are watched (a request's start)."""
    return _watching.set(True)


def stop_watching(token: Token[bool]) -> None:
    """The request is over: what ``watch_this_context`` returned."""
    _watching.reset(token)


@dataclass(frozen=True)
class _Held:
    entry: ConnectionPoolEntry
    until: float  # time.monotonic()


class ConnectionWatchdog:
    """Shuts down the socket of each watched connection still held ``hold_seconds`` after it was taken. One thread
    per process, started by the first watch in that process (gunicorn forks its workers after the app is made)."""

    def __init__(self, *, hold_seconds: float) -> None:
        self.hold_seconds = hold_seconds
        self._held: dict[int, _Held] = {}  # id(entry): the entry is kept here, so its id is not reused meanwhile
        self._changed = threading.Condition()
        self._running_in: int | None = None  # the process the thread runs in
        self._wakes_at: float | None = None  # when the thread wakes next (None: when told)

    def watch(self, entry: ConnectionPoolEntry) -> None:
        """``entry``'s connection was taken from the pool: cut it if it is still held after ``hold_seconds``."""
        with self._changed:
            if self._running_in != os.getpid():
                self._running_in = os.getpid()
                threading.Thread(target=self._run, name="coreapi-connection-watchdog", daemon=True).start()
            until = time.monotonic() + self.hold_seconds
            self._held[id(entry)] = _Held(entry, until)
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
                        self._cut(held.entry)
                self._wakes_at = min((held.until for held in self._held.values()), default=None)
                self._changed.wait(None if self._wakes_at is None else self._wakes_at - now)

    def _cut(self, entry: ConnectionPoolEntry) -> None:
        connection = entry.dbapi_connection
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
        log.warning("cut a database connection held over %.1f s: the database did not answer", self.hold_seconds)


def bound_connection_holds(engine: Engine, watchdog: ConnectionWatchdog) -> None:
    """On PostgreSQL, watch each connection a request takes from ``engine``'s pool, after pinging it within the
    watch (the engine has no ``pool_pre_ping``: coreapi/config.py leaves it out there)."""
    if engine.dialect.name != "postgresql":
        return
    dialect = engine.dialect

    def on_connect(_connection: Any, entry: ConnectionPoolEntry) -> None:
        entry.info[_FRESH] = True

    def on_checkout(connection: Any, entry: ConnectionPoolEntry, _proxy: Any) -> None:
        if _watching.get():
            watchdog.watch(entry)
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

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", on_release)
    event.listen(engine, "invalidate", on_release)

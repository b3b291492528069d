"""A bulkhead for one upstream resource: at most `limit` calls to it in flight per worker process.

When they are all taken, a call waits for a place only if fewer than `queue` calls are waiting already, and only
as long as its request's budget leaves time to make the call after the wait; otherwise it is shed at once
(`Shed`, nothing sent). So a spike costs the upstream no more than `limit` calls per worker at a time, and a
request that could not be served within its budget is refused at once instead of discovered by a timeout: a
fragment answers its degraded form, a browser's JSON route 503 with Retry-After (prerender/web/errors.py).

The semaphore and lock are threading's: patched by gevent's workers into greenlet-aware ones, real locks under
gthread (gunicorn.conf.py).

The log says when the bulkhead starts shedding and when it has shed nothing for QUIET_SECONDS (said by the next
call that goes through), with how many were shed meanwhile: two lines for a spike or a steady overload, however
many calls get a place between the shed ones, not one per shed call (the requests' own lines are at INFO,
prerender/gateway/fallbacks.py).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from prerender.gateway.errors import Shed

log = logging.getLogger(__name__)

# How long a bulkhead must shed nothing before its log says calls go through again.
QUIET_SECONDS = 10.0


class Bulkhead:
    """Places for the calls to one resource."""

    def __init__(self, *, name: str, limit: int, queue: int, clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 1 or queue < 0:
            raise ValueError("a bulkhead holds one call at least, and a queue of 0 or more")
        self.name = name
        self.limit = limit
        self.queue = queue
        self.clock = clock
        self._places = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._waiting = 0
        self._shed = 0  # calls shed since it started shedding (0: not shedding)
        self._last_shed = 0.0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def waiting(self) -> int:
        return self._waiting

    @contextlib.contextmanager
    def place(self, *, wait: float) -> Iterator[None]:
        """Hold a place for one call, waiting at most `wait` seconds for one; Shed when none came."""
        if not self._places.acquire(blocking=False):
            with self._lock:
                queued = not (wait <= 0 or self._waiting >= self.queue)
                if queued:
                    self._waiting += 1
            if not queued:
                raise self._shedding()
            try:
                acquired = self._places.acquire(timeout=wait)
            finally:
                with self._lock:
                    self._waiting -= 1
            if not acquired:
                raise self._shedding()
        with self._lock:
            self._in_flight += 1
            shed = self._shed if self._shed and self.clock() - self._last_shed >= QUIET_SECONDS else 0
            if shed:
                self._shed = 0
        if shed:
            log.warning(
                "bulkhead for %s: calls go through again, none shed for %g s (%d shed before)",
                self.name,
                QUIET_SECONDS,
                shed,
            )
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
            self._places.release()

    def _shedding(self) -> Shed:
        """One more call shed: the error to raise, logged when it starts a time of shedding."""
        with self._lock:
            self._shed += 1
            self._last_shed = self.clock()
            first = self._shed == 1
            in_flight, waiting = self._in_flight, self._waiting
        if first:
            log.warning(
                "bulkhead for %s full (%d calls in flight, %d waiting): shedding calls", self.name, in_flight, waiting
            )
        return Shed(self.name)

"""A bulkhead for one upstream resource: at most `limit` calls to it in flight per worker process.

When they are all taken, a call waits for a place only if fewer than `queue` calls are waiting already, and only
as long as its request's budget leaves time to make the call after the wait; otherwise it is shed at once
(`Shed`, nothing sent). So a spike costs the upstream no more than `limit` calls per worker at a time, and a
request that could not be served within its budget is refused at once instead of discovered by a timeout: a
fragment answers its degraded form, a browser's JSON route 503 with Retry-After (prerender/web/errors.py).

The semaphore and lock are threading's: patched by gevent's workers into greenlet-aware ones, real locks under
gthread (gunicorn.conf.py).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from prerender.gateway.errors import Shed


class Bulkhead:
    """Places for the calls to one resource."""

    def __init__(self, *, name: str, limit: int, queue: int) -> None:
        if limit < 1 or queue < 0:
            raise ValueError("a bulkhead holds one call at least, and a queue of 0 or more")
        self.name = name
        self.limit = limit
        self.queue = queue
        self._places = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._waiting = 0

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
                if wait <= 0 or self._waiting >= self.queue:
                    raise Shed(self.name)
                self._waiting += 1
            try:
                acquired = self._places.acquire(timeout=wait)
            finally:
                with self._lock:
                    self._waiting -= 1
            if not acquired:
                raise Shed(self.name)
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
            self._places.release()

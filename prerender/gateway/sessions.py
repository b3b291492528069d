"""A pool of requests.Sessions: each call borrows one and gives it back, so a session (and its kept-alive
connections) serves one call at a time and is reused by the next, whatever runs the calls.

One session per thread (`threading.local`) would do with gthread workers, but under gevent workers
(gunicorn.conf.py) `threading.local` is patched to be per greenlet, and every request, a new greenlet, would
make a new session and a new upstream connection. Borrowing works the same for threads and greenlets: the
pool holds as many sessions as calls ever ran at once. A process never uses a session made before it was
forked (the parent still uses their sockets)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

import requests


class SessionPool:
    """Sessions made by `factory` when none is free, lent to one call at a time."""

    def __init__(self, *, factory: Callable[[], requests.Session]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._free: list[requests.Session] = []
        self._pid = os.getpid()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[requests.Session]:
        """A session for one call, back in the pool when the call is over."""
        session = self._take()
        try:
            yield session
        finally:
            with self._lock:
                if self._pid == os.getpid():
                    self._free.append(session)

    def _take(self) -> requests.Session:
        pid = os.getpid()
        with self._lock:
            if self._pid != pid:  # a forked child: the parent's sessions are not ours
                self._free = []
                self._pid = pid
            if self._free:
                return self._free.pop()  # the most recently used: its connections are the likeliest alive
        return self._factory()

    def __len__(self) -> int:
        """The free sessions."""
        return len(self._free)

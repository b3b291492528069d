"""One requests.Session per thread for the shop's HTTP clients (prerender and the catalog), made on the thread's
first call: page threads never share one, and a worker never uses a session made before it was forked."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter


def pooled_session(*, pool_size: int) -> requests.Session:
    """A session keeping up to `pool_size` connections to one host, never retrying (a late answer is no answer)."""
    session = requests.Session()
    adapter = HTTPAdapter(pool_connections=1, pool_maxsize=pool_size, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class ThreadLocalSessions:
    """The calling thread's session, made by `factory` on first use in each thread (and again after a fork)."""

    def __init__(self, *, factory: Callable[[], requests.Session]) -> None:
        self._factory = factory
        self._local = threading.local()

    def get(self) -> requests.Session:
        """This thread's session, created on its first call."""
        # A forked child keeps the forking thread's locals: the pid tells a session made before the fork
        # (whose pooled sockets the parent still uses) from one of this process.
        pid = os.getpid()
        if getattr(self._local, "pid", None) != pid:
            self._local.session = self._factory()
            self._local.pid = pid
        session: requests.Session = self._local.session
        return session

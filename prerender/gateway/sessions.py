"""One requests.Session per thread, made on the thread's first call: gthread workers never share one, and a
process never uses a session made before it was forked."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import requests


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

"""A warning anyone may cause many times a second (a request without supplier-token, which the specification logs
and serves): written at once, then at most once a period, saying how many like it were left out since. A flood of
such requests must not become a flood of log lines (docs/operations.md, "Degraded answers")."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable


class ThrottledWarning:
    """One logger's warning of one kind, at most once every `seconds` (per process: each worker counts its own)."""

    def __init__(self, logger: logging.Logger, *, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.seconds = seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._next = float("-inf")
        self._left_out = 0

    def warn(self, message: str, *args: object) -> None:
        """Log `message % args` now, unless one was within the period: then count it for the next line."""
        with self._lock:
            now = self.clock()
            if now < self._next:
                self._left_out += 1
                return
            left_out, self._left_out = self._left_out, 0
            self._next = now + self.seconds
        if left_out:
            self.logger.warning(f"{message} (and %d more like it since the last such line)", *args, left_out)
        else:
            self.logger.warning(message, *args)

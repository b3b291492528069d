"""A circuit breaker for the upstream: stop calling an upstream that keeps failing, probe it after a pause.

closed    every call goes through; `threshold` failures in a row open the circuit.
open      calls fail at once with UpstreamUnavailable (a card renders empty without waiting for timeouts),
          until `cooldown` seconds have passed.
half-open one call (the probe) goes through, the others still fail fast: its success closes the circuit,
          its failure opens it again for another `cooldown`.

Per process: each gunicorn worker learns on its own, which needs no shared state and errs on the safe side.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from prerender.gateway.errors import UpstreamUnavailable
from prerender.metrics import BREAKER_STATE, BREAKER_VALUES

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"


class CircuitBreaker:
    """Thread-safe breaker state for one upstream."""

    def __init__(self, *, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self.clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> str:
        with self._lock:
            if self._opened_at is None:
                return CLOSED
            return HALF_OPEN if self._probing or self._due() else OPEN

    def before_call(self, endpoint: str) -> None:
        """Let the call through, or fail it fast while the circuit is open."""
        with self._lock:
            if self._opened_at is None:
                return
            if self._due() and not self._probing:
                self._probing = True  # this call is the probe
                BREAKER_STATE.set(BREAKER_VALUES[HALF_OPEN])
                return
        raise UpstreamUnavailable(f"circuit open, upstream not called for {endpoint}")

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._probing = False
        BREAKER_STATE.set(BREAKER_VALUES[CLOSED])

    def record_failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._probing or self._failures >= self.threshold:
                self._opened_at = self.clock()
            self._probing = False
        BREAKER_STATE.set(BREAKER_VALUES[self.state])

    def _due(self) -> bool:
        return self._opened_at is not None and self.clock() - self._opened_at >= self.cooldown

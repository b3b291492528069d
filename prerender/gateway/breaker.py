"""A circuit breaker for one upstream resource: stop calling it while most calls to it fail, probe it after a pause.

closed    every call goes through. The outcomes of the last `window` seconds are counted; once at least
          `minimum_calls` of them are known and `failure_rate` or more of those failed, the circuit opens.
open      calls fail at once (`CircuitOpen`: a card renders from a stale copy or empty without waiting for
          timeouts, a browser's write is refused with 503 and Retry-After) until `cooldown` seconds have passed.
half-open `probes` calls go through together, the others still fail fast. When all of them succeed the circuit
          closes with an empty window; the first that fails opens it again for another `cooldown`.

What counts (prerender/gateway/http.py decides): an unreachable upstream, a 502, 503 or 504, an unusable answer and
a timeout after a fair wait are failures; any other answer (a 4xx too: the upstream is alive) is a success. A 500,
an error of the upstream's own in answering one request (which a caller could cause again and again), is no
evidence either way. A call the
upstream was never asked to answer in fair time is no evidence either way: not sent because the request's budget
was spent, shed by the bulkhead, or cut by the request's own budget before `slow_call_seconds` (the caller's
impatience, not the upstream's failure). Such calls leave the window as it was (`record_ignored`).

Per process, per resource and per tenant (prerender/gateway/guards.py, tenant_breakers.py): each gunicorn worker
learns on its own, which needs no shared state and errs on the safe side, a failing catalog never stops a basket
write, and one retailer's failing calls open its own breaker, not the other retailers'.

Each change of state is one log line (opened, with why; half-open; closed again) and is told to `on_change` (the
state gauge). An open circuit's cooldown ending changes its state without any call: `wake` (when given) calls
back then, so that the gauge says half-open on time even if nothing calls the resource.
docs/decisions.md ("Circuit breakers per resource, on a failure rate") has the reasons and the numbers.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from prerender.gateway.errors import CircuitOpen

log = logging.getLogger(__name__)

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"
STATE_VALUES = {CLOSED: 0, HALF_OPEN: 1, OPEN: 2}


@dataclass(frozen=True, kw_only=True)
class BreakerPolicy:
    """When a breaker opens and how it closes again (README.md, PRERENDER_UPSTREAM_BREAKER_*)."""

    failure_rate: float = 0.5
    window: float = 10.0
    minimum_calls: int = 20
    cooldown: float = 5.0
    probes: int = 3
    # A timeout counts as a failure only when the call was given at least this long to answer.
    slow_call_seconds: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.failure_rate <= 1:
            raise ValueError("the breaker's failure rate is a fraction in (0, 1]")
        if self.window < 1 or self.minimum_calls < 1 or self.probes < 1 or self.cooldown <= 0:
            raise ValueError("the breaker's window (>= 1 s), minimum calls, probes and cooldown must be positive")


class CircuitBreaker:
    """Thread-safe (and greenlet-safe: gevent patches the lock) breaker state of one resource.

    A caller asks `allow()` before its call: it raises CircuitOpen, or returns whether the call is a probe; the
    caller then reports the outcome with the same flag (`record_success`, `record_failure`, `record_ignored`).
    `on_change` is told each new state (the metrics); `wake(seconds, callback)` calls back after that many seconds
    (the cooldown's end), from another thread."""

    def __init__(
        self,
        *,
        name: str,
        policy: BreakerPolicy,
        label: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[str, str], None] | None = None,
        wake: Callable[[float, Callable[[], None]], None] | None = None,
    ) -> None:
        self.name = name
        # What its log lines call it (a tenant's breaker names its tenant: prerender/gateway/tenant_breakers.py).
        self.label = label or name
        self.policy = policy
        self.clock = clock
        self._on_change = on_change
        self._wake = wake
        self._opened_because = ""
        self._lock = threading.Lock()
        # The window: one [second, calls, failures] bucket per second that had an outcome, oldest first.
        self._buckets: collections.deque[list[int]] = collections.deque()
        self._calls = 0
        self._failures = 0
        self._opened_at: float | None = None
        self._probes_out = 0
        self._probes_passed = 0
        self._reported = CLOSED

    @property
    def state(self) -> str:
        """closed, open or half-open (read without the lock: each field is read atomically, and a report may lag
        a concurrent change by one call)."""
        return self._state()

    def retry_after(self) -> float:
        """Seconds until the circuit lets a probe through (0 when it is not open)."""
        with self._lock:
            return self._cooldown_left()

    def counts(self) -> tuple[int, int]:
        """(calls, failures) in the window now."""
        with self._lock:
            self._expire(self.clock())
            return self._calls, self._failures

    def allow(self) -> bool:
        """Let the call through (True when it is a probe of the half-open circuit), or raise CircuitOpen."""
        with self._lock:
            if self._opened_at is None:
                return False
            if self._due() and self._probes_out + self._probes_passed < self.policy.probes:
                self._probes_out += 1
                probe = True
            else:
                probe = False
                wait = self._cooldown_left()
        if probe:
            self._report()
            return True
        raise CircuitOpen(self.name, retry_after=max(1, math.ceil(wait)))

    def record_success(self, probe: bool) -> None:
        with self._lock:
            if probe:
                if self._probes_out > 0:  # else a probe of a round that ended (`_open`): no evidence now
                    self._probes_out -= 1
                    self._probes_passed += 1
                    if self._probes_passed >= self.policy.probes:
                        self._close()
            elif self._opened_at is None:
                self._count(failed=False)
        self._report()

    def record_failure(self, probe: bool) -> None:
        with self._lock:
            if probe:
                if self._probes_out > 0:
                    self._open("a probe failed")
            elif self._opened_at is None:
                self._count(failed=True)
        self._report()

    def record_ignored(self, probe: bool) -> None:
        """A call that says nothing of the upstream's health: a probe's place goes to the next caller."""
        if probe:
            with self._lock:
                self._probes_out = max(0, self._probes_out - 1)

    def _count(self, *, failed: bool) -> None:
        now = self.clock()
        self._expire(now)
        second = int(now)
        if not self._buckets or self._buckets[-1][0] != second:
            self._buckets.append([second, 0, 0])
        bucket = self._buckets[-1]
        bucket[1] += 1
        self._calls += 1
        if failed:
            bucket[2] += 1
            self._failures += 1
        # Judged after every outcome, as resilience4j does: a success can be the call that reaches the minimum.
        if self._calls >= self.policy.minimum_calls and self._failures >= self.policy.failure_rate * self._calls:
            self._open(f"{self._failures} of its last {self._calls} calls failed")

    def _expire(self, now: float) -> None:
        oldest = int(now) - int(self.policy.window) + 1
        while self._buckets and self._buckets[0][0] < oldest:
            _, calls, failures = self._buckets.popleft()
            self._calls -= calls
            self._failures -= failures

    def _open(self, because: str) -> None:
        """Open (again): the probes still out belong to a round that is over, and their outcomes, which come within
        their call's timeout (shorter than the cooldown, so before the next round), are ignored."""
        self._opened_at = self.clock()
        self._opened_because = because
        self._probes_out = 0
        self._probes_passed = 0

    def _close(self) -> None:
        self._opened_at = None
        self._probes_out = 0
        self._probes_passed = 0
        self._buckets.clear()
        self._calls = self._failures = 0

    def _cooldown_left(self) -> float:
        """Seconds until the open circuit lets probes through (0 when closed or due)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.policy.cooldown - self.clock())

    def _due(self) -> bool:
        return self._opened_at is not None and self._cooldown_left() == 0.0

    def _state(self) -> str:
        if self._opened_at is None:
            return CLOSED
        return HALF_OPEN if self._probes_out or self._probes_passed or self._due() else OPEN

    def _cooldown_over(self) -> None:
        """`wake`'s call: report the state the cooldown's end leaves, or wait again if a new opening moved it."""
        left = self.retry_after()
        if left > 0 and self._wake is not None:
            self._wake(left, self._cooldown_over)
            return
        self._report()

    def _report(self) -> None:
        """Log a new state and tell `on_change` (outside the lock: it may take its own)."""
        if self._state() == self._reported:  # after nearly every call: read without the lock, as `state` is
            return
        with self._lock:
            state = self._state()
            before, self._reported = self._reported, state
            because = self._opened_because
        if state == before:
            return
        if state == OPEN:
            log.warning("circuit for %s opened (%s): calls refused for %g s", self.label, because, self.policy.cooldown)
            if self._wake is not None:  # its state changes again at the cooldown's end, called or not
                self._wake(self.retry_after(), self._cooldown_over)
        elif state == HALF_OPEN:
            log.info("circuit for %s half-open: the next %d calls probe it", self.label, self.policy.probes)
        else:
            log.warning("circuit for %s closed again: its probes passed", self.label)
        if self._on_change is not None:
            self._on_change(self.name, state)

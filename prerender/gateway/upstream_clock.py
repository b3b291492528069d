"""How far the upstream's clock runs from this node's, learnt from the `Date` header of its answers.

prerender tells the upstream when it stops waiting for each call (`X-Request-Deadline`, a Unix time,
prerender/gateway/http.py), and the upstream refuses a call it reads after that time by its own clock. A fragment's
calls have 0.8 s at most, so an upstream whose clock ran a second ahead refused every one of them: every card
empty, then the breakers open (docs/operations.md, "Clocks"). Hosts kept in step by NTP differ by milliseconds; this
module makes a host that is not a warning in the log, a metric, and no longer an outage.

An answer's `Date` is the upstream's clock when it answered, rounded down to the second, and it answered between
the moment the call was sent and the moment its answer came back. Each answer therefore bounds the difference
(upstream minus node): at least `Date - received`, at most `Date + 1 - sent`. Over the answers of a few seconds the
highest lower bound comes within a round trip of the true difference (an answer made just after the upstream's
second ticked over). The bounds are kept for a window and the window before, so a clock that is set right is
forgotten within two windows; bounds that contradict each other (a clock stepped meanwhile) start again.

Only a difference that would refuse calls is corrected: when the upstream is surely ahead, the deadline sent is
moved by the lower bound, never more, so the upstream still stops no later than prerender does (a write is never
applied after prerender gave up on it). An upstream whose clock runs behind gives a write up to the difference
longer than prerender waits, as without this module; that is logged, not corrected (correcting by a bound could
only cut the calls short).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime

from prerender.metrics import UPSTREAM_CLOCK_AHEAD

log = logging.getLogger(__name__)

# A difference under this is noise (a round trip, NTP's milliseconds): no correction, no warning.
MARGIN_SECONDS = 0.1
# Warned of, once a window: the difference at which the upstream refuses calls late in a fragment's budget.
WARN_SECONDS = 0.25
WINDOW_SECONDS = 600.0


class UpstreamClock:
    """What one worker has learnt of the upstream's clock. Thread-safe (gthread workers share one)."""

    def __init__(self, *, window: float = WINDOW_SECONDS, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._window = window
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._started = monotonic()
        # (highest lower bound, lowest upper bound) of the current window and of the one before.
        self._current = (-math.inf, math.inf)
        self._previous = (-math.inf, math.inf)
        self._warned_at: float | None = None

    def observe(self, date: str | None, *, sent: float, received: float) -> None:
        """An answer's `Date` header (None when it had none), for a call sent and answered at these Unix times."""
        if not date:
            return
        try:
            answered = parsedate_to_datetime(date).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return  # not an HTTP date: nothing learnt
        lower, upper = answered - received, answered + 1 - sent
        with self._lock:
            self._rotate()
            low, high = self._current
            low, high = max(low, lower), min(high, upper)
            if low > high:  # contradicting the window: one of the clocks was stepped; start again from this answer
                self._current, self._previous = (lower, upper), (-math.inf, math.inf)
            else:
                self._current = (low, high)
            ahead, behind = self._bounds()
        UPSTREAM_CLOCK_AHEAD.set(max(ahead, 0.0) if ahead > MARGIN_SECONDS else 0.0)
        self._warn(ahead, behind)

    def deadline_correction(self) -> float:
        """Seconds to add to a deadline told to the upstream: the difference it is surely ahead by, else 0."""
        with self._lock:
            self._rotate()
            ahead, _ = self._bounds()
        return ahead if ahead > MARGIN_SECONDS else 0.0

    def _bounds(self) -> tuple[float, float]:
        """The difference's bounds over both windows (under the lock)."""
        low = max(self._current[0], self._previous[0])
        high = min(self._current[1], self._previous[1])
        if low > high:  # the windows disagree: the current one is the clocks as they are now
            low, high = self._current
        return low, high

    def _rotate(self) -> None:
        """Starts a new window once the current one is over (under the lock)."""
        now = self._monotonic()
        if now - self._started < self._window:
            return
        passed = now - self._started >= 2 * self._window
        self._previous = (-math.inf, math.inf) if passed else self._current
        self._current = (-math.inf, math.inf)
        self._started = now

    def _warn(self, ahead: float, behind: float) -> None:
        """Says so once a window when the upstream's clock is surely off by WARN_SECONDS or more."""
        if ahead < WARN_SECONDS and behind > -WARN_SECONDS:
            return
        now = self._monotonic()
        with self._lock:
            if self._warned_at is not None and now - self._warned_at < self._window:
                return
            self._warned_at = now
        if ahead >= WARN_SECONDS:
            log.warning(
                "the upstream's clock runs at least %.2f s ahead of this node's (from the Date of its answers): the "
                "deadlines told to it are moved by as much; keep the hosts' clocks in step (NTP, docs/operations.md)",
                ahead,
            )
        else:
            log.warning(
                "the upstream's clock runs at least %.2f s behind this node's (from the Date of its answers): it may "
                "finish a write after this node stopped waiting; keep the hosts' clocks in step (NTP, "
                "docs/operations.md)",
                -behind,
            )

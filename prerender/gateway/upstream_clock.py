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
forgotten within two windows; an answer that contradicts them (a clock stepped meanwhile, or another upstream host
with another clock behind a load balancer) starts them again from that answer.

Only a difference that would refuse calls is corrected, and only once it is settled: when the upstream is surely
ahead, and the last AGREEING_ANSWERS answers all agreed with the bounds, the deadline sent is moved by the lower
bound, never more and never by more than MAX_CORRECTION_SECONDS, so the upstream still stops no later than
prerender does (a write is never applied after prerender gave up on it). Hosts of different clocks behind one
address keep contradicting each other: nothing is corrected then, and the warning says so. The `Date` must come
from the host that checks the deadline: a proxy in front of the upstream on another host (nginx replaces `Date`
with its own) would teach its own clock. An upstream whose clock runs behind gives a write up to the difference
longer than prerender waits, as without this module; that is logged, not corrected (correcting by a bound could
only cut the calls short).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from werkzeug.http import parse_date

from prerender.metrics import UPSTREAM_CLOCK_AHEAD

log = logging.getLogger(__name__)

# A difference under this is noise (a round trip, NTP's milliseconds): no correction, no warning.
MARGIN_SECONDS = 0.1
# Warned of, once a window: the difference at which the upstream refuses calls late in a fragment's budget.
WARN_SECONDS = 0.25
WINDOW_SECONDS = 600.0
# Answers in a row that agreed with the bounds before they move a deadline (a few seconds of traffic).
AGREEING_ANSWERS = 10
# The most a deadline is moved: a difference beyond is a host to mend, not to follow.
MAX_CORRECTION_SECONDS = 60.0


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
        # Answers that agreed with the bounds since the last contradiction, and contradictions in this window.
        self._agreeing = 0
        self._contradictions = 0
        self._warned_at: float | None = None

    def observe(self, date: str | None, *, sent: float, received: float) -> None:
        """An answer's `Date` header (None when it had none), for a call sent and answered at these Unix times."""
        moment = parse_date(date) if date else None  # any of HTTP's three date forms, in UTC
        if moment is None:
            return  # none, or not an HTTP date: nothing learnt
        answered = moment.timestamp()
        lower, upper = answered - received, answered + 1 - sent
        with self._lock:
            self._rotate()
            low, high = self._current
            low, high = max(low, lower), min(high, upper)
            if low > high:  # a clock stepped, or another host's: start again from this answer
                self._current, self._previous = (lower, upper), (-math.inf, math.inf)
                self._agreeing = 1
                self._contradictions += 1
            else:
                self._current = (low, high)
                self._agreeing += 1
            ahead, behind = self._bounds()
            correction = self._correction(ahead)
            settled = self._agreeing >= AGREEING_ANSWERS
            disagreeing = self._contradictions >= AGREEING_ANSWERS
        UPSTREAM_CLOCK_AHEAD.set(correction)
        if settled:
            self._warn(ahead, behind)
        elif disagreeing:
            self._warn_disagreeing()

    def deadline_correction(self) -> float:
        """Seconds to add to a deadline told to the upstream: the difference it is surely ahead by, once settled
        (at most MAX_CORRECTION_SECONDS), else 0."""
        with self._lock:
            self._rotate()
            ahead, _ = self._bounds()
            return self._correction(ahead)

    def _correction(self, ahead: float) -> float:
        """The correction for a lower bound `ahead`, when the answers have settled on it (under the lock)."""
        if ahead <= MARGIN_SECONDS or self._agreeing < AGREEING_ANSWERS:
            return 0.0
        return min(ahead, MAX_CORRECTION_SECONDS)

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
        if passed:
            self._agreeing = 0
        self._contradictions = 0
        self._current = (-math.inf, math.inf)
        self._started = now

    def _first_warning_of_window(self) -> bool:
        """Whether no warning was logged in the last window (and one is about to be)."""
        now = self._monotonic()
        with self._lock:
            if self._warned_at is not None and now - self._warned_at < self._window:
                return False
            self._warned_at = now
            return True

    def _warn_disagreeing(self) -> None:
        """Says so once a window when the answers keep contradicting each other."""
        if self._first_warning_of_window():
            log.warning(
                "the Date of the upstream's answers keeps contradicting itself (hosts of different clocks behind one "
                "address, or a clock being stepped): no deadline is moved; keep the hosts' clocks in step (NTP, "
                "docs/operations.md)"
            )

    def _warn(self, ahead: float, behind: float) -> None:
        """Says so once a window when the upstream's clock is surely off by WARN_SECONDS or more."""
        if ahead < WARN_SECONDS and behind > -WARN_SECONDS:
            return
        if not self._first_warning_of_window():
            return
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

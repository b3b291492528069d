"""The request's time budget for all its upstream calls together (README.md, "Configuration").

A route sets a deadline when its request starts (prerender/web/upstream_budget.py, `start_upstream_budget`); every
upstream call made for the request, on its own thread or on the gateway's pool (`ConcurrentCalls.start` copies the
context), then waits at most what is left: connect and read timeouts are cut to it, a retry is not tried without time
for it, and a call with nothing left is not sent (`BudgetSpent`). Outside a request (no deadline) calls keep their own
timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

# A monotonic time, or None: no budget.
_deadline: ContextVar[float | None] = ContextVar("prerender_upstream_deadline", default=None)
# The deadline of a request shed at the door (prerender/web/admission.py): always past, and told apart from a
# budget that ran out (`shed`), so that its calls are not even attempted.
_SHED = float("-inf")


def remaining() -> float | None:
    """Seconds left of the current budget (0 or less when spent), None without one."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


@contextmanager
def budget(seconds: float | None) -> Iterator[None]:
    """Run the block under a budget of `seconds` (None: no budget), restored on the way out."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def start(seconds: float | None, *, shed: bool = False) -> Token[float | None]:
    """Start a budget for the rest of the current context (a request), none at all for a request `shed` at the
    door; `stop` with the returned token."""
    if shed:
        return _deadline.set(_SHED)
    return _deadline.set(None if seconds is None else time.monotonic() + seconds)


def shed() -> bool:
    """Whether the current request was shed at the door: its calls are refused unsent (`RequestShed`)."""
    return _deadline.get() == _SHED


def stop(token: Token[float | None]) -> None:
    """End the budget `start` began."""
    _deadline.reset(token)

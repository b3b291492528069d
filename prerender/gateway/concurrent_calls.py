"""Upstream calls made alongside the request thread's own (a card's likes while its recipe loads)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")


class ConcurrentCalls:
    """Runs a gateway call on a pool of threads; the caller goes on and collects the result later."""

    def __init__(self, *, pool: Executor) -> None:
        self.pool = pool

    def start(self, call: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Start `call(*args, **kwargs)`. It runs in a copy of the caller's context, so the request's upstream
        budget (deadline.py) applies to it."""
        return self.pool.submit(contextvars.copy_context().run, call, *args, **kwargs)

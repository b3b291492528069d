"""The page's budget for prerender: every call one page request makes to prerender (a new visitor's authless id,
the fragments and their stylesheets, a planner or catalog page, a second try without a stale store) ends
`PRERENDER_PAGE_BUDGET` seconds after the request began, however many come in turn. A hung prerender holds a page
that long at most, and a call is not sent once the budget is spent (examples/shop/prerender_client.py).

The budget is a context variable, started by a request hook (`register_page_budget`). `PagePool` runs each task in
a copy of the submitter's context, so the calls made on its threads for a page keep that page's budget. Outside a
request (the shop's CLI, a test of the client alone) there is none, and calls keep their own timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar, Token, copy_context
from typing import ParamSpec, TypeVar

from flask import Flask, current_app, g, request

P = ParamSpec("P")
T = TypeVar("T")

# A monotonic time, or None: no page budget.
_deadline: ContextVar[float | None] = ContextVar("shop_page_deadline", default=None)
_TOKEN = "shop_page_budget"
PAGE_METHODS = frozenset({"GET", "HEAD"})


def left() -> float | None:
    """Seconds left of the current page's budget (0 or less when spent), None outside a page."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def remaining() -> float:
    """What a page still waits, at most, for an answer of prerender: the seconds left of its budget, never less
    than 0."""
    seconds = left()
    if seconds is None:
        raise LookupError("no page budget: remaining() is for a page request (register_page_budget)")
    return max(0.0, seconds)


def start_page_budget() -> None:
    """before_request: a page's budget starts with its request. A form's action (a POST: the login and its merges,
    the cart's lines) is no page: its calls keep their own timeouts, one after the other."""
    if request.method not in PAGE_METHODS:
        return
    seconds = float(current_app.config["PRERENDER_PAGE_BUDGET"])
    setattr(g, _TOKEN, _deadline.set(time.monotonic() + seconds))


def end_page_budget(_error: BaseException | None = None) -> None:
    """teardown: the request is over."""
    token: Token[float | None] | None = g.pop(_TOKEN, None)
    if token is not None:
        _deadline.reset(token)


def register_page_budget(app: Flask) -> None:
    """Start each request's budget, and end it."""
    app.before_request(start_page_budget)
    app.teardown_request(end_page_budget)


class PagePool(ThreadPoolExecutor):
    """A thread pool whose tasks run in a copy of the submitter's context: a page's calls keep its budget."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        return super().submit(copy_context().run, fn, *args, **kwargs)

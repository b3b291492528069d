"""What the current request had to do without, because the upstream failed: reads answered with their last good
copy (`served_stale`), and parts left out or shown as unavailable (`went_without`).

The read cache (prerender/gateway/read_cache.py) and the recipes' and suggestions' batch reads note each stale
copy they serve; the renderers note each part they go without (the catalog's categories, a CTA's store list...),
logged once with its error by `failed_without`, at the level `failure_level` gives.
The record starts with the request, before its supplier is looked up (prerender/web/degraded.py), and a fragment
route marks its answer degraded by what it holds. Calls made on the gateway's pool see the same record
(`ConcurrentCalls.start` copies the context, and the record is one object shared by the copies).
"""

from __future__ import annotations

import logging
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from prerender.gateway.errors import Refused, RequestShed, UpstreamError

log = logging.getLogger(__name__)


@dataclass
class Fallbacks:
    """What one request did without: the reads served stale, and the parts it went without ("recipe",
    "categories"...)."""

    stale: list[str] = field(default_factory=list)
    went_without: list[str] = field(default_factory=list)


# The record of the current request, or None outside one.
_current: ContextVar[Fallbacks | None] = ContextVar("prerender_fallbacks", default=None)


def start() -> Token[Fallbacks | None]:
    """Start a fresh record for the rest of the current context (a request); `stop` it with the token."""
    return _current.set(Fallbacks())


def stop(token: Token[Fallbacks | None]) -> None:
    """End the record `start` began."""
    _current.reset(token)


def current() -> Fallbacks:
    """The current record (an empty one outside a request)."""
    return _current.get() or Fallbacks()


def served_stale(what: str) -> None:
    """A read was answered with its last good copy (nothing recorded outside a request)."""
    record = _current.get()
    if record is not None:
        record.stale.append(what)


def went_without(what: str) -> None:
    """A part of the page was left out, or shown as unavailable, because the upstream failed."""
    record = _current.get()
    if record is not None:
        record.went_without.append(what)


def failed_without(what: str, error: UpstreamError, *, request_id: str, consequence: str = "") -> None:
    """The upstream failed to give `what`, and the page goes on without it (`consequence` says how): logged once,
    at `failure_level`, and recorded (`went_without`)."""
    log.log(failure_level(error), "%s unavailable%s, request %s: %s", what, consequence, request_id, error)
    went_without(what)


def failure_level(error: BaseException) -> int:
    """The level to log an upstream failure at, when a request goes without what it failed to give: ERROR, but
    INFO for a call not made: a request shed at the door (`RequestShed`: counted and logged once, with the request,
    prerender/web/admission.py, prerender/web/request_log.py), or refused by its resource's open breaker or full
    bulkhead (`Refused`: they log when they start refusing and when they stop, gateway/breaker.py and bulkhead.py).
    Every degraded answer is counted all the same (`prerender_degraded_answers_total`)."""
    return logging.INFO if not_made(error) else logging.ERROR


def stale_level(error: BaseException) -> int:
    """The level to log a last good copy served in place of a failed read at: WARNING, INFO for a call not made."""
    return logging.INFO if not_made(error) else logging.WARNING


def not_made(error: BaseException) -> bool:
    """Whether the upstream call was never made: shed at the door or refused by a guard, whose cause is logged
    once, not with each request."""
    return isinstance(error, RequestShed | Refused)

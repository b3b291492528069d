"""Degraded answers: a page rendered without its upstream content, still a 200 the customer's page can include.

A page route that cannot read the upstream (unreachable, too slow, a 5xx, a malformed answer, the circuit
open) answers its "try again" state instead of a 5xx problem (docs/decisions.md, "Issue 22"). Such an answer
is marked so operators can see it though its status is 200: the `X-Degraded` header names the cause, the
Prometheus series `prerender_degraded_answers_total` counts it by route, and no cache may keep it
(`private, no-store`, no ETag: the next request asks the upstream again).

The upstream's 4xx that pass through (prerender/web/errors.py) are answers, not failures: an unknown store
stays the customer's 400.
"""

from __future__ import annotations

from flask import Flask, Response, g, request

from prerender.gateway import UpstreamError, UpstreamStatusError, fallbacks
from prerender.metrics import DEGRADED_ANSWERS
from prerender.web.context import current_context
from prerender.web.errors import PASSED_THROUGH_STATUSES
from prerender.web.http_caching import NO_STORE, set_policy

DEGRADED_HEADER = "X-Degraded"
# The causes: the header's value and the metric's `reason` label. The upstream failed and the answer is the
# route's degraded state (an empty fragment, the planner's try-again state), or it failed and the answer was
# made with the last good copy of what it failed to give (prerender/gateway/fallbacks.py).
UPSTREAM = "upstream"
STALE = "stale"
# A request shed at the door (prerender/web/admission.py), counted there with the reason it was shed for.
SHED = "shed"


def was_shed() -> bool:
    """Whether admission shed this request: it renders with no upstream budget, so what it goes without is the
    shed's doing, not the upstream's (counted once, at the door)."""
    return bool(g.get("shed"))


def is_refusal(error: UpstreamError) -> bool:
    """Whether the upstream answered this request with a 4xx passed through to the caller (an unknown store,
    a refused identity...): the caller's mistake to see, never degraded into a page."""
    return isinstance(error, UpstreamStatusError) and error.status in PASSED_THROUGH_STATUSES


def start_fallback_record() -> None:
    """Before anything reads the upstream (the header guard looks the supplier up): a fresh record of what the
    request does without (prerender/gateway/fallbacks.py)."""
    g.fallbacks = fallbacks.start()


def end_fallback_record(_error: BaseException | None = None) -> None:
    token = g.pop("fallbacks", None)
    if token is not None:
        fallbacks.stop(token)


def register_fallback_record(app: Flask) -> None:
    """Attach the record's hooks to the app."""
    app.before_request(start_fallback_record)
    app.teardown_request(end_fallback_record)


def degraded_reason() -> str | None:
    """Why the answer being made is degraded, if it is: `upstream` when it went without a part or without its
    supplier (the lookup failed), `stale` when it used last good copies; None when it is whole and fresh."""
    record = fallbacks.current()
    if record.went_without or current_context().supplier_lookup_failed:
        return UPSTREAM
    return STALE if record.stale else None


def marked_if_degraded(response: Response, *, failed: bool = False) -> Response:
    """The answer of a route that degrades rather than fails, marked when it is degraded: `failed` (it is the
    route's degraded state), or what the request did without (`degraded_reason`)."""
    reason = UPSTREAM if failed else degraded_reason()
    return mark_degraded(response, reason=reason) if reason else response


def mark_degraded(response: Response, *, reason: str = UPSTREAM) -> Response:
    """Mark a degraded answer: the header, the count by route, and no cache keeps it. A request shed at the door
    is marked `shed` whatever it went without, and not counted again."""
    if was_shed():
        response.headers[DEGRADED_HEADER] = SHED
    else:
        response.headers[DEGRADED_HEADER] = reason
        DEGRADED_ANSWERS.labels(request.endpoint or "unmatched", reason).inc()
    set_policy(NO_STORE)
    return response

"""The answer of a fragment route: one policy for every HTML fragment a customer's server inserts in its page.

A view says what to render and for whom (`fragment_response(render, shared=...)`); the responder does the rest:

- who may keep it: `shared` (the same for every shopper: a fixed card of a supplier without personalization)
  is publicly cacheable; anything else is private (prerender/web/http_caching.py). The responder sets the policy,
  which wins over a view's `@cache_policy`: a view answering through it declares none
  (tests/unit/test_architecture.py);
- an upstream failure while rendering is the route's degraded fragment, never a problem in the customer's page:
  the empty fragment by default, the route's own when it has one (the planner page's try-again state), either
  marked `X-Degraded: upstream` and kept by no cache (prerender/web/degraded.py). The upstream's refusals that
  are the caller's mistake (`passes`, by default an unknown store: a 400) stay problems;
- a fragment the upstream's failure left in part (a catalog page whose recipes are unavailable, a CTA without
  its store list: prerender/gateway/fallbacks.py) is marked `X-Degraded: upstream` as well; one made with the
  last good copy of a read the upstream failed is whole, but possibly out of date: marked `X-Degraded: stale`.
  Neither is kept by a cache, so that the first request after the upstream is back gets a fresh one;
- its ETag, remembered for a small fragment (a memoized card costs one lookup; a page is hashed each time);
- a private, non-empty fragment ends with the shopper's credential element (prerender/web/shopper.py), which
  the ETag covers too.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from flask import Response, request
from werkzeug.http import generate_etag

from prerender.gateway import UnknownStore, UpstreamError, fallbacks
from prerender.web.context import current_context
from prerender.web.degraded import marked_if_degraded
from prerender.web.http_caching import PRIVATE, PUBLIC, set_policy
from prerender.web.shopper import with_shopper

log = logging.getLogger(__name__)

R = TypeVar("R")


def is_unknown_store(error: UpstreamError) -> bool:
    return isinstance(error, UnknownStore)


@dataclass(frozen=True)
class Rendered:
    """A fragment that knows whether it is its route's degraded state (the planner page's try-again state when
    the supplier could not be read: rendered without an exception, marked all the same)."""

    html: str
    degraded: bool = False


def fragment_response(
    render: Callable[[], str | Rendered],
    *,
    shared: bool = False,
    degraded: Callable[[], str | Rendered] | None = None,
    passes: Callable[[UpstreamError], bool] = is_unknown_store,
) -> Response:
    """The route's answer: `render()`'s fragment, public when `shared`, else private with the shopper's
    credential; on an upstream failure `degraded()`'s fragment (marked degraded) or the empty one."""
    set_policy(PUBLIC if shared else PRIVATE)
    rendered, failed = rendered_or_degraded(
        lambda: _as_rendered(render()),
        lambda: _as_rendered(degraded()) if degraded is not None else Rendered(""),
        passes=passes,
    )
    if failed:
        rendered = Rendered(rendered.html, degraded=True)
    fragment = rendered.html
    etag = fragment_etag(fragment)
    if fragment and not shared:
        fragment, etag = with_shopper(fragment, etag, current_context())
    response = Response(fragment, mimetype="text/html")
    response.set_etag(etag)
    return marked_if_degraded(response, failed=rendered.degraded)  # never shared: no cache keeps it


def rendered_or_degraded(
    render: Callable[[], R], degraded: Callable[[], R], *, passes: Callable[[UpstreamError], bool] = is_unknown_store
) -> tuple[R, bool]:
    """`render()` and False; on an upstream failure `degraded()` and True, logged once at the failure's level. A
    failure that `passes` is raised (the caller's mistake: a problem). What every fragment route does, the multiple
    cards' JSON included (prerender/blueprints/multiple.py)."""
    try:
        return render(), False
    except UpstreamError as error:
        if passes(error):
            raise
        level = fallbacks.failure_level(error)  # INFO for a request shed at the door: counted and logged with it
        log.log(level, "%s degraded, request %s: %s", request.endpoint, current_context().request_id, error)
        return degraded(), True


def _as_rendered(result: str | Rendered) -> Rendered:
    return result if isinstance(result, Rendered) else Rendered(result)


# Fragments of at most this many characters have their ETag remembered: a card (about 5 000), which the fragment
# memo hands out again as the same string object. A bigger one (a catalog or planner page: different for nearly
# every shopper, up to half a megabyte) is hashed each time, well under a millisecond: remembered, such pages kept
# whole in every worker took it past its memory limit (hundreds of megabytes, a few thousand requests).
ETAG_MEMO_MAX_CHARS = 8192
# As many as the fragment memo's default size (prerender/config.py, FRAGMENT_MEMO_SIZE): at most 2 048 fragments
# of 8 192 characters kept alive (16 to 32 MB of text in Latin scripts), most of them the memo's own.
ETAG_MEMO_SIZE = 2048


def fragment_etag(html: str) -> str:
    """The strong ETag werkzeug would compute for this body (sha1 of its UTF-8 bytes), remembered for a small
    fragment: a memo hit hands out the same string object, whose hash Python keeps, so a known card costs one
    lookup."""
    if len(html) > ETAG_MEMO_MAX_CHARS:
        return generate_etag(html.encode())
    return remembered_etag(html)


@functools.lru_cache(maxsize=ETAG_MEMO_SIZE)
def remembered_etag(html: str) -> str:
    """fragment_etag's memo (its `cache_info()` tells what it holds)."""
    return generate_etag(html.encode())

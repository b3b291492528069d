"""How each GET answer may be cached (docs/operations.md): a strong ETag with 304 on If-None-Match
everywhere, and a Cache-Control that says whether the answer depends on the user.

- `private`: the answer depends on who asks (the heart of a connected user, a suggestion seeded by the
  session, a basket, likes). Browsers may keep it; shared caches must not.
- `public, max-age, stale-while-revalidate` with `Vary` on the headers that change the output: the
  same for everyone who sends those headers (stylesheet links, the SDK bootstrap, a fixed recipe's card
  for a supplier with personalization disabled, the drawer's content), so a CDN or nginx can serve it.
- `private, no-store` without an ETag: an answer no cache may keep (a degraded page's "try again" state,
  prerender/web/degraded.py), so the next request asks again.

Views declare their policy with `@cache_policy(...)`, or decide it while they answer (`set_policy`: the fragment
responder, prerender/web/fragment_response.py, whose views declare none, since the policy set wins over the one
declared); an after_request hook applies it. An answer to another
method (POST) gets no ETag, but a private policy's Cache-Control all the same: the cards of
`recipe-card/multiple` carry the shopper's credential (prerender/web/shopper.py), which no cache may
keep for someone else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request

View = TypeVar("View", bound=Callable[..., Any])

PUBLIC_MAX_AGE = 60
STALE_WHILE_REVALIDATE = 300
PUBLIC_CACHE_CONTROL = f"public, max-age={PUBLIC_MAX_AGE}, stale-while-revalidate={STALE_WHILE_REVALIDATE}"
PRIVATE_CACHE_CONTROL = "private, max-age=0, must-revalidate"
# The headers that change a public answer: texts and prices follow the language; features the supplier.
PUBLIC_VARY = ("language-id", "supplier-token")


@dataclass(frozen=True)
class CachePolicy:
    """Whether an answer is the same for every user with the same `Vary` headers."""

    public: bool
    vary: tuple[str, ...] = PUBLIC_VARY
    # False: no cache may keep the answer at all, nor revalidate it (no ETag): a degraded answer.
    store: bool = True
    # A private answer the browser may reuse for this many seconds without asking (then revalidates it with its
    # ETag), varying on `vary`; 0: it revalidates every time.
    max_age: int = 0


PRIVATE = CachePolicy(public=False)
PUBLIC = CachePolicy(public=True)
NO_STORE = CachePolicy(public=False, store=False)
NO_STORE_CACHE_CONTROL = "private, no-store"
# The same for everyone whatever their headers (stylesheet links, /openapi.json).
SAME_FOR_EVERYONE = CachePolicy(public=True, vary=())


def cache_policy(policy: CachePolicy | Callable[[], CachePolicy]) -> Callable[[View], View]:
    """Declare a view's policy, or a function deciding it from the request (e.g. g.ctx)."""

    def mark(view: View) -> View:
        vars(view)["cache_policy"] = policy
        return view

    return mark


def set_policy(policy: CachePolicy) -> None:
    """Decide the policy from inside a view, once the request is understood. An answer already marked NO_STORE (a
    degraded one: shed at the door, prerender/web/admission.py) stays so."""
    current: CachePolicy | None = g.get("cache_policy")
    if current is None or current.store:
        g.cache_policy = policy


def request_policy() -> CachePolicy | None:
    """The request's policy: the one its view set (set_policy), else the one declared on the view."""
    policy: CachePolicy | None = g.get("cache_policy")
    if policy is None:
        declared = getattr(current_app.view_functions.get(request.endpoint or ""), "cache_policy", None)
        policy = declared() if callable(declared) else declared
    return policy


def never_public() -> None:
    """The answer carries something for one shopper only (a credential): whatever the view declared, not
    public; a stricter policy (NO_STORE) stays."""
    policy = request_policy()
    if policy is None or policy.public:
        g.cache_policy = PRIVATE


def apply_cache_policy(response: Response) -> Response:
    """after_request: ETag and Cache-Control on successful GETs of views that declared a policy; the private
    Cache-Control alone on successful answers to other methods."""
    if response.status_code != 200 or response.direct_passthrough:
        return response
    policy = request_policy()
    if policy is None:
        return response
    if not policy.store:
        response.headers["Cache-Control"] = NO_STORE_CACHE_CONTROL
        response.headers.pop("ETag", None)  # a view's own (a card's), which nothing may revalidate
        return response
    if request.method not in ("GET", "HEAD"):
        if not policy.public:  # a POST is never revalidated, and a public one would mean nothing to caches
            response.headers["Cache-Control"] = PRIVATE_CACHE_CONTROL
        return response
    # Whole header values, written once: werkzeug's cache_control object re-serializes on every attribute.
    if policy.public:
        response.headers["Cache-Control"] = PUBLIC_CACHE_CONTROL
        add_vary(response, policy.vary)
    elif policy.max_age:
        response.headers["Cache-Control"] = f"private, max-age={policy.max_age}"
        add_vary(response, policy.vary)
    else:
        response.headers["Cache-Control"] = PRIVATE_CACHE_CONTROL
    response.add_etag()
    # Only a conditional request can turn into a 304 (this service serves no byte ranges).
    if "If-None-Match" in request.headers or "If-Modified-Since" in request.headers:
        response.make_conditional(request)  # in place: a 304 keeps this response object
    return response


def add_vary(response: Response, names: tuple[str, ...]) -> None:
    """Add header names to the response's one Vary line (as a string: werkzeug's `vary` set re-parses and
    re-serializes the header on every change)."""
    current = response.headers.get("Vary")
    if not current:
        response.headers["Vary"] = ", ".join(names)
        return
    present = {name.strip().lower() for name in current.split(",")}
    missing = [name for name in names if name.lower() not in present]
    if missing:
        response.headers["Vary"] = ", ".join([current, *missing])


def vary_on_origin(response: Response) -> Response:
    """after_request: whether CORS headers are sent depends on the Origin, allowed or not (even absent), so
    every answer varies on it, in the same Vary line as the others (caches before nginx 1.23 read only the
    last line). Static files, open to every origin with `*`, do not."""
    if response.headers.get("Access-Control-Allow-Origin") != "*":
        add_vary(response, ("Origin",))
    return response


def register_http_caching(app: Flask) -> None:
    """Attach the policy and Vary hooks to the app."""
    app.after_request(apply_cache_policy)
    app.after_request(vary_on_origin)

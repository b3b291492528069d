"""The shop's client of prerender, as a customer's server would write it.

- One `requests.Session` per thread (the page fetches its fragments from a small thread pool).
- Short timeouts: a fragment that is late, refused or broken is "no card here", logged, never an error
  page. Every public method returns an empty answer on failure instead of raising.
- The mandatory headers (README.md) on every call (see `prerender_headers`). The supplier token travels only
  here, from the shop's server to prerender: never in a page or a browser's request. Browsers act with the
  credential prerender puts in private fragments and the bootstrap (`<svc-shopper>`).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any

import requests

from . import page_budget
from .sessions import ThreadLocalSessions, pooled_session

if TYPE_CHECKING:
    from .visitor import Visitor

log = logging.getLogger(__name__)


def visitor_headers(
    *, language: str, session_id: str, supplier_token: str, request_id: str | None = None
) -> dict[str, str]:
    """The headers of a call made before the visitor has an identity (the authless id's issuing)."""
    headers = {"language-id": language, "supplier-token": supplier_token, "session-id": session_id}
    if request_id:
        headers["x-request-id"] = request_id
    return headers


def prerender_headers(visitor: Visitor, supplier_token: str, request_id: str | None = None) -> dict[str, str]:
    """The headers of every prerender call.

    A logged-in visitor is `authorization: user_id <id>`; a logged-out one is `authless-id: <id>` (never
    both: prerender turns the authless id into its upstream authorization itself).
    """
    headers = visitor_headers(
        language=visitor.language, session_id=visitor.session_id, supplier_token=supplier_token, request_id=request_id
    )
    if visitor.user_id is not None:
        headers["authorization"] = f"user_id {visitor.user_id}"
    else:
        headers["authless-id"] = visitor.authless_id
    return headers


# The answers of a page route that say its query was refused (not that prerender failed).
REFUSED_PAGE_STATUSES = frozenset({400, 414})


@dataclass(frozen=True)
class PageFragment:
    """A page fragment of prerender (the planner's current-menu page, a catalog page), or why there is none:
    `status` is prerender's answer when it refused or failed (a problem+json, whose field errors are `errors`),
    None when it did not answer at all."""

    html: str = ""
    status: int | None = None
    errors: Mapping[str, Any] = field(default_factory=dict)

    @property
    def refused(self) -> bool:
        """prerender refused what the page asked (its query: 400, or 414 for a URL too long)."""
        return self.status in REFUSED_PAGE_STATUSES

    @property
    def not_found(self) -> bool:
        """prerender answered 404 (for a catalog category: no such category)."""
        return self.status == 404

    def names(self, location: str, name: str) -> bool:
        """Whether the problem names the field `name` at `location` ("query", "headers")."""
        fields = self.errors.get(location)
        return isinstance(fields, Mapping) and name in fields

    @property
    def unknown_store(self) -> bool:
        """prerender did not know the page's store, and drew the page without it (the basket preview's empty
        basket, its root marked `unknown-store`, README.md), where another page refuses the store."""
        return "unknown-store" in _root_attributes(self.html)


class _RootFound(Exception):
    """The parser met the fragment's first element: the rest is not read."""

    def __init__(self, attributes: dict[str, str | None]) -> None:
        super().__init__()
        self.attributes = attributes


class _RootTag(HTMLParser):
    """Stops at a fragment's first element (its root) with its attributes, read with Python's own HTML parser."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise _RootFound(dict(attrs))


def _root_attributes(html: str) -> dict[str, str | None]:
    try:
        _RootTag().feed(html)
    except _RootFound as root:
        return root.attributes
    return {}


# The planner's current-menu page is one of prerender's page fragments.
PlannerPage = PageFragment


@dataclass(frozen=True)
class CardContext:
    """One slot of the multiple route: the two products around it and the shop's own slot number."""

    product_ids: tuple[str, str]
    position: int


class PrerenderClient:
    """Calls prerender's card, styles, planner and catalog routes, and the identity routes of the shop's server
    (the authless id of a new visitor, the merge of its basket and menu at login). Thread-safe."""

    def __init__(
        self,
        base_url: str,
        supplier_token: str,
        *,
        api_version: str = "v1",
        connect_timeout: float = 0.5,
        read_timeout: float = 3.0,
        styles_ttl: float = 60.0,
        pool_size: int = 16,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.supplier_token = supplier_token
        self.api_version = api_version
        self.timeout = (connect_timeout, read_timeout)
        self.styles_ttl = styles_ttl
        self.pool_size = pool_size
        self._clock = clock
        self._sessions = ThreadLocalSessions(factory=lambda: pooled_session(pool_size=self.pool_size))
        self._styles: dict[str, tuple[float, str]] = {}
        self._styles_lock = threading.Lock()

    # ------------------------------------------------------------------ HTTP

    @property
    def session(self) -> requests.Session:
        """This thread's session, created on first use (so never shared across a fork either)."""
        return self._sessions.get()

    def _call(
        self,
        method: str,
        path: str,
        visitor: Visitor | None,
        *,
        request_id: str | None = None,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        version: str | None = None,
        headers: Mapping[str, str] | None = None,
        expected: frozenset[int] = frozenset(),
        problems: bool = False,
    ) -> requests.Response | None:
        """One call, with the visitor's headers (or `headers`, for a call without visitor); None (logged) when
        prerender is down, late, or answers anything but 200; None, logged at INFO only, for an `expected`
        status (an answer that is no failure, such as "no menu to merge"). With `problems`, an answer other
        than 200 is returned (logged the same) instead of None, for the caller to tell why."""
        url = f"{self.base_url}/{version or self.api_version}{path}"
        # One id per call, the page's as its prefix: prerender's log tells the page's calls apart and groups them.
        request_id = f"{request_id}.{secrets.token_hex(3)}" if request_id else secrets.token_hex(16)
        if visitor is not None:
            headers = {**prerender_headers(visitor, self.supplier_token, request_id), **(headers or {})}
        else:
            headers = {**(headers or {}), "x-request-id": request_id}
        timeout = self.timeout
        left = page_budget.left()  # within a page, its calls share its budget
        if left is not None:
            if left <= 0:
                log.warning(
                    "prerender %s %s not asked: the page's budget is spent (request %s)", method, path, request_id
                )
                return None
            timeout = (min(timeout[0], left), min(timeout[1], left))
        try:
            response = self.session.request(
                method, url, params=params, json=body, headers=dict(headers or {}), timeout=timeout
            )
        except requests.RequestException as error:
            log.warning("prerender %s %s failed (request %s): %s", method, path, request_id, error)
            return None
        if response.status_code in expected:
            log.info("prerender %s %s answered %s (request %s)", method, path, response.status_code, request_id)
            return response if problems else None
        if response.status_code != 200:
            level = logging.ERROR if 400 <= response.status_code < 500 else logging.WARNING
            log.log(
                level,
                "prerender %s %s answered %s (request %s): %.300s",
                method,
                path,
                response.status_code,
                request_id,
                response.text,
            )
            return response if problems else None
        return response

    # ------------------------------------------------------------------ routes

    def recipe_card(
        self,
        visitor: Visitor,
        surrounding_product_ids: Sequence[str],
        *,
        store_id: str | None = None,
        display_variant: int = 1,
        orientation: str = "vertical",
        above_fold: bool = False,
        request_id: str | None = None,
    ) -> str:
        """GET /recipe-card for the products around a slot: the card's HTML, or "" (no card here)."""
        params: dict[str, Any] = {
            "surrounding_products_ids": json.dumps(list(surrounding_product_ids)),
            "display_variant": display_variant,
            "orientation": orientation,
        }
        if store_id:
            params["store_id"] = store_id
        if above_fold:
            params["above_fold"] = "true"
        response = self._call("GET", "/recipe-card", visitor, params=params, request_id=request_id)
        return response.text.strip() if response is not None else ""

    def recipe_card_of(
        self,
        visitor: Visitor,
        recipe_id: str,
        *,
        store_id: str | None = None,
        display_variant: int = 1,
        orientation: str = "vertical",
        request_id: str | None = None,
    ) -> str:
        """GET /recipe-card for a fixed recipe: the card's HTML, or "" (no card)."""
        params: dict[str, Any] = {
            "recipe_id": recipe_id,
            "display_variant": display_variant,
            "orientation": orientation,
        }
        if store_id:
            params["store_id"] = store_id
        response = self._call("GET", "/recipe-card", visitor, params=params, request_id=request_id)
        return response.text.strip() if response is not None else ""

    def window_bootstrap(self, visitor: Visitor, *, request_id: str | None = None) -> str:
        """GET /v2/svc-window-bootstrap (v2 only): the visitor's credential element (`<svc-shopper>`) and the
        SDK's module script tag, or "" (no SDK)."""
        response = self._call("GET", "/svc-window-bootstrap", visitor, request_id=request_id, version="v2")
        return response.text.strip() if response is not None else ""

    def recipe_cards(
        self,
        visitor: Visitor,
        contexts: Iterable[CardContext],
        *,
        store_id: str | None = None,
        display_variant: int = 1,
        request_id: str | None = None,
    ) -> dict[int, str]:
        """POST /recipe-card/multiple: {position: html} for the positions that got a card (maybe none)."""
        contexts = list(contexts)
        if not contexts:
            return {}
        params: dict[str, Any] = {"display_variant": display_variant}
        if store_id:
            params["store_id"] = store_id
        body = {"contexts": [{"productIds": list(c.product_ids), "position": c.position} for c in contexts]}
        response = self._call("POST", "/recipe-card/multiple", visitor, params=params, body=body, request_id=request_id)
        if response is None:
            return {}
        asked = {c.position for c in contexts}
        try:
            cards = response.json()["data"]
            found = {int(card["position"]): str(card["html"] or "").strip() for card in cards}
        except (ValueError, KeyError, TypeError) as error:
            log.error("prerender multiple cards: unexpected body (request %s): %s", request_id, error)
            return {}
        return {position: html for position, html in found.items() if html and position in asked}

    def styles(
        self, visitor: Visitor, component: str, *, request_id: str | None = None, version: str | None = None
    ) -> str:
        """GET /styles/<component> (of the client's API version, or `version`): the `<link>` tags to put in
        <head>, kept `styles_ttl` seconds."""
        now = self._clock()
        key = f"{version or self.api_version}/{component}"
        with self._styles_lock:
            cached = self._styles.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        response = self._call("GET", f"/styles/{component}", visitor, request_id=request_id, version=version)
        if response is None:
            return ""  # not cached: the next page tries again
        try:
            html = str(response.json()["html"])
        except (ValueError, KeyError, TypeError) as error:
            log.error("prerender styles %s: unexpected body (request %s): %s", component, request_id, error)
            return ""
        with self._styles_lock:
            self._styles[key] = (now + self.styles_ttl, html)
        return html

    # ------------------------------------------------------------------ planner (v2 only)

    def planner_entry(self, visitor: Visitor, *, store_id: str | None = None, request_id: str | None = None) -> str:
        """GET /v2/planner/entry: the planner's entry block (its modes lead to the shop's current-menu page),
        its module scripts and the visitor's credential element, or "" (no entry block)."""
        params = {"store_id": store_id} if store_id else None
        response = self._call("GET", "/planner/entry", visitor, params=params, request_id=request_id, version="v2")
        return response.text.strip() if response is not None and is_html(response) else ""

    def planner_page(
        self,
        visitor: Visitor,
        *,
        landing: bool = False,
        params: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> PlannerPage:
        """GET /v2/planner/current-menu (or /v2/planner, the shareable landing route, with `landing`) with the
        page's `params`: see `page_fragment`."""
        path = "/planner" if landing else "/planner/current-menu"
        return self.page_fragment(visitor, path, version="v2", params=params, request_id=request_id)

    # ------------------------------------------------------------------ pages (the planner's, the catalog's)

    def page_fragment(
        self,
        visitor: Visitor,
        path: str,
        *,
        version: str,
        params: Mapping[str, str] | None = None,
        not_found: bool = False,
        request_id: str | None = None,
    ) -> PageFragment:
        """GET /<version><path>, a page route (the planner's, the catalog's), with the page's `params`: the page
        fragment (its module scripts and the visitor's credential element at the end), or a PageFragment without
        html saying why. A refused query (400, 414) is logged at INFO only: the page's query string is the
        visitor's; so is a 404 with `not_found`, for a page whose 404 says that what it names does not exist
        (an unknown category), not that the route is missing."""
        expected = REFUSED_PAGE_STATUSES | {404} if not_found else REFUSED_PAGE_STATUSES
        response = self._call(
            "GET",
            path,
            visitor,
            params=params,
            request_id=request_id,
            version=version,
            expected=frozenset(expected),
            problems=True,
        )
        if response is None:
            return PageFragment()
        if response.status_code != 200:
            return PageFragment(status=response.status_code, errors=_problem_errors(response))
        html = response.text.strip()
        if not html or not is_html(response):
            log.error("prerender page %s: not an HTML fragment (request %s)", path, request_id)
            return PageFragment()
        return PageFragment(html=html)

    # ------------------------------------------------------------------ identity (server to server)

    def generate_authless_id(self, *, language: str, session_id: str, request_id: str | None = None) -> str | None:
        """GET /generate-authless-token: a new visitor's authless id, issued by prerender to the shop's server
        (spec headers without identity). None (logged) when prerender is down or refuses the supplier-token."""
        headers = visitor_headers(
            language=language, session_id=session_id, supplier_token=self.supplier_token, request_id=request_id
        )
        response = self._call("GET", "/generate-authless-token", None, headers=headers, request_id=request_id)
        if response is None:
            return None
        try:
            authless_id = response.json()["authless_id"]
        except (ValueError, KeyError, TypeError) as error:
            log.error("prerender authless id: unexpected body (request %s): %s", request_id, error)
            return None
        if not isinstance(authless_id, str) or not authless_id:
            log.error("prerender authless id: not a string (request %s)", request_id)
            return None
        return authless_id

    def merge_authless_menu(self, user: Visitor, authless_id: str, *, request_id: str | None = None) -> bool:
        """GET /v2/menu/merge-authless-menu at login: the planner menu the logged-out visitor `authless_id`
        built replaces the logged-in `user`'s (the supplier-token vouches for both identities). True when a
        menu was moved; False when there was none to move (prerender's 404) or on a failure (logged)."""
        if user.user_id is None:
            raise ValueError("merging an authless menu needs the logged-in user")
        response = self._call(
            "GET",
            "/menu/merge-authless-menu",
            user,
            params={"authless_id": authless_id},
            headers={"idempotency-key": f"shop-menu-merge-{uuid.uuid4().hex}"},
            request_id=request_id,
            version="v2",
            expected=frozenset({404}),
        )
        return response is not None

    def merge_authless_basket(
        self, user: Visitor, authless_id: str, *, store_id: str, request_id: str | None = None
    ) -> dict[str, Any] | None:
        """GET /basket/merge-authless-basket at login: the recipe basket of the logged-out visitor
        `authless_id` joins the logged-in `user`'s, at the store. The supplier-token vouches for both
        identities (the shop issued the one and logged the other in). Answers prerender's {basket, changes},
        or None (logged) on any failure. An idempotency key lets prerender retry the write upstream."""
        if user.user_id is None:
            raise ValueError("merging an authless basket needs the logged-in user")
        response = self._call(
            "GET",
            "/basket/merge-authless-basket",
            user,
            params={"authless_id": authless_id, "store_id": store_id},
            headers={"idempotency-key": f"shop-merge-{uuid.uuid4().hex}"},
            request_id=request_id,
        )
        if response is None:
            return None
        try:
            merged = response.json()
        except ValueError as error:
            log.error("prerender basket merge: unexpected body (request %s): %s", request_id, error)
            return None
        if not isinstance(merged, dict):
            log.error("prerender basket merge: unexpected body (request %s)", request_id)
            return None
        return merged


def is_html(response: requests.Response) -> bool:
    """Whether an answer is an HTML fragment (its media type, whatever its charset)."""
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower() == "text/html"


def _problem_errors(response: requests.Response) -> Mapping[str, Any]:
    """The field errors of a problem+json answer ({"query": {"mode": [...]}}), or {} for any other body."""
    try:
        body = response.json()
    except ValueError:
        return {}
    errors = body.get("errors") if isinstance(body, dict) else None
    return errors if isinstance(errors, dict) else {}

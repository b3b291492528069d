"""The blog's client of prerender, as a publisher's server would write it.

Three calls: a new reader's authless id (`generate-authless-token`), the no-supplier add-to-cart button of a
recipe (`no-supplier-add-to-cart-cta`) and the stylesheets (`styles/<component>`). Each sends the mandatory
headers (README.md), with the supplier token, which travels only here, from the blog's server to prerender.
Short timeouts, one `requests.Session` per thread (the shop's, examples/shop/sessions.py), and no exception
ever: a call that fails, is late or answers anything but 200 is an empty answer, logged, and the page renders
without the button.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import requests

from examples.shop.sessions import ThreadLocalSessions, pooled_session

if TYPE_CHECKING:
    from .reader import Reader

log = logging.getLogger(__name__)

CTA_PATH = "/no-supplier-add-to-cart-cta"


def identity_headers(
    *, language: str, session_id: str, supplier_token: str, request_id: str | None = None
) -> dict[str, str]:
    """The headers of a call made before the reader has an identity (the authless id's issuing)."""
    headers = {"supplier-token": supplier_token, "language-id": language, "session-id": session_id}
    if request_id:
        headers["x-request-id"] = request_id
    return headers


def fragment_headers(reader: Reader, *, supplier_token: str, request_id: str | None = None) -> dict[str, str]:
    """The headers of a fragment call: a blog's reader is always logged out (`authless-id`, never
    `authorization`), so only a reader with an authless id can get fragments."""
    if not reader.authless_id:
        raise ValueError("a fragment call needs the reader's authless id")
    headers = identity_headers(
        language=reader.language, session_id=reader.session_id, supplier_token=supplier_token, request_id=request_id
    )
    headers["authless-id"] = reader.authless_id
    return headers


class PrerenderClient:
    """Calls prerender's identity, button and styles routes for the blog's server. Thread-safe."""

    def __init__(
        self,
        base_url: str,
        supplier_token: str,
        *,
        api_version: str = "v1",
        connect_timeout: float = 0.5,
        read_timeout: float = 3.0,
        styles_ttl: float = 60.0,
        pool_size: int = 8,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.supplier_token = supplier_token
        self.api_version = api_version
        self.timeout = (connect_timeout, read_timeout)
        self.styles_ttl = styles_ttl
        self._clock = clock
        self._sessions = ThreadLocalSessions(factory=lambda: pooled_session(pool_size=pool_size))
        self._styles: dict[str, tuple[float, str]] = {}
        self._styles_lock = threading.Lock()

    def _get(
        self, path: str, headers: Mapping[str, str], *, params: Mapping[str, Any] | None = None
    ) -> requests.Response | None:
        """One GET; None (logged) when prerender is down, late, or answers anything but 200."""
        url = f"{self.base_url}/{self.api_version}{path}"
        request_id = headers.get("x-request-id")
        try:
            response = self._sessions.get().get(url, params=params, headers=dict(headers), timeout=self.timeout)
        except requests.RequestException as error:
            log.warning("prerender GET %s failed (request %s): %s", path, request_id, error)
            return None
        if response.status_code != 200:
            level = logging.ERROR if 400 <= response.status_code < 500 else logging.WARNING
            log.log(
                level,
                "prerender GET %s answered %s (request %s): %.300s",
                path,
                response.status_code,
                request_id,
                response.text,
            )
            return None
        return response

    # ------------------------------------------------------------------ routes

    def generate_authless_id(self, *, language: str, session_id: str, request_id: str | None = None) -> str | None:
        """GET /generate-authless-token: a new reader's authless id, or None (logged) when prerender is down or
        refuses the supplier-token."""
        headers = identity_headers(
            language=language, session_id=session_id, supplier_token=self.supplier_token, request_id=request_id
        )
        response = self._get("/generate-authless-token", headers)
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

    def add_to_cart_cta(self, reader: Reader, recipe_id: str, *, guests: int, request_id: str | None = None) -> str:
        """GET /no-supplier-add-to-cart-cta for one of the blog's recipes (its own id, which prerender looks up
        as the recipe's external id): the button's HTML and its module scripts, or "" (no button: a recipe the
        retailer does not know answers an empty body, a failure nothing)."""
        response = self._get(
            CTA_PATH,
            fragment_headers(reader, supplier_token=self.supplier_token, request_id=request_id),
            params={"recipe_id": recipe_id, "guests": guests},
        )
        if response is None:
            return ""
        if response.headers.get("Content-Type", "").split(";")[0].strip().lower() != "text/html":
            log.error("prerender add-to-cart button: not an HTML fragment (request %s)", request_id)
            return ""
        if "charset" not in response.headers.get("Content-Type", "").lower():
            response.encoding = "utf-8"  # HTML without a declared charset is UTF-8 (requests would guess Latin-1)
        return response.text.strip()

    def styles(self, reader: Reader, component: str, *, request_id: str | None = None) -> str:
        """GET /styles/<component>: the `<link>` tags to put in <head>, kept `styles_ttl` seconds."""
        now = self._clock()
        with self._styles_lock:
            cached = self._styles.get(component)
        if cached is not None and cached[0] > now:
            return cached[1]
        headers = fragment_headers(reader, supplier_token=self.supplier_token, request_id=request_id)
        response = self._get(f"/styles/{component}", headers)
        if response is None:
            return ""  # not cached: the next page tries again
        try:
            html = str(response.json()["html"])
        except (ValueError, KeyError, TypeError) as error:
            log.error("prerender styles %s: unexpected body (request %s): %s", component, request_id, error)
            return ""
        with self._styles_lock:
            self._styles[component] = (now + self.styles_ttl, html)
        return html

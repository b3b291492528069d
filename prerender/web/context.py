"""The shared before_request header guard: headers in, a frozen RequestContext on `g.ctx` out.

Spec, Authentication; DESIGN section 3. Every versioned route goes through it; OPTIONS preflights do not
(they carry no credentials).
"""
from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request

from prerender.web.errors import ValidationProblem
from prerender.gateway import CallerIdentity, Supplier, UpstreamError, get_gateway
from prerender.rendering.i18n import SUPPORTED_LANGUAGES
from prerender.schemas.fields import IDENTITY_MESSAGE, IDENTITY_PATTERN

log = logging.getLogger(__name__)

_AUTHORIZATION = re.compile(r"^user_id (?P<id>\S+)$")
_LANGUAGE = re.compile(r"^(?P<language>[a-z]{2})(?:-(?P<variant>[a-z0-9_]{1,32}))?$")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
# The headers a sendBeacon body may carry in its `headers` object.
BEACON_HEADERS = frozenset({"authorization", "authless-id", "language-id", "session-id", "supplier-token",
                            "profiling"})


@dataclass(frozen=True)
class RequestContext:
    """Who is asking, for which supplier, in which language: everything a view needs from the headers."""

    api_version: str
    request_id: str
    session_id: str
    language: str
    i18n_variant: str | None
    user_id: str | None = None
    authless_id: str | None = None
    supplier: Supplier | None = None
    # Forwarded upstream only when it resolved to a supplier; kept out of reprs (and so of logs).
    supplier_token: str | None = field(default=None, repr=False)
    profiling: bool = True

    @property
    def is_connected(self) -> bool:
        """A connected user is one named by `authorization: user_id`; authless users are not."""
        return self.user_id is not None

    @property
    def upstream_authorization(self) -> str:
        """The upstream `Authorization`: the spec turns `authless-id` into it for logged-out users."""
        if self.user_id is not None:
            return f"user_id {self.user_id}"
        return f"authless_id {self.authless_id}"

    @property
    def upstream(self) -> CallerIdentity:
        """The identity upstream calls are made with."""
        return CallerIdentity(authorization=self.upstream_authorization, supplier_token=self.supplier_token,
                              supplier_id=self.supplier.id if self.supplier else None,
                              language=self.language, session_id=self.session_id,
                              profiling=self.upstream_profiling, request_id=self.request_id)

    @property
    def upstream_profiling(self) -> bool:
        """Profiling upstream: off when asked, and off when personalization is (spec, item 8: user
        preferences disabled), so the cards of such a supplier do not depend on who is asking."""
        return self.profiling and self.personalization

    @property
    def personalization(self) -> bool:
        """Supplier features that depend on the user (like, cart CTA); off without a known supplier."""
        return self.supplier is not None and self.supplier.personalization


View = TypeVar("View", bound=Callable[..., Any])


def accepts_beacon_headers(view: View) -> View:
    """Mark a view whose caller may be navigator.sendBeacon, which cannot set headers: the mandatory
    headers may then come in the JSON body's `headers` object (docs/browser-api.md)."""
    view.accepts_beacon_headers = True  # type: ignore[attr-defined]
    return view


def _request_headers() -> Mapping[str, str]:
    """The request's headers, lower-cased; for a beacon view, completed by the body's `headers` object."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "accepts_beacon_headers", False) and "session-id" not in headers:
        try:
            body = json.loads(request.get_data(cache=True) or b"{}")
        except (ValueError, RecursionError):
            body = None
        if isinstance(body, dict) and isinstance(body.get("headers"), dict):
            given = {str(k).lower(): str(v) for k, v in body["headers"].items()}
            headers.update({k: v for k, v in given.items() if k in BEACON_HEADERS})
    return headers



def _parse_headers(headers: Mapping[str, str], api_version: str, request_id: str) -> tuple[dict, dict[str, list[str]]]:
    """Read the mandatory and optional headers; return the values and the per-header errors."""
    values: dict = {"api_version": api_version, "request_id": request_id}
    errors: dict[str, list[str]] = {}

    authorization = headers.get("authorization")
    authless_id = headers.get("authless-id")
    if authorization is not None:
        match = _AUTHORIZATION.match(authorization.strip())
        if match and IDENTITY_PATTERN.match(match.group("id")):
            values["user_id"] = match.group("id")
        else:
            errors["authorization"] = [f"Must be 'user_id <USER_ID>'. {IDENTITY_MESSAGE}"]
    if authless_id is not None:
        if IDENTITY_PATTERN.match(authless_id.strip()):
            values["authless_id"] = authless_id.strip()
        else:
            errors["authless-id"] = [IDENTITY_MESSAGE]
    if authorization is None and authless_id is None:
        errors["authorization"] = ["Send 'authorization: user_id <USER_ID>' or 'authless-id: <ID>'."]

    language = (headers.get("language-id") or "").strip().lower()
    match = _LANGUAGE.match(language)
    if not language:
        errors["language-id"] = ["Missing header."]
    elif not match or match.group("language") not in SUPPORTED_LANGUAGES:
        errors["language-id"] = [f"Must be one of {', '.join(SUPPORTED_LANGUAGES)}, optionally followed by -<retailer>."]
    else:
        values["language"] = match.group("language")
        values["i18n_variant"] = match.group("variant")

    session_id = (headers.get("session-id") or "").strip()
    if not session_id:
        errors["session-id"] = ["Missing header."]
    elif not IDENTITY_PATTERN.match(session_id):
        errors["session-id"] = [IDENTITY_MESSAGE]
    else:
        values["session_id"] = session_id

    profiling = headers.get("profiling")
    if profiling is not None:
        if profiling.strip().lower() in _BOOLEANS:
            values["profiling"] = _BOOLEANS[profiling.strip().lower()]
        else:
            errors["profiling"] = ["Must be 'true' or 'false'."]
    return values, errors


def _resolve_supplier(token: str | None) -> Supplier | None:
    """The supplier of the token, or None (spec: a missing or invalid token is logged, not an error)."""
    if not token:
        log.warning("request without supplier-token on %s", request.path)
        return None
    try:
        supplier = get_gateway().supplier(token, request_id=g.request_id)
    except UpstreamError as error:
        log.error("supplier lookup failed, rendering without supplier features: %s", error)
        return None
    if supplier is None:
        log.warning("invalid supplier-token on %s", request.path)
    return supplier


def request_id() -> str:
    """The caller's X-Request-Id when it is sane, else a new one."""
    given = request.headers.get("x-request-id", "")
    return given if _REQUEST_ID.match(given) else uuid.uuid4().hex


def load_request_context() -> None:
    """before_request guard of the versioned blueprints: headers -> g.ctx, or a 400 problem."""
    if request.method == "OPTIONS":
        return
    headers = _request_headers()
    values, errors = _parse_headers(headers, request.blueprints[-1], g.request_id)
    if errors:
        raise ValidationProblem({"headers": errors}, "Missing or malformed request headers.")
    token = headers.get("supplier-token", "").strip() or None
    supplier = _resolve_supplier(token)
    if supplier is not None:
        values["supplier"] = supplier
        values["supplier_token"] = token
    g.ctx = RequestContext(**values)


def assign_request_id() -> None:
    """First before_request of the app: every request, versioned or not, gets an id for logs and upstream."""
    g.request_id = request_id()


def echo_request_id(response: Response) -> Response:
    """Return the request id so a customer can quote it."""
    if "request_id" in g:
        response.headers["X-Request-Id"] = g.request_id
    return response


def register_request_id(app: Flask) -> None:
    """Attach the request-id hooks to the app."""
    app.before_request(assign_request_id)
    app.after_request(echo_request_id)


def current_context() -> RequestContext:
    """The RequestContext of the current request (set by the guard)."""
    return g.ctx



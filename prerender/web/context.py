"""The shared before_request header guard: headers in, a frozen RequestContext on `g.ctx` out.

Every versioned route goes through it (prerender/blueprints/__init__.py); OPTIONS preflights do not (they
carry no credentials). The headers' rules are the schema prerender/schemas/headers.py, which the OpenAPI
document publishes too.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, g, request
from marshmallow import ValidationError

from prerender.gateway import CallerIdentity, Supplier, UpstreamError, get_gateway
from prerender.schemas.headers import RequestHeaders, VisitorHeaders
from prerender.web.contract import RouteContract, contract_of
from prerender.web.errors import ValidationProblem

log = logging.getLogger(__name__)

REQUEST_HEADERS = RequestHeaders()
# Routes declared with `identity=False` (prerender/web/contract.py) take the same headers, identity optional.
VISITOR_HEADERS = VisitorHeaders()
# The headers the schema reads, as sent (lower case); a sendBeacon body may carry them in its `headers`.
HEADER_NAMES = tuple(field.data_key or name for name, field in REQUEST_HEADERS.fields.items())
BEACON_HEADERS = frozenset(HEADER_NAMES)


@functools.lru_cache(maxsize=4096)
def load_headers(values: tuple[str | None, ...], *, identity: bool = True) -> tuple[tuple[str, Any], ...]:
    """The context's values for the values of HEADER_NAMES (None: absent). Loading is a pure function of
    them, and a page's requests repeat them: remembered, as marshmallow's load is ten times the cost of a
    lookup. A ValidationError is raised, never remembered."""
    given = {name: value for name, value in zip(HEADER_NAMES, values, strict=True) if value is not None}
    return tuple((REQUEST_HEADERS if identity else VISITOR_HEADERS).load(given).items())


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
        """The upstream `Authorization`: `authless-id` becomes `authless_id <ID>` for logged-out users."""
        if self.user_id is not None:
            return f"user_id {self.user_id}"
        return f"authless_id {self.authless_id}"

    @property
    def upstream(self) -> CallerIdentity:
        """The identity upstream calls are made with."""
        return CallerIdentity(
            authorization=self.upstream_authorization,
            supplier_token=self.supplier_token,
            supplier_id=self.supplier.id if self.supplier else None,
            language=self.language,
            session_id=self.session_id,
            profiling=self.upstream_profiling,
            request_id=self.request_id,
        )

    @property
    def upstream_profiling(self) -> bool:
        """Profiling upstream: off when asked, and off when personalization is (a supplier without
        personalization has user preferences disabled), so such a supplier's cards do not depend on who asks."""
        return self.profiling and self.personalization

    @property
    def personalization(self) -> bool:
        """Supplier features that depend on the user (like, cart CTA); off without a known supplier."""
        return self.supplier is not None and self.supplier.personalization


def _request_headers(contract: RouteContract | None) -> Mapping[str, str]:
    """The request's headers, lower-cased; for a beacon route, completed by the body's `headers` object."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    if contract is not None and contract.beacon and "session-id" not in headers:
        try:
            body = json.loads(request.get_data(cache=True) or b"{}")
        except (ValueError, RecursionError):
            body = None
        if isinstance(body, dict) and isinstance(body.get("headers"), dict):
            given = {str(k).lower(): str(v) for k, v in body["headers"].items()}
            headers.update({k: v for k, v in given.items() if k in BEACON_HEADERS})
    return headers


def _resolve_supplier(token: str | None) -> Supplier | None:
    """The supplier of the token, or None (a missing or invalid token is logged, not an error)."""
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


def load_request_context() -> None:
    """before_request guard of the versioned blueprints: headers -> g.ctx, or a 400 problem."""
    if request.method == "OPTIONS":
        return
    contract = contract_of(current_app.view_functions.get(request.endpoint or ""))
    headers = _request_headers(contract)
    identity = contract is None or contract.identity
    try:
        values = dict(load_headers(tuple(headers.get(name) for name in HEADER_NAMES), identity=identity))
    except ValidationError as error:
        raise ValidationProblem(
            {"headers": dict(error.normalized_messages())}, "Missing or malformed request headers."
        ) from error
    token = values.pop("supplier_token")
    supplier = _resolve_supplier(token)
    g.ctx = RequestContext(
        api_version=request.blueprints[-1],
        request_id=g.request_id,
        supplier=supplier,
        supplier_token=token if supplier is not None else None,
        **values,
    )


def current_context() -> RequestContext:
    """The RequestContext of the current request (set by the guard)."""
    ctx: RequestContext = g.ctx
    return ctx

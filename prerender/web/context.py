"""The shared before_request header guard: headers in, a frozen RequestContext on `g.ctx` out.

Every versioned route goes through it (prerender/blueprints/__init__.py); OPTIONS preflights do not (they
carry no credentials). The headers' rules are the schemas of prerender/schemas/headers.py, which the OpenAPI
document publishes too. Who the shopper is depends on who calls the route (`Callers` of its declaration,
docs/security.md): the customer's server names the shopper in the specification's headers, trusted with its
supplier-token; a browser proves it with the credential prerender issued (`Authorization: Bearer`), and the
supplier is the credential's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, g, request
from marshmallow import ValidationError
from werkzeug.exceptions import Forbidden

from plumbing.log_text import clipped
from plumbing.problems import ValidationProblem
from prerender.gateway import CallerIdentity, Refused, Supplier, UpstreamError, fallbacks, get_upstream
from prerender.metrics import UNVOUCHED_REQUESTS
from prerender.schemas.headers import (
    BEARER_PATTERN,
    BEARER_SCHEME,
    OWS,
    BrowserHeaders,
    RequestHeaders,
    VisitorHeaders,
    header_value,
)
from prerender.web.contract import Callers, RouteContract, request_contract
from prerender.web.credentials import InvalidCredential, Shopper, get_signer
from prerender.web.errors import CredentialProblem, SupplierUncheckedProblem
from prerender.web.throttled_log import ThrottledWarning
from prerender.web.upstream_budget import is_fragment_route

log = logging.getLogger(__name__)
# The supplier-token warnings' throttles (prerender/web/throttled_log.py), per app; one line per kind a while at most.
TOKEN_WARNINGS_KEY = "prerender.token_warnings"
TOKEN_WARNING_SECONDS = 10.0

REQUEST_HEADERS = RequestHeaders()
# Routes declared with `identity=False` (prerender/web/contract.py) take the same headers, identity optional.
VISITOR_HEADERS = VisitorHeaders()
# The headers the schema reads, as sent (lower case); a sendBeacon body may carry them in its `headers`.
HEADER_NAMES = tuple(field.data_key or name for name, field in REQUEST_HEADERS.fields.items())
BROWSER_HEADERS = BrowserHeaders()
BROWSER_HEADER_NAMES = tuple(field.data_key or name for name, field in BROWSER_HEADERS.fields.items())
BEACON_HEADERS = frozenset(HEADER_NAMES)
# What a customer's server sends on a route either may call: an identity, or its supplier-token.
ANY_SERVER_CREDENTIAL = frozenset({"authorization", "authless-id", "supplier-token"})


@functools.lru_cache(maxsize=4096)
def load_headers(values: tuple[str | None, ...], *, identity: bool = True) -> tuple[tuple[str, Any], ...]:
    """The context's values for the values of HEADER_NAMES (None: absent). Loading is a pure function of
    them, and a page's requests repeat them: remembered, as marshmallow's load is ten times the cost of a
    lookup. A ValidationError is raised, never remembered."""
    given = {name: value for name, value in zip(HEADER_NAMES, values, strict=True) if value is not None}
    return tuple((REQUEST_HEADERS if identity else VISITOR_HEADERS).load(given).items())


@functools.lru_cache(maxsize=1024)
def load_browser_headers(values: tuple[str | None, ...]) -> tuple[tuple[str, Any], ...]:
    """The context's values for the values of BROWSER_HEADER_NAMES (remembered, like load_headers)."""
    given = {name: value for name, value in zip(BROWSER_HEADER_NAMES, values, strict=True) if value is not None}
    return tuple(BROWSER_HEADERS.load(given).items())


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
    # A browser's request: the shopper of its credential; the upstream is then called as a service with
    # this key, for the credential's supplier (docs/upstream.md).
    shopper: Shopper | None = None
    service_key: str | None = field(default=None, repr=False)
    # The supplier-token could not be checked (the upstream failed): no supplier, but not an unknown token
    # either. A page may say "try again" rather than "not available here" (prerender/web/degraded.py).
    supplier_lookup_failed: bool = False

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
            service_key=self.service_key,
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

    @property
    def vouched_shopper(self) -> Shopper | None:
        """The shopper this request may get a credential for: the one a customer's server named with a valid
        supplier-token (None without a known supplier: nobody vouched)."""
        if self.supplier is None or self.supplier_token is None:
            return None
        return Shopper(supplier_id=self.supplier.id, user_id=self.user_id, authless_id=self.authless_id)


def _request_headers(contract: RouteContract | None) -> Mapping[str, str]:
    """The request's headers, lower-cased, one sent twice read as headers.py's `header_value` does; for a beacon
    route, completed by the body's `headers` object."""
    headers = {name.lower(): header_value(name, value) for name, value in request.headers.items()}
    if contract is not None and contract.beacon and "session-id" not in headers:
        try:
            body = json.loads(request.get_data(cache=True) or b"{}")
        except (ValueError, RecursionError):
            body = None
        if isinstance(body, dict) and isinstance(body.get("headers"), dict):
            given = {str(k).lower(): str(v) for k, v in body["headers"].items()}
            headers.update({k: v for k, v in given.items() if k in BEACON_HEADERS})
    return headers


def _warn_once_a_while(kind: str, message: str, *args: object) -> None:
    """A warning about the request's supplier-token, which anyone may cause at will: throttled per kind and app."""
    throttles: dict[str, ThrottledWarning] = current_app.extensions.setdefault(TOKEN_WARNINGS_KEY, {})
    throttle = throttles.get(kind) or throttles.setdefault(kind, ThrottledWarning(log, seconds=TOKEN_WARNING_SECONDS))
    throttle.warn(message, *args)


def _resolve_supplier(token: str | None) -> tuple[Supplier | None, bool]:
    """The supplier of the token, or None (a missing or invalid token is logged, not an error: once a while, with
    how many more there were); and whether the lookup failed (the upstream did not answer it)."""
    if not token:
        UNVOUCHED_REQUESTS.labels("missing").inc()
        _warn_once_a_while("missing", "request without supplier-token on %s", clipped(request.path))
        return None, False
    try:
        supplier = get_upstream().suppliers.by_token(token, request_id=g.request_id)
    except UpstreamError as error:
        UNVOUCHED_REQUESTS.labels("unchecked").inc()
        # Not sent (a breaker, a bulkhead, too many tokens never seen valid): anyone may cause it, so throttled.
        if isinstance(error, Refused):
            _warn_once_a_while("refused", "supplier lookup not sent, rendering without supplier features: %s", error)
        else:
            log.log(
                fallbacks.failure_level(error), "supplier lookup failed, rendering without supplier features: %s", error
            )
        return None, True
    if supplier is None:
        UNVOUCHED_REQUESTS.labels("invalid").inc()
        # Which token, without writing it: its fingerprint, which an operator can compute from each customer's
        # configured token (docs/operations.md, "Logs"), and where it was sent.
        _warn_once_a_while(
            "invalid", "invalid supplier-token %s on %s", token_fingerprint(token), clipped(request.path)
        )
    return supplier, False


def token_fingerprint(token: str) -> str:
    """`sha256:` and the first 8 hex digits of the token's SHA-256: tells a customer's token from another in the
    log, and cannot be turned back into it."""
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()[:8]


def load_request_context() -> None:
    """before_request guard of the versioned blueprints: headers -> g.ctx, or a 400 or 401 problem."""
    if request.method == "OPTIONS":
        return
    contract = request_contract()
    headers = _request_headers(contract)
    callers = contract.callers if contract is not None else Callers.SERVER
    authorization = headers.get("authorization", "").strip(OWS)
    # A Bearer credential, well formed or not, is a browser's: on a route either may call, a malformed one is the
    # browser's 401 (invalid_token), not a server's 400 about `user_id`.
    claims_bearer = BEARER_SCHEME.match(authorization) is not None
    bearer = BEARER_PATTERN.fullmatch(authorization)
    if callers is Callers.BROWSER or (callers is Callers.SERVER_OR_BROWSER and claims_bearer):
        if claims_bearer and bearer is None:
            raise CredentialProblem(
                "Invalid credential: send 'Authorization: Bearer <credential>', one credential as the fragment "
                "or the bootstrap gave it.",
                invalid=True,
            )
        g.ctx = _browser_context(headers, bearer.group(1) if bearer else None)
    elif callers is Callers.SERVER_OR_BROWSER and not ANY_SERVER_CREDENTIAL.intersection(headers):
        # Neither a browser's credential nor anything of a server's (a page whose SDK has no credential yet): a 401
        # naming both, which the SDK reads as "sign in again", not a 400 telling a browser to send a server's headers.
        raise CredentialProblem(
            "Send the shopper's credential (Authorization: Bearer), or, from your server, the specification's "
            "headers with your supplier-token (docs/security.md).",
            or_supplier_token=True,
        )
    else:
        g.ctx = _server_context(headers, identity=contract is None or contract.identity)
        if g.ctx.supplier_lookup_failed and contract is not None and not is_fragment_route(contract):
            # A fragment degrades without its supplier; a JSON route would answer as for an unknown token (a 401 or
            # 403 sending the caller to a token that may be fine): the service's failure, said as such.
            raise SupplierUncheckedProblem()


def _server_context(headers: Mapping[str, str], *, identity: bool) -> RequestContext:
    """A customer's server's request: the specification's headers."""
    try:
        values = dict(load_headers(tuple(headers.get(name) for name in HEADER_NAMES), identity=identity))
    except ValidationError as error:
        raise ValidationProblem(
            {"headers": dict(error.normalized_messages())}, "Missing or malformed request headers."
        ) from error
    token = values.pop("supplier_token")
    supplier, lookup_failed = _resolve_supplier(token)
    return RequestContext(
        api_version=request.blueprints[-1],
        request_id=g.request_id,
        supplier=supplier,
        supplier_token=token if supplier is not None else None,
        supplier_lookup_failed=lookup_failed,
        **values,
    )


def _browser_context(headers: Mapping[str, str], credential: str | None) -> RequestContext:
    """A browser's request: the shopper of a valid credential, for the credential's supplier; a 401 problem
    without one (a claim in the specification's headers proves nothing here)."""
    if credential is None:
        raise CredentialProblem(
            "This route acts for the shopper of a credential: send 'Authorization: Bearer <credential>', "
            "the credential a fragment or the bootstrap gave the page (docs/security.md)."
        )
    try:
        shopper = get_signer().verify(credential)
    except InvalidCredential as error:
        raise CredentialProblem(f"Invalid credential: {error}.", invalid=True) from error
    try:
        values = dict(load_browser_headers(tuple(headers.get(name) for name in BROWSER_HEADER_NAMES)))
    except ValidationError as error:
        raise ValidationProblem(
            {"headers": dict(error.normalized_messages())}, "Missing or malformed request headers."
        ) from error
    service_key = current_app.config["UPSTREAM_SERVICE_KEY"]
    supplier = get_upstream().suppliers.by_id(shopper.supplier_id, service_key=service_key, request_id=g.request_id)
    if supplier is None:
        raise CredentialProblem("Invalid credential: its supplier is no longer known.", invalid=True)
    return RequestContext(
        api_version=request.blueprints[-1],
        request_id=g.request_id,
        user_id=shopper.user_id,
        authless_id=shopper.authless_id,
        supplier=supplier,
        shopper=shopper,
        service_key=service_key,
        **values,
    )


def current_context() -> RequestContext:
    """The RequestContext of the current request (set by the guard)."""
    ctx: RequestContext = g.ctx
    return ctx


def check_server_vouches(ctx: RequestContext, refusal: str) -> None:
    """A customer server's request (no browser credential) on a route either may call and that acts for a shopper
    (the merges, the payment): its valid supplier-token vouches for the shopper its headers name. Without one, a 401
    (`refusal`) naming both credentials that would do."""
    if ctx.supplier is None:
        raise CredentialProblem(refusal, or_supplier_token=True)


def basket_owner() -> RequestContext:
    """The request's context when it has a basket: a basket belongs to a supplier's shopper
    (docs/security.md), so without a known supplier there is none (checked once the request is valid)."""
    ctx = current_context()
    if ctx.supplier is None:
        raise Forbidden("Baskets need a valid supplier-token: they belong to a supplier's shoppers.")
    return ctx

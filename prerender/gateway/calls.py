"""What every resource module's upstream calls share (docs/upstream.md): who a call is made for, the API's root,
one call made for that caller (`send`), a path segment made safe, and the checks on what the upstream answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from prerender.gateway.errors import UnknownStore, UpstreamBadResponse, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import SERVICE_KEY_HEADER, UpstreamHttp
from prerender.gateway.tenant_breakers import tenant_key

API = "/api/v1"
# The most ids one batch read names (the upstream's own limit on `ids` and `recipe_ids`).
BATCH_LIMIT = 100


def segment(value: str) -> str:
    """An id made safe as one URL path segment. `.` and `..` cannot be: HTTP clients resolve them as dot segments
    (and decode `%2E`), so the call would go up the path. The routes refuse them first (prerender/schemas/cta.py)."""
    if value in (".", ".."):
        raise ValueError(f"{value!r} is a dot segment, not an id: it cannot stay inside one path segment")
    return quote(value, safe="")


def service_headers(service_key: str, supplier_id: str) -> dict[str, str]:
    """How prerender calls the upstream for a supplier it knows by id only (a browser's credential)."""
    return {SERVICE_KEY_HEADER: service_key, "Supplier-Id": supplier_id}


@dataclass(frozen=True)
class CallerIdentity:
    """Who an upstream call is made for; built from the request headers by the guard."""

    authorization: str | None
    supplier_token: str | None = field(repr=False)
    supplier_id: str | None
    language: str
    session_id: str | None
    profiling: bool
    request_id: str
    # For a browser's credential: prerender calls as a service, naming the supplier by id (docs/upstream.md).
    service_key: str | None = field(default=None, repr=False)

    @property
    def tenant(self) -> str:
        """The tenant its calls are made for: its supplier's id (known once the token resolved), never the token
        (prerender/gateway/tenant_breakers.py)."""
        return tenant_key(self.supplier_id, self.supplier_token)

    def headers(self) -> dict[str, str]:
        headers = {
            "Language-Id": self.language,
            "Profiling": "true" if self.profiling else "false",
            "X-Request-Id": self.request_id,
            "Accept": "application/json",
        }
        if self.authorization:
            headers["Authorization"] = self.authorization
        if self.supplier_token:
            headers["Supplier-Token"] = self.supplier_token
        elif self.service_key and self.supplier_id:
            headers.update(service_headers(self.service_key, self.supplier_id))
        if self.session_id:
            headers["Session-Id"] = self.session_id
        return headers


def send(
    http: UpstreamHttp,
    identity: CallerIdentity,
    method: str,
    path: str,
    *,
    resource: Resource,
    name: str,
    params: Mapping[str, Any] | None = None,
    json: Any = None,
    idempotent: bool = True,
    expect_body: bool = True,
    key: str | None = None,
) -> Any:
    """One call to the upstream's `path` (below API) with `identity`'s headers, guarded by `resource`'s breakers
    (the shared one and `identity`'s tenant's) and bulkhead, `name` in the metrics; retried after a connection
    error or a 502-504 unless `idempotent` is False (gateway/http.py); a write's idempotency key, when it has one,
    as `Idempotency-Key`. The decoded JSON answer. A 401 refuses the identity's supplier-token: it is told to
    `http.token_refused` (revoked since its supplier was cached)."""
    headers = identity.headers()
    if key is not None:
        headers["Idempotency-Key"] = key
    try:
        return http.request(
            method,
            f"{API}{path}",
            resource=resource,
            name=name,
            params=params,
            json=json,
            headers=headers,
            idempotent=idempotent,
            expect_body=expect_body,
            tenant=identity.tenant,
        )
    except UpstreamStatusError as error:
        if error.status == 401 and identity.supplier_token and http.token_refused is not None:
            http.token_refused(identity.supplier_token)
        raise


def expect_object(payload: Any, what: str) -> dict[str, Any]:
    """The upstream's answer when it is a JSON object; UpstreamBadResponse otherwise."""
    if not isinstance(payload, dict):
        raise UpstreamBadResponse(f"{what}: expected an object")
    return payload


# `preferences=apply`: the shopper's stored preferences narrow what the upstream answers (docs/upstream.md,
# "Applying preferences"); a query of the catalog, of suggestions or of the menu takes it.
APPLY_PREFERENCES = "apply"


def present(**values: Any) -> dict[str, Any]:
    """Query parameters without those left unset (None)."""
    return {name: value for name, value in values.items() if value is not None}


def names_unknown_store(error: UpstreamStatusError) -> bool:
    """Whether the upstream refused the call for its `store_id` (a 400 naming it: a store it does not know)."""
    return error.status == 400 and bool(
        error.field_errors("query", "store_id") or error.field_errors("json", "store_id")
    )


def raise_unknown_store(error: UpstreamStatusError) -> None:
    """An upstream 400 on `store_id` as the UnknownStore it is (the customer sees a 400); else nothing."""
    if names_unknown_store(error):
        raise UnknownStore(error.status, error.problem, error.endpoint) from error

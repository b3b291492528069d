"""The upstream calls that browser routes forward (prerender/web/forwarding.py declares each one): a write of the
shopper's basket or menu, made with the shopper's identity and the browser's idempotency key, answering the
upstream's JSON object."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prerender.gateway.calls import CallerIdentity, raise_unknown_store, segment, send
from prerender.gateway.errors import UpstreamBadResponse, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp


@dataclass(frozen=True)
class UpstreamCall:
    """One upstream call: its method, its path below /api/v1 (`{name}` placeholders take the route's path
    segments, each quoted as one segment), the resource whose breaker and bulkhead guard it, the name its metrics
    carry, and whether it may be retried without an idempotency key (PUT and DELETE; POST, PATCH and the merges'
    GET, which write, only with a key: the upstream then answers a repeat with the first outcome)."""

    method: str
    path: str
    resource: Resource
    name: str
    idempotent: bool

    @classmethod
    def write(cls, method: str, path: str, resource: Resource, *, name: str) -> UpstreamCall:
        """A write, retried without a key only when its method is idempotent (PUT, DELETE)."""
        return cls(method, path, resource, name=name, idempotent=method in ("PUT", "DELETE"))

    def url_path(self, segments: Mapping[str, str]) -> str:
        """The call's path with the segments in place."""
        return self.path.format_map({name: segment(value) for name, value in segments.items()})


class UpstreamForwarder:
    """Makes the calls browser routes forward."""

    def __init__(self, *, http: UpstreamHttp) -> None:
        self.http = http

    def forward(
        self,
        call: UpstreamCall,
        identity: CallerIdentity,
        *,
        segments: Mapping[str, str] | None = None,
        body: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """The upstream's JSON object for the call, made as every upstream call is (`send`: a refused supplier
        token is forgotten). Its 4xx pass through to the browser with their explanation (prerender/web/errors.py);
        one on an unknown `store_id` is UnknownStore (a 400 naming it)."""
        path = call.url_path(segments or {})
        try:
            payload = send(
                self.http,
                identity,
                call.method,
                path,
                resource=call.resource,
                name=call.name,
                json=body,
                params=params,
                idempotent=call.idempotent or key is not None,
                key=key,
            )
        except UpstreamStatusError as error:
            raise_unknown_store(error)
            raise
        if not isinstance(payload, dict):
            raise UpstreamBadResponse(f"{call.method} {path}: expected an object")
        return payload

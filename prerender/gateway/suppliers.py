"""Suppliers at the upstream (docs/upstream.md, "Suppliers"): who a supplier token or a credential's supplier id
is, cached (unknown included), and served stale while the upstream fails."""

from __future__ import annotations

from collections.abc import Callable

from prerender.gateway.calls import API, service_headers
from prerender.gateway.errors import UpstreamError, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import Supplier, parse_supplier
from prerender.gateway.read_cache import ReadCache, cache_key

# The upstream's detail when a service call names a supplier it does not know (docs/upstream.md).
UNKNOWN_SUPPLIER_ID = "Unknown Supplier-Id"


class SupplierGateway:
    """GET /suppliers/me, by token or (as a service) by id."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int, stale_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl
        # How long the last good answer is kept to serve while the upstream fails (stale-if-error).
        self.stale_ttl = stale_ttl

    def by_token(self, token: str, *, request_id: str) -> Supplier | None:
        """The supplier of a token, None when the upstream does not know it (cached, None included)."""
        return self._lookup(
            cache_key("supplier", token),
            {"Supplier-Token": token, "X-Request-Id": request_id},
            unknown=lambda error: error.status == 401,
        )

    def by_id(self, supplier_id: str, *, service_key: str, request_id: str) -> Supplier | None:
        """The supplier a credential names, None when the upstream no longer knows it (cached, None included).
        Only "no such supplier" is an answer; a refused service key is this deployment's mistake
        (UPSTREAM_SERVICE_KEY differs from the upstream's), raised and never cached."""
        return self._lookup(
            cache_key("supplier-id", supplier_id),
            {**service_headers(service_key, supplier_id), "X-Request-Id": request_id},
            unknown=lambda error: error.status == 401 and UNKNOWN_SUPPLIER_ID in str(error.problem.get("detail", "")),
        )

    def _lookup(
        self, key: str, headers: dict[str, str], *, unknown: Callable[[UpstreamStatusError], bool]
    ) -> Supplier | None:
        """GET /suppliers/me with these headers, cached under `key`; None (cached too) when `unknown` says the
        upstream's refusal means it knows no such supplier. While the upstream fails (unreachable, timeout, 5xx,
        refused by a guard), the last good answer is served for up to STALE_IF_ERROR_SECONDS: every request
        needs its supplier, so without it an outage would turn every fragment into a supplier-less one."""
        cached = self.cache.near_get(key)
        if cached is not None:
            known: Supplier | None = cached[0]
            return known
        try:
            payload = self.http.request(
                "GET",
                f"{API}/suppliers/me",
                resource=Resource.SUPPLIERS,
                name="supplier",
                idempotent=True,
                headers=headers,
            )
            supplier: Supplier | None = parse_supplier(payload)
        except UpstreamStatusError as error:
            if unknown(error):
                supplier = None
            elif error.status >= 500:
                return self._stale(key, error)
            else:
                raise
        except UpstreamError as error:
            return self._stale(key, error)
        self.cache.near_put(key, (supplier,), timeout=self.ttl)
        if supplier is not None:
            self.cache.set("stale:" + key, (supplier,), timeout=self.stale_ttl)
        else:  # a token revoked (or made up): its last good copy goes, and no day-long "unknown" one is kept
            self.cache.delete("stale:" + key)
        return supplier

    def _stale(self, key: str, error: UpstreamError) -> Supplier | None:
        """The last good answer of a supplier lookup, or the error when there is none."""
        supplier: Supplier | None = self.cache.stale(key, error, what="supplier")
        return supplier

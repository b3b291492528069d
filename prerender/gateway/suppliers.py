"""Suppliers at the upstream (docs/upstream.md, "GET /suppliers/me"): who a supplier token or a credential's supplier id
is, cached (unknown included), and served stale while the upstream fails."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from prerender.gateway import deadline
from prerender.gateway.calls import API, service_headers
from prerender.gateway.errors import Refused, UpstreamError, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import Supplier, parse_supplier
from prerender.gateway.read_cache import ReadCache, cache_key
from prerender.gateway.tenant_breakers import tenant_key
from prerender.memory_cache import LockedLru

# The upstream's detail when a service call names a supplier it does not know (docs/upstream.md).
UNKNOWN_SUPPLIER_ID = "Unknown Supplier-Id"
# Lookups of tokens never seen valid (no last good copy) in flight per worker: anyone may send a fresh made-up
# token with each request, and each would be a call to the upstream. A customer's token, once known, has its copy
# for a day; a burst of its first requests waits for one lookup (`FirstLookups`).
FIRST_LOOKUPS = 4
# How long a request waits for another's lookup of the same token, at most (within its own budget).
FIRST_LOOKUP_WAIT_SECONDS = 2.0
# Tokens a worker remembers it saw valid, with their supplier's id, for the door's count of a request
# (prerender/web/admission.py, `door_tenant`); the least recently used are forgotten first.
SEEN_TOKENS = 4096


def refused_token(error: UpstreamStatusError) -> bool:
    """Whether a lookup by token was refused because the upstream knows no such token (its 401)."""
    return error.status == 401


class FirstLookups:
    """The lookups of tokens never seen valid: one at a time per token (the others wait for its answer), at most
    `limit` tokens at once; beyond, refused unsent (the request goes on without a supplier)."""

    def __init__(self, *, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._in_flight: dict[str, threading.Event] = {}

    def run(self, key: str, lookup: Callable[[], Supplier | None], answer: Callable[[], Any]) -> Supplier | None:
        """`lookup()` for `key`, or, while another request looks it up, its answer (`answer()`: the cached value)."""
        with self._lock:
            waiting = self._in_flight.get(key)
            if waiting is None:
                if len(self._in_flight) >= self.limit:
                    raise Refused(Resource.SUPPLIERS.value)
                mine = self._in_flight[key] = threading.Event()
        if waiting is not None:
            left = deadline.remaining()
            waiting.wait(FIRST_LOOKUP_WAIT_SECONDS if left is None else max(0.0, min(left, FIRST_LOOKUP_WAIT_SECONDS)))
            cached = answer()
            if cached is None:
                raise Refused(Resource.SUPPLIERS.value)
            known: Supplier | None = cached[0]
            return known
        try:
            return lookup()
        finally:
            with self._lock:
                del self._in_flight[key]
            mine.set()


class SupplierGateway:
    """GET /suppliers/me, by token or (as a service) by id."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int, stale_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl
        # How long the last good answer is kept to serve while the upstream fails (stale-if-error).
        self.stale_ttl = stale_ttl
        self.first_lookups = FirstLookups(limit=FIRST_LOOKUPS)
        self._seen: LockedLru[str, str] = LockedLru(SEEN_TOKENS)  # a token's cache key: its supplier's id

    def seen_supplier_id(self, token: str) -> str | None:
        """The id of the supplier this worker last saw `token` valid for (its lookup, cached or not), None if it
        has not, or saw it refused since. In memory, no call: the door asks it of every fragment."""
        return self._seen.get(cache_key("supplier", token))

    def forget(self, token: str) -> None:
        """A token the upstream refused after its supplier was cached (revoked): looked up again at its next request,
        and its last good copy dropped, so that an outage does not vouch for it either."""
        key = cache_key("supplier", token)
        self._seen.pop(key)
        self.cache.delete(key)
        self.cache.drop_last_good(key)

    def by_token(self, token: str, *, request_id: str) -> Supplier | None:
        """The supplier of a token, None when the upstream does not know it (cached, None included). A token never
        seen valid (no last good copy) is looked up through `first_lookups`: anyone may make one up."""
        key = cache_key("supplier", token)
        supplier = self._by_token(key, token, request_id=request_id)
        if supplier is None:
            self._seen.pop(key)
        else:
            self._seen.put(key, supplier.id)
        return supplier

    def _by_token(self, key: str, token: str, *, request_id: str) -> Supplier | None:
        cached = self.cache.near_get(key)
        if cached is not None:
            known: Supplier | None = cached[0]
            return known

        headers = {"Supplier-Token": token, "X-Request-Id": request_id}
        last_good: Supplier | None = self.cache.last_good(key)
        if last_good is not None:
            # A token seen valid is its supplier's: its lookups count for the tenant its other calls (and its
            # browsers' lookups by id) count for, not for a second one keyed by the token's digest.
            return self._fetch(key, headers, unknown=refused_token, tenant=tenant_key(last_good.id, None))
        return self.first_lookups.run(
            key, lambda: self._fetch(key, headers, unknown=refused_token), answer=lambda: self.cache.near_get(key)
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
        return self._fetch(key, headers, unknown=unknown)

    def _fetch(
        self,
        key: str,
        headers: dict[str, str],
        *,
        unknown: Callable[[UpstreamStatusError], bool],
        tenant: str | None = None,
    ) -> Supplier | None:
        """`_lookup`'s call, for a key not in the cache: the answer cached, or the last good one while it fails.
        `tenant`: whom the call counts for (prerender/gateway/tenant_breakers.py); by default the supplier its
        headers name."""
        try:
            payload = self.http.request(
                "GET",
                f"{API}/suppliers/me",
                resource=Resource.SUPPLIERS,
                name="supplier",
                idempotent=True,
                headers=headers,
                tenant=tenant,
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
            self.cache.keep_last_good(key, supplier, timeout=self.stale_ttl)
        else:  # a token revoked (or made up): its last good copy goes, and no day-long "unknown" one is kept
            self.cache.drop_last_good(key)
        return supplier

    def _stale(self, key: str, error: UpstreamError) -> Supplier | None:
        """The last good answer of a supplier lookup, or the error when there is none."""
        supplier: Supplier | None = self.cache.stale(key, error, what="supplier")
        return supplier

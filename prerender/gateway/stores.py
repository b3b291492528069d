"""Stores at the upstream (docs/upstream.md, "GET /stores, GET /stores/<id>"): every store, for a publisher's
store picker and the planner's."""

from __future__ import annotations

from prerender.gateway.calls import CallerIdentity, send
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import Store, data_list, parse_stores
from prerender.gateway.read_cache import ReadCache, cache_key


class StoreGateway:
    """GET /stores, cached per language; the last good list is served while the upstream fails."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int, stale_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl
        self.stale_ttl = stale_ttl

    def every_store(self, identity: CallerIdentity) -> tuple[Store, ...]:
        """Every store of the upstream (cached like a recipe)."""

        def read() -> tuple[Store, ...]:
            payload = send(self.http, identity, "GET", "/stores", resource=Resource.STORES, name="stores")
            return parse_stores(data_list(payload, "stores"))

        return self.cache.read_through(
            cache_key("stores", identity.language),
            read,
            ttl=self.ttl,
            stale_ttl=self.stale_ttl,
            what="store list",
        )

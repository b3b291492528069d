"""The upstream as the app sees it: one gateway per upstream resource, all on one HTTP client (its sessions,
timeouts, retries, breakers and bulkheads) and one read cache (docs/architecture.md, "The gateway")."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

from prerender.gateway.baskets import BasketGateway
from prerender.gateway.catalog import CatalogGateway
from prerender.gateway.concurrent_calls import ConcurrentCalls
from prerender.gateway.event_quota import EventQuota
from prerender.gateway.events import EventGateway
from prerender.gateway.forwarding import UpstreamForwarder
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.likes import LikeGateway
from prerender.gateway.menus import MenuGateway
from prerender.gateway.read_cache import ReadCache
from prerender.gateway.recipes import RecipeGateway
from prerender.gateway.stores import StoreGateway
from prerender.gateway.suggestions import SuggestionGateway
from prerender.gateway.suppliers import SupplierGateway


@dataclass(frozen=True, kw_only=True)
class CacheTimes:
    """How long each read is kept, in seconds (the app's *_CACHE_SECONDS and STALE_IF_ERROR_SECONDS)."""

    supplier: int
    recipe: int
    likes: int
    # The last good answers, served while the upstream fails.
    stale: int
    # The lookup of a publisher's recipe id, "no match" included (README.md, Limits: 5 seconds).
    external_id: int = 5


@dataclass(frozen=True, kw_only=True)
class Upstream:
    """Every call prerender makes to the upstream, by resource."""

    http: UpstreamHttp
    concurrent: ConcurrentCalls
    suppliers: SupplierGateway
    stores: StoreGateway
    recipes: RecipeGateway
    suggestions: SuggestionGateway
    likes: LikeGateway
    baskets: BasketGateway
    events: EventGateway
    menus: MenuGateway
    catalog: CatalogGateway
    # The writes browser routes forward (prerender/web/forwarding.py).
    forwarder: UpstreamForwarder


def build_upstream(
    *,
    http: UpstreamHttp,
    cache: ReadCache,
    catalog_cache: ReadCache,
    likes_cache: ReadCache,
    pool: Executor,
    times: CacheTimes,
    event_quota: EventQuota,
) -> Upstream:
    """The gateways on one HTTP client: `cache` (with its near cache) for suppliers, stores, recipes and
    suggestions, `catalog_cache` for the catalog's pages, `likes_cache` for the like states (no worker's own copy
    while a shared backend fails: prerender/gateway/read_cache.py)."""
    suppliers = SupplierGateway(http=http, cache=cache, ttl=times.supplier, stale_ttl=times.stale)
    http.token_refused = suppliers.forget
    return Upstream(
        http=http,
        concurrent=ConcurrentCalls(pool=pool),
        suppliers=suppliers,
        stores=StoreGateway(http=http, cache=cache, ttl=times.recipe, stale_ttl=times.stale),
        recipes=RecipeGateway(
            http=http, cache=cache, ttl=times.recipe, stale_ttl=times.stale, external_id_ttl=times.external_id
        ),
        suggestions=SuggestionGateway(http=http, cache=cache, stale_ttl=times.stale),
        likes=LikeGateway(http=http, cache=likes_cache, ttl=times.likes),
        baskets=BasketGateway(http=http),
        events=EventGateway(http=http, quota=event_quota),
        menus=MenuGateway(http=http),
        catalog=CatalogGateway(http=http, cache=catalog_cache, ttl=times.recipe, stale_ttl=times.stale),
        forwarder=UpstreamForwarder(http=http),
    )

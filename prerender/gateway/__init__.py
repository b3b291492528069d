"""The upstream gateway (docs/architecture.md): sessions, timeouts, retries, typed errors, read caching."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from flask import Flask, current_app
from redis import Redis

from prerender.config import SHARED_CACHE_TYPES
from prerender.extensions import cache
from prerender.gateway import baskets, fallbacks, menus
from prerender.gateway.breaker import BreakerPolicy
from prerender.gateway.calls import CallerIdentity
from prerender.gateway.catalog import (
    CatalogGateway,
    Category,
    Choice,
    HistoryPage,
    HistoryRecipe,
    Order,
    Paged,
    PreferenceOptions,
    Preferences,
    RecipePage,
    RecipeQuery,
)
from prerender.gateway.errors import (
    BudgetSpent,
    CircuitOpen,
    Refused,
    Shed,
    UnknownStore,
    UpstreamBadResponse,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from prerender.gateway.event_quota import Counts, EventQuota, EventQuotaSpent, LocalCounts, RedisCounts
from prerender.gateway.forwarding import UpstreamCall, UpstreamForwarder
from prerender.gateway.guards import Resource, ResourceGuards
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.menus import MenuGateway
from prerender.gateway.models import Pricing, Recipe, Routing, Store, Supplier
from prerender.gateway.read_cache import CacheBackend, NearCache, ReadCache, SharedCache
from prerender.gateway.suggestions import SuggestionContext
from prerender.gateway.upstream import CacheTimes, Upstream, build_upstream
from prerender.memory_cache import LruCache

EXTENSION_KEY = "prerender.upstream"


def init_gateway(app: Flask) -> None:
    """Build the app's upstream gateways from its configuration (called by the factory)."""
    config = app.config
    http = UpstreamHttp(
        base_url=config["UPSTREAM_URL"],
        connect_timeout=float(config["UPSTREAM_CONNECT_TIMEOUT"]),
        read_timeout=float(config["UPSTREAM_READ_TIMEOUT"]),
        retries=int(config["UPSTREAM_RETRIES"]),
        pool_size=int(config["UPSTREAM_POOL_SIZE"]),
        guards=ResourceGuards(
            policy=BreakerPolicy(
                failure_rate=float(config["UPSTREAM_BREAKER_FAILURE_RATE"]),
                window=float(config["UPSTREAM_BREAKER_WINDOW"]),
                minimum_calls=int(config["UPSTREAM_BREAKER_MINIMUM_CALLS"]),
                cooldown=float(config["UPSTREAM_BREAKER_COOLDOWN"]),
                probes=int(config["UPSTREAM_BREAKER_PROBES"]),
                slow_call_seconds=float(config["UPSTREAM_BREAKER_SLOW_CALL"]),
            ),
            calls_in_flight=int(config["UPSTREAM_CALLS_IN_FLIGHT"]),
            queued_calls=int(config["UPSTREAM_QUEUED_CALLS"]),
        ),
    )
    # Threads start on first use, in each gunicorn worker (never before the fork).
    pool = ThreadPoolExecutor(
        max_workers=int(config["UPSTREAM_CONCURRENT_CALLS"]), thread_name_prefix="prerender-upstream"
    )
    near = NearCache(size=int(config["NEAR_CACHE_SIZE"]), seconds=float(config["NEAR_CACHE_SECONDS"]))
    # A shared backend (Redis) may fail: this worker's memory stands in meanwhile (the default backend is that).
    # The like states are not: a worker's own copy would disagree with the others' (docs/decisions.md, caching).
    backend: CacheBackend = cache
    likes_backend: CacheBackend = cache
    if config["CACHE_TYPE"] in SHARED_CACHE_TYPES:
        retry = float(config["CACHE_RETRY_SECONDS"])
        fallback = LruCache(
            threshold=int(config["CACHE_THRESHOLD"]), default_timeout=int(config["CACHE_DEFAULT_TIMEOUT"])
        )
        backend = SharedCache(backend=cache, fallback=fallback, retry_seconds=retry)
        likes_backend = SharedCache(backend=cache, fallback=None, retry_seconds=retry)
    app.extensions[EXTENSION_KEY] = build_upstream(
        http=http,
        cache=ReadCache(cache=backend, near=near),
        catalog_cache=ReadCache(cache=backend),
        likes_cache=ReadCache(cache=likes_backend),
        pool=pool,
        times=CacheTimes(
            supplier=int(config["SUPPLIER_CACHE_SECONDS"]),
            recipe=int(config["RECIPE_CACHE_SECONDS"]),
            likes=int(config["LIKES_CACHE_SECONDS"]),
            stale=int(config["STALE_IF_ERROR_SECONDS"]),
        ),
        event_quota=EventQuota(
            counts=event_counts(config),
            events=int(config["EVENTS_PER_SHOPPER"]),
            seconds=int(config["EVENTS_QUOTA_SECONDS"]),
        ),
    )


def event_counts(config: Mapping[str, Any]) -> Counts:
    """Where the event quota counts: in the cache's Redis, shared by every worker, when the cache is Redis; else in
    each worker (prerender/gateway/event_quota.py)."""
    local = LocalCounts()
    if config["CACHE_TYPE"] != "RedisCache" or not config["CACHE_REDIS_URL"]:
        return local
    timeout = float(config["CACHE_REDIS_TIMEOUT"])
    client = Redis.from_url(config["CACHE_REDIS_URL"], socket_timeout=timeout, socket_connect_timeout=timeout)
    retry = float(config["CACHE_RETRY_SECONDS"])
    return RedisCounts(client=client, prefix=str(config["CACHE_KEY_PREFIX"]), fallback=local, retry_seconds=retry)


def get_upstream() -> Upstream:
    """The current app's upstream gateways."""
    upstream: Upstream = current_app.extensions[EXTENSION_KEY]
    return upstream


__all__ = [
    "BudgetSpent",
    "CacheTimes",
    "CallerIdentity",
    "CatalogGateway",
    "Category",
    "Choice",
    "CircuitOpen",
    "EventQuotaSpent",
    "HistoryPage",
    "HistoryRecipe",
    "MenuGateway",
    "Order",
    "Paged",
    "PreferenceOptions",
    "Preferences",
    "Pricing",
    "Recipe",
    "RecipePage",
    "RecipeQuery",
    "Refused",
    "Resource",
    "ResourceGuards",
    "Routing",
    "Shed",
    "Store",
    "SuggestionContext",
    "Supplier",
    "UnknownStore",
    "Upstream",
    "UpstreamBadResponse",
    "UpstreamCall",
    "UpstreamError",
    "UpstreamForwarder",
    "UpstreamHttp",
    "UpstreamStatusError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "baskets",
    "build_upstream",
    "fallbacks",
    "get_upstream",
    "init_gateway",
    "menus",
]

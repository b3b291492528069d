"""The gateway's read cache: flask-caching behind a wrapper that never fails a request.

A cache is an optimisation: when its backend (Redis) is down, reads are misses and writes are skipped,
logged, and the request goes on to the upstream.

The reads every card makes (its supplier, its recipe) also go through a near cache (`NearCache`): the decoded
values, per worker, for a few seconds, so a card neither unpickles them nor, with Redis, asks Redis for them on
every request. Only immutable values (frozen dataclasses) go there, and only the answers of reads, never a value
our own writes change (like states).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from flask_caching import Cache

from prerender.gateway.errors import UpstreamError
from prerender.memory_cache import LockedLru
from prerender.metrics import CACHE_LOOKUPS

T = TypeVar("T")

# The labelled series, looked up once (labels() takes a lock and validates on every call).
CACHE_HITS = CACHE_LOOKUPS.labels("hit")
CACHE_MISSES = CACHE_LOOKUPS.labels("miss")

log = logging.getLogger(__name__)

# Bumped when the shape of cached values changes, so a rolling deploy never reads the other shape
# (4: recipes carry their tags; 5: stores carry their coordinates; 6: recipes carry their ingredients' pictures).
CACHE_SCHEMA_VERSION = 6


CacheKeyPart = str | int | None | list[str]


def cache_key(kind: str, *parts: CacheKeyPart) -> str:
    """An unambiguous key: the parts are hashed as a JSON list (ids may hold ':' or '-')."""
    digest = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    return f"{kind}:v{CACHE_SCHEMA_VERSION}:{digest}"


class NearCache:
    """Decoded values kept per worker for `seconds` at most (`size` entries, least recently used out first)."""

    def __init__(self, *, size: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._entries: LockedLru[str, tuple[float, Any]] = LockedLru(size if seconds > 0 else 0)

    def get(self, key: str) -> Any:
        entry = self._entries.get(key)
        if entry is None or entry[0] <= self.clock():
            return None
        return entry[1]

    def put(self, key: str, value: Any) -> None:
        if value is not None:
            self._entries.put(key, (self.clock() + self.seconds, value))

    def drop(self, key: str) -> None:
        self._entries.pop(key)

    def clear(self) -> None:
        self._entries.clear()


class ReadCache:
    """get/set/get_many/set_many that log backend failures instead of raising them; `near_get` and `near_put`
    add the worker's near cache in front (NearCache) for the reads every card makes."""

    def __init__(self, *, cache: Cache, near: NearCache | None = None) -> None:
        self.cache = cache
        self.near = near or NearCache(size=0, seconds=0)

    def near_get(self, key: str) -> Any:
        """The near cache's value, else the shared cache's (then kept near)."""
        value = self.near.get(key)
        if value is not None:
            CACHE_HITS.inc()
            return value
        value = self.get(key)
        self.near.put(key, value)
        return value

    def near_put(self, key: str, value: Any, *, timeout: int) -> None:
        """Store a fresh value in the shared cache and near."""
        self.set(key, value, timeout=timeout)
        self.near.put(key, value)

    def get(self, key: str) -> Any:
        return self.get_many(key)[0]

    def get_many(self, *keys: str) -> list[Any]:
        if not keys:
            return []
        try:
            values = list(self.cache.get_many(*keys))
        except Exception as error:
            log.error("cache read failed, treated as misses: %r", error)
            CACHE_LOOKUPS.labels("error").inc(len(keys))
            return [None] * len(keys)
        hits = sum(value is not None for value in values)
        if hits:
            CACHE_HITS.inc(hits)
        if hits < len(keys):
            CACHE_MISSES.inc(len(keys) - hits)
        return values

    def set(self, key: str, value: Any, *, timeout: int) -> None:
        try:
            self.cache.set(key, value, timeout=timeout)
        except Exception as error:
            log.error("cache write failed, skipped: %r", error)

    def set_many(self, values: Mapping[str, Any], *, timeout: int) -> None:
        try:
            self.cache.set_many(dict(values), timeout=timeout)
        except Exception as error:
            log.error("cache write failed, skipped: %r", error)

    def delete(self, key: str) -> None:
        self.near.drop(key)
        try:
            self.cache.delete(key)
        except Exception as error:
            log.error("cache delete failed, the entry expires on its own: %r", error)

    def clear(self) -> None:
        self.near.clear()
        self.cache.clear()

    def stale(self, key: str, error: UpstreamError, *, what: str) -> Any:
        """The last good answer kept under "stale:" + `key` while the upstream fails (logged), or `error` raised
        when there is none."""
        kept = self.get("stale:" + key)
        if kept is None:
            raise error
        log.warning("upstream failed, serving the last good %s: %s", what, error)
        return kept[0]

    def read_through(self, key: str, read: Callable[[], T], *, ttl: int, stale_ttl: int, what: str) -> T:
        """A read the same for every caller of `key`: cached for `ttl`, and the last good answer (kept for
        `stale_ttl`) served while the upstream fails."""
        cached = self.get(key)
        if cached is not None:
            remembered: T = cached[0]
            return remembered
        try:
            value = read()
        except UpstreamError as error:
            last: T = self.stale(key, error, what=what)
            return last
        self.set(key, (value,), timeout=ttl)
        self.set("stale:" + key, (value,), timeout=stale_ttl)
        return value

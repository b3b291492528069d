"""The gateway's read cache: flask-caching behind a wrapper that never fails a request.

A cache is an optimisation: when its backend (Redis) fails, the request goes on. `SharedCache` stands in front of
a shared backend: after a failure it keeps the values in this worker's memory for a few seconds (as the default
configuration always does) before it asks the backend again, so an outage costs neither a failed call per read
nor every cached read becoming an upstream call, and logs once per such period; the like states, which must be
the same for every worker, are not cached at all meanwhile. `ReadCache` logs what still fails (the in-process
default has nothing to fall back to) and never raises it.

The reads every card makes (its supplier, its recipe) and the reads the same for every shopper (`read_through`: the
store list, the categories) also go through a near cache (`NearCache`): the decoded values, per worker, for a few
seconds, so a request neither unpickles them nor, with Redis, asks Redis for them every time. Only immutable values
(frozen dataclasses) go there, and only the answers of reads, never a value our own writes change (like states).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from prerender.gateway.errors import UpstreamError
from prerender.gateway.fallbacks import served_stale, stale_level
from prerender.memory_cache import LockedLru
from prerender.metrics import CACHE_BACKEND_FAILURES, CACHE_LOOKUPS

T = TypeVar("T")

# The labelled series, looked up once (labels() takes a lock and validates on every call).
CACHE_HITS = CACHE_LOOKUPS.labels("hit")
CACHE_MISSES = CACHE_LOOKUPS.labels("miss")

log = logging.getLogger(__name__)

# Bumped when the shape of cached values changes, so a rolling deploy never reads the other shape
# (4: recipes carry their tags; 5: stores carry their coordinates; 6: recipes carry their ingredients' pictures).
CACHE_SCHEMA_VERSION = 6


CacheKeyPart = str | int | None | list[str]

# How many keys a SharedCache remembers the backend missed during an outage (the oldest are forgotten first).
MAX_MISSED_KEYS = 10_000


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


class CacheBackend(Protocol):
    """What the gateway asks of a cache: flask-caching's Cache, or SharedCache in front of it."""

    def get_many(self, *keys: str) -> list[Any]: ...

    def set(self, key: str, value: Any, timeout: int | None = None) -> Any: ...

    def set_many(self, mapping: dict[str, Any], timeout: int | None = None) -> Any: ...

    def delete(self, key: str) -> Any: ...

    def delete_many(self, *keys: str) -> Any: ...

    def clear(self) -> Any: ...


class SharedCache:
    """A shared backend (Redis), and what stands in while it fails. After a failure, for `retry_seconds`, the
    backend is not asked (no failed call, no timeout, per request); then the next call tries it again. Meanwhile
    every read and write goes to `fallback` (an in-process LruCache: this worker's own copies), or, without one,
    reads are misses and writes are skipped (values that must be the same for every worker: a user's like
    states, which our own writes update). One log line per failure period. Once the backend answers again, the
    fallback is emptied: its copies are neither copied to the backend nor served in a later outage.

    What the backend missed meanwhile is made good before it is read again: each key this worker deleted, or
    (without a fallback) wrote, while the backend failed is deleted there first. Else the backend would serve its
    value of before the outage, which our own write had replaced (a like made during the outage read as "not liked"
    until that value expired). Kept for the last `MAX_MISSED_KEYS` keys; another worker reading the key before this
    one asks the backend again still gets the old value."""

    def __init__(
        self,
        *,
        backend: CacheBackend,
        fallback: CacheBackend | None,
        retry_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.fallback = fallback
        self.retry_seconds = retry_seconds
        self.clock = clock
        self._failing_until = 0.0
        self._fallback_used = False
        self._lock = threading.Lock()
        # Keys whose value in the backend is older than our own write or delete of them (an ordered set).
        self._missed: dict[str, None] = {}

    @property
    def failing(self) -> bool:
        """Whether the backend failed less than `retry_seconds` ago (the fallback serves)."""
        return self.clock() < self._failing_until

    def _failed(self, error: Exception, operation: str) -> None:
        CACHE_BACKEND_FAILURES.inc()
        with self._lock:  # the calls in flight when the backend died fail together: one line for all
            starts = not self.failing
            self._failing_until = self.clock() + self.retry_seconds
            self._fallback_used = self.fallback is not None
        if starts:
            kept = "keeps its own copies" if self.fallback is not None else "caches nothing here"
            log.error("shared cache %s failed, this worker %s for %g s: %r", operation, kept, self.retry_seconds, error)

    def _missed_keys(self, keys: tuple[str, ...] | list[str]) -> None:
        """The backend did not get this worker's write or delete of `keys`: they are deleted there before it is
        read again."""
        with self._lock:
            for key in keys:
                self._missed.pop(key, None)
                self._missed[key] = None
            while len(self._missed) > MAX_MISSED_KEYS:
                del self._missed[next(iter(self._missed))]

    def _catch_up(self) -> None:
        """Deletes in the backend what it missed while it failed (raises as the backend does)."""
        if not self._missed:
            return
        with self._lock:
            keys = list(self._missed)
        self.backend.delete_many(*keys)
        with self._lock:
            for key in keys:
                self._missed.pop(key, None)

    def _answered(self) -> None:
        """The backend answered: the copies kept while it failed are dropped (once)."""
        if self._fallback_used and self.fallback is not None:
            with self._lock:
                self._fallback_used = False
            self.fallback.clear()

    def get_many(self, *keys: str) -> list[Any]:
        if not self.failing:
            try:
                self._catch_up()
                values = list(self.backend.get_many(*keys))
            except Exception as error:
                self._failed(error, "read")
            else:
                self._answered()
                return values
        return list(self.fallback.get_many(*keys)) if self.fallback is not None else [None] * len(keys)

    def set(self, key: str, value: Any, timeout: int | None = None) -> None:
        self.set_many({key: value}, timeout=timeout)

    def set_many(self, mapping: dict[str, Any], timeout: int | None = None) -> None:
        if not self.failing:
            try:
                self._catch_up()
                self.backend.set_many(mapping, timeout=timeout)
            except Exception as error:
                self._failed(error, "write")
            else:
                self._answered()
                return
        if self.fallback is not None:
            self.fallback.set_many(mapping, timeout=timeout)
        else:
            self._missed_keys(list(mapping))

    def delete(self, key: str) -> None:
        self.delete_many(key)

    def delete_many(self, *keys: str) -> None:
        if self.fallback is not None:
            self.fallback.delete_many(*keys)
        if not self.failing:
            try:
                self._catch_up()
                self.backend.delete_many(*keys)
            except Exception as error:
                self._failed(error, "delete")
            else:
                return
        self._missed_keys(keys)

    def clear(self) -> None:
        if self.fallback is not None:
            self.fallback.clear()
        self.backend.clear()


class ReadCache:
    """get/set/get_many/set_many that log backend failures instead of raising them; `near_get` and `near_put`
    add the worker's near cache in front (NearCache) for the reads every card makes."""

    def __init__(self, *, cache: CacheBackend, near: NearCache | None = None) -> None:
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
        self.delete_many(key)

    def delete_many(self, *keys: str) -> None:
        for key in keys:
            self.near.drop(key)
        try:
            self.cache.delete_many(*keys)
        except Exception as error:
            log.error("cache delete failed, the entry expires on its own: %r", error)

    def clear(self) -> None:
        self.near.clear()
        self.cache.clear()

    # The last good answers: a copy of a fresh answer, kept longer than it (the read's `stale_ttl`) under its key
    # with a prefix, served while the upstream fails (stale-if-error). None is never kept as one.

    def keep_last_good(self, key: str, value: Any, *, timeout: int) -> None:
        """Keep `value` as the last good answer of `key`."""
        self.set(_last_good_key(key), (value,), timeout=timeout)

    def keep_last_good_many(self, values: Mapping[str, Any], *, timeout: int) -> None:
        """Keep each value as the last good answer of its key."""
        if values:
            self.set_many({_last_good_key(key): (value,) for key, value in values.items()}, timeout=timeout)

    def drop_last_good(self, *keys: str) -> None:
        """No last good answer of these keys any more (gone upstream, or refused)."""
        if keys:
            self.delete_many(*(_last_good_key(key) for key in keys))

    def last_good(self, key: str) -> Any:
        """The last good answer of `key`, or None."""
        return self.last_good_many(key)[0]

    def last_good_many(self, *keys: str) -> list[Any]:
        """The last good answer of each key, None where there is none."""
        return [kept[0] if kept else None for kept in self.get_many(*(_last_good_key(key) for key in keys))]

    def stale(self, key: str, error: UpstreamError, *, what: str) -> Any:
        """The last good answer of `key` while the upstream fails (logged), or `error` raised when there is none."""
        kept = self.last_good(key)
        if kept is None:
            raise error
        log.log(stale_level(error), "upstream failed, serving the last good %s: %s", what, error)
        served_stale(what)
        return kept

    def read_through(self, key: str, read: Callable[[], T], *, ttl: int, stale_ttl: int, what: str) -> T:
        """A read the same for every caller of `key` (an immutable value: the store list, the categories): kept
        near (decoded, per worker) and cached for `ttl`, and the last good answer (kept for `stale_ttl`) served
        while the upstream fails. Near, a retailer's 3 000 stores are not unpickled again (nor, with Redis, asked
        of Redis: 450 KB) by every request that checks a store id or offers the picker."""
        cached = self.near_get(key)
        if cached is not None:
            remembered: T = cached[0]
            return remembered
        try:
            value = read()
        except UpstreamError as error:
            last: T = self.stale(key, error, what=what)
            return last
        self.near_put(key, (value,), timeout=ttl)
        self.keep_last_good(key, value, timeout=stale_ttl)
        return value


def _last_good_key(key: str) -> str:
    """Where the last good answer of `key` is kept."""
    return "stale:" + key

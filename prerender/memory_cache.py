"""The default cache backend (in-process, bounded, least recently used out first) and the locked LRU
that it, the fragment memo and the parsed-query memo are built on.

flask-caching's SimpleCache sorts its whole content on every write once it is full (cachelib's
`_remove_older`), and it is full all the time here: every multiple-card request stores dozens of recipe
and stale-if-error entries. That cost ~0.2 ms per write at 500 entries and grows with the size. This
backend is a `cachetools.LRUCache`, O(1) per operation: a read makes its entry the most recently used, a
write past the threshold drops the least recently used one. Values are pickled, as SimpleCache does, so a
caller can never change a cached value in place. Per process: each gunicorn worker has its own
(PRERENDER_CACHE_REDIS_URL shares one).

cachetools caches are not thread-safe and gunicorn's gthread workers share these, hence `LockedLru`: one
lock around one LRUCache. Expiry is an (expires, blob) pair checked on read, as before, rather than a
`cachetools.TLRUCache`: the same behaviour, and the TLRUCache (a heap of expiry times, a timer context
per call) measured about twice the time per get and set on this path, which every card takes.
"""

from __future__ import annotations

import pickle
import threading
import time
from datetime import timedelta
from typing import Any, Generic, TypeVar

from cachetools import LRUCache
from flask import Flask
from flask_caching.backends.base import BaseCache

_K = TypeVar("_K")
_V = TypeVar("_V")


class LockedLru(Generic[_K, _V]):
    """A thread-safe LRU of at most `size` entries (0 or less: keeps nothing); None is never a value."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lru: LRUCache[_K, _V] = LRUCache(maxsize=max(size, 0))
        self._lock = threading.Lock()

    def get(self, key: _K) -> _V | None:
        """The value of `key`, made the most recently used, or None."""
        with self._lock:
            try:
                return self._lru[key]
            except KeyError:
                return None

    def put(self, key: _K, value: _V) -> None:
        """Store `value` as the most recently used, dropping the least recently used past the size."""
        if self.size > 0:
            with self._lock:
                self._lru[key] = value

    def pop(self, key: _K) -> _V | None:
        """Remove `key`; its value, or None if it was not there."""
        with self._lock:
            return self._lru.pop(key, None)

    def discard(self, key: _K, value: _V) -> None:
        """Remove `key` only while it still holds this very `value`: one stored meanwhile stays."""
        with self._lock:
            if self._lru.get(key) is value:
                del self._lru[key]

    def clear(self) -> None:
        """Remove every entry (a new LRUCache: its own clear() evicts one entry at a time)."""
        with self._lock:
            self._lru = LRUCache(maxsize=self._lru.maxsize)

    def __len__(self) -> int:
        return len(self._lru)


class LruCache(BaseCache):
    """A thread-safe LRU of pickled values with per-entry timeouts (0: no expiry)."""

    def __init__(self, threshold: int = 5000, default_timeout: int = 300, **_: Any) -> None:
        super().__init__(default_timeout=default_timeout)
        self._entries: LockedLru[str, tuple[float, bytes]] = LockedLru(threshold)

    @property
    def threshold(self) -> int:
        """The number of entries kept."""
        return self._entries.size

    @classmethod
    def factory(cls, app: Flask, config: dict[str, Any], args: list[Any], kwargs: dict[str, Any]) -> LruCache:
        """flask-caching's constructor hook: CACHE_THRESHOLD is the number of entries kept."""
        return cls(*args, **{**kwargs, "threshold": int(config["CACHE_THRESHOLD"])})

    def _expires(self, timeout: int | timedelta | None) -> float:
        """The monotonic time at which an entry set now with `timeout` expires (0.0: never)."""
        seconds = self._normalize_timeout(timeout)
        return time.monotonic() + seconds if seconds > 0 else 0.0

    def _blob(self, key: str) -> bytes | None:
        """The live entry's pickled value, made the most recently used; drops an expired one."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, blob = entry
        if expires and expires <= time.monotonic():
            self._entries.discard(key, entry)
            return None
        return blob

    def get(self, key: str) -> Any:
        """The cached value of `key` (a fresh unpickled copy), or None."""
        blob = self._blob(key)
        return None if blob is None else pickle.loads(blob)

    def has(self, key: str) -> bool:
        """Whether `key` holds a live entry (made the most recently used)."""
        return self._blob(key) is not None

    def set(self, key: str, value: Any, timeout: int | timedelta | None = None) -> bool:
        """Store a pickled copy of `value` for `timeout` seconds (None: the default, 0: no expiry)."""
        blob = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        self._entries.put(key, (self._expires(timeout), blob))
        return True

    def add(self, key: str, value: Any, timeout: int | timedelta | None = None) -> bool:
        """Store `value` unless `key` holds a live entry."""
        if self.has(key):
            return False
        return self.set(key, value, timeout)

    def delete(self, key: str) -> bool:
        """Remove `key`; whether it was there."""
        return self._entries.pop(key) is not None

    def clear(self) -> bool:
        """Remove every entry."""
        self._entries.clear()
        return True

    def __len__(self) -> int:
        return len(self._entries)

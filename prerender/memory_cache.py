"""The default cache backend: in-process, bounded, least recently used out first, O(1) per operation.

flask-caching's SimpleCache sorts its whole content on every write once it is full (cachelib's
`_remove_older`), and it is full all the time here: every multiple-card request stores dozens of recipe
and stale-if-error entries. That cost ~0.2 ms per write at 500 entries and grows with the size. This
backend keeps entries in an OrderedDict: a read moves its entry to the end, a write past the threshold
drops the first one. Values are pickled, as SimpleCache does, so a caller can never change a cached value
in place. Per process: each gunicorn worker has its own (PRERENDER_CACHE_REDIS_URL shares one).
"""
from __future__ import annotations

import pickle
import threading
import time
from collections import OrderedDict
from typing import Any

from flask import Flask
from flask_caching.backends.base import BaseCache


class LruCache(BaseCache):
    """A thread-safe LRU of pickled values with per-entry timeouts (0: no expiry)."""

    def __init__(self, threshold: int = 5000, default_timeout: int = 300, **_: Any) -> None:
        super().__init__(default_timeout=default_timeout)
        self.threshold = threshold
        self._entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def factory(cls, app: Flask, config: dict[str, Any], args: list[Any], kwargs: dict[str, Any]) -> LruCache:
        """flask-caching's constructor hook: CACHE_THRESHOLD is the number of entries kept."""
        return cls(*args, threshold=int(config["CACHE_THRESHOLD"]), **kwargs)

    def _expires(self, timeout: int | None) -> float:
        seconds = self._normalize_timeout(timeout)
        return time.monotonic() + seconds if seconds > 0 else 0.0

    def _blob(self, key: str) -> bytes | None:
        """The live entry's pickled value, made the most recently used; drops an expired one."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires, blob = entry
            if expires and expires <= time.monotonic():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return blob

    def get(self, key: str) -> Any:
        blob = self._blob(key)
        return None if blob is None else pickle.loads(blob)

    def has(self, key: str) -> bool:
        return self._blob(key) is not None

    def set(self, key: str, value: Any, timeout: int | None = None) -> bool:
        blob = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        expires = self._expires(timeout)
        with self._lock:
            self._entries[key] = (expires, blob)
            self._entries.move_to_end(key)
            while len(self._entries) > self.threshold:
                self._entries.popitem(last=False)
        return True

    def add(self, key: str, value: Any, timeout: int | None = None) -> bool:
        if self.has(key):
            return False
        return self.set(key, value, timeout)

    def delete(self, key: str) -> bool:
        with self._lock:
            return self._entries.pop(key, None) is not None

    def clear(self) -> bool:
        with self._lock:
            self._entries.clear()
        return True

    def __len__(self) -> int:
        return len(self._entries)

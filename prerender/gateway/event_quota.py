"""How many analytics events one shopper may have stored in a while (docs/decisions.md, "a shopper's events").

A shopper's credential is given to every visitor of a retailer's pages, and `POST /events` stores what it is sent
for 395 days: without a bound, one visitor's credential could fill the upstream's database. Each shopper (a
supplier's user or logged-out visitor) has `events` per window of `seconds`, counted with one atomic increment per
batch: in Redis when the cache is Redis (`RedisCounts`, one count for every worker and node), else in the worker
(`LocalCounts`: a shopper then has the quota once per worker).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from redis import Redis, RedisError

log = logging.getLogger(__name__)

KEY_PREFIX = "event-quota:"
# The shoppers a worker counts at once (LocalCounts): past them the oldest window's count is dropped.
LOCAL_COUNTS = 10_000
# While Redis fails, one log line per this many seconds at most.
FAILURE_LOG_SECONDS = 60.0


class Counts(Protocol):
    """Counts that expire, each changed by one atomic step."""

    def add(self, key: str, delta: int, *, seconds: int) -> int:
        """The key's count once `delta` is added (a new key starts from 0 and is dropped `seconds` after)."""
        ...


class LocalCounts:
    """This worker's counts, under a lock (gthread workers share them), the newest `size` kept."""

    def __init__(self, *, size: int = LOCAL_COUNTS, clock: Callable[[], float] = time.monotonic) -> None:
        self.size = size
        self.clock = clock
        self._counts: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: str, delta: int, *, seconds: int) -> int:
        now = self.clock()
        with self._lock:
            count, expires = self._counts.pop(key, (0, now + seconds))
            if expires <= now:
                count, expires = 0, now + seconds
            self._counts[key] = (count + delta, expires)
            while len(self._counts) > self.size:
                self._counts.popitem(last=False)
            return count + delta


class RedisCounts:
    """The counts every worker and node shares: INCRBY and an expiry in one transaction. While Redis fails, this
    worker's own (`fallback`), never a refusal because of it; after a failure Redis is not asked for
    `retry_seconds` (no timeout per request), as the read cache does (prerender/gateway/read_cache.py)."""

    def __init__(
        self,
        *,
        client: Redis,
        prefix: str,
        fallback: LocalCounts,
        retry_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.fallback = fallback
        self.retry_seconds = retry_seconds
        self.clock = clock
        self._failing_until = -math.inf
        self._logged_at = -math.inf

    def add(self, key: str, delta: int, *, seconds: int) -> int:
        if self.clock() < self._failing_until:
            return self.fallback.add(key, delta, seconds=seconds)
        try:
            pipeline = self.client.pipeline(transaction=True)
            pipeline.incrby(self.prefix + key, delta)
            pipeline.expire(self.prefix + key, seconds)
            total, _ = pipeline.execute()
            return int(total)
        except RedisError as error:
            now = self.clock()
            self._failing_until = now + self.retry_seconds
            if now - self._logged_at >= FAILURE_LOG_SECONDS:
                self._logged_at = now
                log.error("event quota: Redis failed, this worker counts alone for %g s: %r", self.retry_seconds, error)
            return self.fallback.add(key, delta, seconds=seconds)


class EventQuotaSpent(Exception):
    """The shopper's events of this window would pass the quota: nothing was stored nor counted."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"event quota spent, next window in {retry_after} s")
        self.retry_after = retry_after


class EventQuota:
    """A fixed window of `events` per shopper every `seconds`."""

    def __init__(self, *, counts: Counts, events: int, seconds: int, clock: Callable[[], float] = time.time) -> None:
        self.counts = counts
        self.events = events
        self.seconds = seconds
        self.clock = clock

    def _key(self, shopper: str, window: int) -> str:
        # A digest: the counts hold no shopper's id, and a key of a fixed length.
        return f"{KEY_PREFIX}{hashlib.sha256(shopper.encode()).hexdigest()[:32]}:{window}"

    def take(self, shopper: str, count: int) -> int:
        """Count `count` events for `shopper` (any text naming one shopper of one supplier); the window counted in,
        for `give_back`. EventQuotaSpent, counting nothing, when this window's would pass the quota."""
        now = self.clock()
        window = int(now // self.seconds)
        key = self._key(shopper, window)
        if self.counts.add(key, count, seconds=self.seconds) > self.events:
            self.counts.add(key, -count, seconds=self.seconds)
            raise EventQuotaSpent(retry_after=max(1, math.ceil((window + 1) * self.seconds - now)))
        return window

    def give_back(self, shopper: str, count: int, window: int) -> None:
        """Uncount `count` events `take` counted in `window` (they were not stored: the upstream failed)."""
        self.counts.add(self._key(shopper, window), -count, seconds=self.seconds)

"""How many analytics events one shopper may have stored in a while (docs/decisions.md, "a shopper's events").

A shopper's credential is given to every visitor of a retailer's pages, and `POST /events` stores what it is sent
for 395 days: without a bound, one visitor's credential could fill the upstream's database. Each shopper (a
supplier's user or logged-out visitor) has `events` per window of `seconds`, counted in the cache backend the
reads use: one count for every worker with Redis (it may undercount by the batches of one moment, as the count is
read, then written), each worker's own with the default in-process cache (a shopper then has the quota once per
worker).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable

from prerender.gateway.read_cache import CacheBackend

KEY_PREFIX = "event-quota:"


class EventQuotaSpent(Exception):
    """The shopper's events of this window would pass the quota: nothing was stored nor counted."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"event quota spent, next window in {retry_after} s")
        self.retry_after = retry_after


class EventQuota:
    """A fixed window of `events` per shopper every `seconds`."""

    def __init__(
        self, *, cache: CacheBackend, events: int, seconds: int, clock: Callable[[], float] = time.time
    ) -> None:
        self.cache = cache
        self.events = events
        self.seconds = seconds
        self.clock = clock

    def take(self, shopper: str, count: int) -> None:
        """Count `count` events for `shopper` (any text naming one shopper of one supplier), or raise
        EventQuotaSpent, counting nothing, when this window's would pass the quota."""
        now = self.clock()
        window = int(now // self.seconds)
        # A digest: the cache holds no shopper's id, and a key of a fixed length.
        key = f"{KEY_PREFIX}{hashlib.sha256(shopper.encode()).hexdigest()[:32]}:{window}"
        used = self.cache.get_many(key)[0] or 0
        if used + count > self.events:
            raise EventQuotaSpent(retry_after=max(1, math.ceil((window + 1) * self.seconds - now)))
        self.cache.set(key, used + count, timeout=self.seconds)

"""A shopper's analytics events per window (prerender/gateway/event_quota.py)."""

from __future__ import annotations

import pytest

from prerender.gateway.event_quota import EventQuota, EventQuotaSpent
from prerender.memory_cache import LruCache


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def quota(clock: Clock, cache: LruCache | None = None) -> EventQuota:
    return EventQuota(cache=LruCache() if cache is None else cache, events=100, seconds=600, clock=clock)


def test_a_shopper_stores_up_to_the_quota_then_is_told_when_the_next_window_opens() -> None:
    clock = Clock(6000.0 + 120)  # two minutes into a window
    events = quota(clock)
    events.take("shopper", 50)
    events.take("shopper", 50)
    with pytest.raises(EventQuotaSpent) as spent:
        events.take("shopper", 1)
    assert spent.value.retry_after == 480


def test_a_refused_batch_counts_nothing() -> None:
    """A batch past the quota is refused whole: a smaller one still fits what is left."""
    events = quota(Clock(6000.0))
    events.take("shopper", 90)
    with pytest.raises(EventQuotaSpent):
        events.take("shopper", 50)
    events.take("shopper", 10)


def test_the_next_window_starts_from_nothing() -> None:
    clock = Clock(6000.0)
    events = quota(clock)
    events.take("shopper", 100)
    clock.now += 600
    events.take("shopper", 100)


def test_each_shopper_has_a_quota_of_its_own() -> None:
    events = quota(Clock(6000.0))
    events.take("shopper", 100)
    events.take("another shopper", 100)


class KeysSeen(LruCache):
    """An LruCache that remembers the keys it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: set[str] = set()

    def set(self, key: str, value: object, timeout: int | None = None) -> bool:
        self.keys.add(key)
        return super().set(key, value, timeout)


def test_the_count_is_the_cache_s_and_names_no_shopper() -> None:
    """Every worker sharing the cache shares the count; the key is a digest, not the shopper's id."""
    cache, clock = KeysSeen(), Clock(6000.0)
    quota(clock, cache).take("user_id someone@example.com", 60)
    with pytest.raises(EventQuotaSpent):
        quota(clock, cache).take("user_id someone@example.com", 60)
    assert cache.keys and not [key for key in cache.keys if "someone" in key]

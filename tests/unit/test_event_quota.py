"""A shopper's analytics events per window (prerender/gateway/event_quota.py)."""

from __future__ import annotations

import threading

import pytest
from redis import RedisError

from prerender.gateway.event_quota import EventQuota, EventQuotaSpent, LocalCounts, RedisCounts


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class KeysSeen(LocalCounts):
    """LocalCounts that remember the keys they were given."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: set[str] = set()

    def add(self, key: str, delta: int, *, seconds: int) -> int:
        self.keys.add(key)
        return super().add(key, delta, seconds=seconds)


def quota(clock: Clock, counts: LocalCounts | None = None) -> EventQuota:
    return EventQuota(counts=LocalCounts() if counts is None else counts, events=100, seconds=600, clock=clock)


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


def test_events_given_back_count_no_more() -> None:
    events = quota(Clock(6000.0))
    window = events.take("shopper", 80)
    events.give_back("shopper", 80, window)
    events.take("shopper", 100)


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


def test_batches_at_the_same_moment_are_all_counted() -> None:
    """One atomic step per batch: 40 threads of 10 events store 100 of them, never more (a count read, then written,
    would let every thread through)."""
    events = EventQuota(counts=LocalCounts(), events=100, seconds=600)
    stored: list[int] = []
    start = threading.Barrier(40)

    def send() -> None:
        start.wait()
        try:
            events.take("shopper", 10)
        except EventQuotaSpent:
            return
        stored.append(10)

    threads = [threading.Thread(target=send) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(stored) == 100


def test_the_counts_name_no_shopper() -> None:
    counts = KeysSeen()
    quota(Clock(6000.0), counts).take("user_id someone@example.com", 60)
    assert counts.keys and not [key for key in counts.keys if "someone" in key]


def test_local_counts_expire_and_keep_the_newest() -> None:
    clock = Clock(0.0)
    counts = LocalCounts(size=2, clock=clock)
    assert counts.add("a", 5, seconds=10) == 5
    clock.now = 10.0
    assert counts.add("a", 1, seconds=10) == 1  # expired: started again
    counts.add("b", 1, seconds=10)
    counts.add("c", 1, seconds=10)
    assert counts.add("a", 1, seconds=10) == 1  # the oldest, dropped for c


class FailingRedis:
    """A Redis client whose every transaction fails, counting the attempts."""

    def __init__(self) -> None:
        self.attempts = 0

    def pipeline(self, transaction: bool = True) -> None:
        self.attempts += 1
        raise RedisError("connection refused")


def test_while_redis_fails_the_worker_counts_alone() -> None:
    """Never a refusal because Redis is down: the worker's own count stands in, and Redis is asked again only after
    the retry time (no timeout per request meanwhile)."""
    clock, redis = Clock(0.0), FailingRedis()
    counts = RedisCounts(client=redis, prefix="t:", fallback=LocalCounts(), retry_seconds=5, clock=clock)  # type: ignore[arg-type]
    assert counts.add("k", 3, seconds=60) == 3
    assert counts.add("k", 4, seconds=60) == 7
    assert redis.attempts == 1
    clock.now = 6.0
    counts.add("k", 1, seconds=60)
    assert redis.attempts == 2

"""SharedCache (prerender/gateway/read_cache.py): a shared backend that fails hands over to the worker's memory for
a while, asked again only once that while is over, with one log line per failure period."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from prerender.gateway import read_cache
from prerender.gateway.read_cache import SharedCache
from prerender.memory_cache import LruCache

RETRY = 5.0


class Backend(LruCache):
    """An in-process backend that can be made to fail (fault injection), counting the calls it gets."""

    def __init__(self) -> None:
        super().__init__(threshold=100)
        self.down = False
        self.calls = 0

    def _call(self) -> None:
        self.calls += 1
        if self.down:
            raise ConnectionError("Redis is down")

    def get_many(self, *keys: str) -> list[Any]:
        self._call()
        return super().get_many(*keys)

    def set_many(self, mapping: Any, timeout: Any = None) -> Any:
        self._call()
        return super().set_many(mapping, timeout)

    def delete(self, key: str) -> bool:
        self._call()
        return super().delete(key)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def backend() -> Backend:
    return Backend()


@pytest.fixture
def shared(backend: Backend, clock: Clock) -> SharedCache:
    return SharedCache(backend=backend, fallback=LruCache(threshold=100), retry_seconds=RETRY, clock=clock)


def test_values_go_to_the_backend_while_it_answers(shared: SharedCache, backend: Backend) -> None:
    shared.set("k", "v", timeout=60)
    assert backend.get("k") == "v"
    assert shared.get_many("k", "other") == ["v", None]
    assert not shared.failing


def test_a_failing_backend_hands_over_to_the_workers_memory_and_is_not_asked_meanwhile(
    shared: SharedCache, backend: Backend, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    backend.down = True
    with caplog.at_level(logging.ERROR):
        assert shared.get_many("recipe") == [None]  # the failed read: a miss
        shared.set("recipe", "from the upstream", timeout=60)
        for _ in range(50):
            assert shared.get_many("recipe") == ["from the upstream"]
    assert shared.failing
    assert backend.calls == 1, "the backend was asked again while it was known to fail"
    assert len([r for r in caplog.records if "shared cache read failed" in r.getMessage()]) == 1

    # Once the period is over, the backend is asked again; it answers, and serves from then on.
    backend.down = False
    clock.now += RETRY
    assert shared.get_many("recipe") == [None]  # the backend never got the value kept meanwhile
    assert backend.calls == 2 and not shared.failing


def test_a_backend_still_failing_after_the_period_starts_another_with_one_more_line(
    shared: SharedCache, backend: Backend, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    backend.down = True
    with caplog.at_level(logging.ERROR):
        shared.get_many("k")
        clock.now += RETRY
        shared.set("k", "v", timeout=60)  # asked again: fails again
        shared.get_many("k")
    assert backend.calls == 2
    assert [r.getMessage().split(" failed")[0] for r in caplog.records] == ["shared cache read", "shared cache write"]
    assert shared.get_many("k") == ["v"]


def test_a_delete_reaches_the_workers_copy_too(shared: SharedCache, backend: Backend, clock: Clock) -> None:
    backend.down = True
    shared.set("k", "v", timeout=60)
    shared.delete("k")
    assert shared.get_many("k") == [None]


def test_the_copies_kept_during_an_outage_are_dropped_once_the_backend_answers(
    shared: SharedCache, backend: Backend, clock: Clock
) -> None:
    """Else the next outage would serve them again, however old."""
    backend.down = True
    shared.set("recipe", "kept during the first outage", timeout=0)
    backend.down = False
    clock.now += RETRY
    assert shared.get_many("recipe") == [None]  # the backend answers: the worker's copies go
    backend.down = True
    clock.now += RETRY
    assert shared.get_many("recipe") == [None]  # a second outage: nothing old comes back


def test_without_a_fallback_an_outage_caches_nothing(backend: Backend, clock: Clock) -> None:
    """For values every worker must agree on (a user's like states): misses and skipped writes meanwhile."""
    shared = SharedCache(backend=backend, fallback=None, retry_seconds=RETRY, clock=clock)
    backend.down = True
    shared.set("liked", True, timeout=30)
    assert shared.get_many("liked") == [None]
    shared.delete("liked")
    assert backend.calls == 1 and shared.failing


def test_a_like_changed_during_an_outage_is_not_read_from_the_backend_as_it_was_before(
    backend: Backend, clock: Clock
) -> None:
    """The like reached the upstream while Redis failed; its state's write and delete were skipped. Redis, back,
    still held the state of before the outage: read for up to its 30 s as "not liked". It is deleted there first."""
    likes = SharedCache(backend=backend, fallback=None, retry_seconds=RETRY, clock=clock)
    likes.set("liked", (False,), timeout=30)
    backend.down = True
    likes.delete("liked")  # the like: the cached state dropped...
    likes.set("liked", (True,), timeout=30)  # ...then the new one written: both skipped
    backend.down = False
    clock.now += RETRY
    assert likes.get_many("liked") == [None]  # asked of the upstream again
    assert backend.get("liked") is None
    likes.set("liked", (True,), timeout=30)
    assert likes.get_many("liked") == [(True,)]


def test_a_delete_missed_during_an_outage_reaches_the_backend_once_it_answers(
    shared: SharedCache, backend: Backend, clock: Clock
) -> None:
    shared.set("recipe", "old", timeout=60)
    backend.down = True
    shared.delete("recipe")
    clock.now += RETRY
    shared.get_many("other")  # still down: kept for later
    backend.down = False
    clock.now += RETRY
    assert shared.get_many("recipe") == [None]
    calls = backend.calls
    shared.get_many("recipe")
    assert backend.calls == calls + 1  # deleted once, not again on every read


def test_the_keys_missed_are_bounded(backend: Backend, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_cache, "MAX_MISSED_KEYS", 3)
    likes = SharedCache(backend=backend, fallback=None, retry_seconds=RETRY, clock=clock)
    for key in "abcd":
        likes.set(key, (False,), timeout=30)
    backend.down = True
    for key in "abcd":
        likes.delete(key)
    backend.down = False
    clock.now += RETRY
    assert likes.get_many("a", "b", "c", "d") == [(False,), None, None, None]  # the oldest forgotten

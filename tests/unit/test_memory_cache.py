"""The default cache backend and the locked LRU under it (prerender/memory_cache.py)."""

from __future__ import annotations

import threading

import pytest

from prerender import create_app
from prerender.extensions import cache
from prerender.memory_cache import LockedLru, LruCache
from tests.clock import FakeClock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    clock = FakeClock()
    monkeypatch.setattr("prerender.memory_cache.time.monotonic", clock)
    return clock


def test_values_come_back_as_copies():
    lru = LruCache(threshold=10)
    value = {"ids": [1, 2]}
    assert lru.set("k", value) is True
    value["ids"].append(3)  # the caller's object, not the cached one
    got = lru.get("k")
    assert got == {"ids": [1, 2]}
    got["ids"].append(4)
    assert lru.get("k") == {"ids": [1, 2]}


def test_entries_expire_on_their_own_timeout(clock):
    lru = LruCache(threshold=10, default_timeout=300)
    lru.set("short", 1, timeout=5)
    lru.set("default", 2)
    lru.set("forever", 3, timeout=0)
    clock.now += 6
    assert (lru.get("short"), lru.get("default"), lru.get("forever")) == (None, 2, 3)
    clock.now += 300
    assert (lru.get("default"), lru.get("forever")) == (None, 3)
    assert len(lru) == 1  # expired entries are dropped when met


def test_the_least_recently_used_entry_goes_first():
    lru = LruCache(threshold=3)
    for key in "abc":
        lru.set(key, key)
    assert lru.get("a") == "a"  # b is now the oldest
    lru.set("d", "d")
    assert lru.get("b") is None and [lru.get(key) for key in "acd"] == ["a", "c", "d"] and len(lru) == 3


def test_add_has_delete_clear_and_many():
    lru = LruCache(threshold=10)
    assert lru.add("k", 1) is True and lru.add("k", 2) is False and lru.get("k") == 1
    assert lru.has("k") and not lru.has("other")
    assert lru.set_many({"x": 1, "y": None}) == ["x", "y"]
    assert lru.get_many("x", "y", "z") == [1, None, None]
    assert lru.delete("k") is True and lru.delete("k") is False
    assert lru.clear() is True and len(lru) == 0


def test_an_expired_entry_is_dropped_but_not_a_newer_one(clock):
    lru = LruCache(threshold=10)
    lru.set("k", 1, timeout=5)
    expired = lru._entries.get("k")
    assert expired is not None
    clock.now += 6
    lru.set("k", 2, timeout=5)  # stored between another thread's read and its drop of the expired entry
    lru._entries.discard("k", expired)
    assert lru.get("k") == 2
    clock.now += 6
    assert lru.delete("k") is True and len(lru) == 0  # an expired entry is still there to delete


def test_threshold_zero_keeps_nothing():
    lru = LruCache(threshold=0)
    assert lru.set("k", 1) is True and lru.get("k") is None and len(lru) == 0


def test_the_locked_lru_is_bounded_and_size_zero_keeps_nothing():
    memo: LockedLru[str, int] = LockedLru(2)
    for n, key in enumerate("abc"):
        memo.put(key, n)
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (None, 1, 2, 2)
    assert memo.pop("b") == 1 and memo.pop("b") is None
    memo.clear()
    assert len(memo) == 0 and memo.get("c") is None
    for n, key in enumerate("xyz"):
        memo.put(key, n)
    assert len(memo) == 2 and memo.get("x") is None  # still bounded after a clear
    off: LockedLru[str, int] = LockedLru(0)
    off.put("a", 1)
    assert off.get("a") is None and len(off) == 0


def test_threads_never_exceed_the_threshold():
    lru = LruCache(threshold=50)
    barrier = threading.Barrier(8)

    def work(n: int) -> None:
        barrier.wait()
        for i in range(500):
            lru.set(f"{n}-{i}", i)
            lru.get(f"{n}-{i - 1}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(lru) == 50


def test_it_is_the_default_backend(app_config):
    config = {key: value for key, value in app_config.items() if key != "CACHE_TYPE"}
    app = create_app({**config, "CACHE_THRESHOLD": 123})
    with app.app_context():
        backend = cache.cache
        assert isinstance(backend, LruCache) and backend.threshold == 123
    assert app.config["LIKES_CACHE_SECONDS"] == 0  # per process: likes are not cached

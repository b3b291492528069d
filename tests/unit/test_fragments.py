"""The rendered-fragment memo (prerender/rendering/fragments.py) and the cache settings that go with it."""

from __future__ import annotations

import threading

import pytest

from prerender import create_app
from prerender.rendering.fragments import FragmentMemo


def renderer(text: str, calls: list[str]):
    def render() -> str:
        calls.append(text)
        return text

    return render


def test_a_key_is_rendered_once():
    memo, calls = FragmentMemo(size=4), []
    assert memo.get_or_render(("card", 1), renderer("<a>", calls)) == "<a>"
    assert memo.get_or_render(("card", 1), renderer("<b>", calls)) == "<a>"
    assert calls == ["<a>"]


def test_the_least_recently_used_key_goes_first():
    memo, calls = FragmentMemo(size=2), []
    memo.get_or_render("a", renderer("A", calls))
    memo.get_or_render("b", renderer("B", calls))
    memo.get_or_render("a", renderer("A", calls))  # a is now the most recent
    memo.get_or_render("c", renderer("C", calls))  # evicts b
    assert len(memo) == 2
    memo.get_or_render("a", renderer("A", calls))
    memo.get_or_render("b", renderer("B", calls))
    assert calls == ["A", "B", "C", "B"]


def test_size_zero_keeps_nothing():
    memo, calls = FragmentMemo(size=0), []
    memo.get_or_render("a", renderer("A", calls))
    memo.get_or_render("a", renderer("A", calls))
    assert calls == ["A", "A"] and len(memo) == 0


def test_threads_share_one_memo():
    memo, calls = FragmentMemo(size=64), []
    barrier = threading.Barrier(8)

    def work() -> None:
        barrier.wait()
        for key in range(32):
            assert memo.get_or_render(key, renderer(str(key), calls)) == str(key)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(memo) == 32 and set(calls) == {str(key) for key in range(32)}


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"CACHE_TYPE": "SimpleCache", "CACHE_REDIS_URL": None}, 0),
        ({"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": "redis://127.0.0.1:6379/0"}, 30),
        ({"CACHE_TYPE": "SimpleCache", "LIKES_CACHE_SECONDS": 5}, 5),  # an explicit value wins
    ],
)
def test_likes_are_cached_only_in_a_shared_cache(app_config, settings, expected):
    assert create_app({**app_config, **settings}).config["LIKES_CACHE_SECONDS"] == expected


def test_a_redis_url_alone_switches_to_redis_and_caches_likes(app_config):
    config = {key: value for key, value in app_config.items() if key != "CACHE_TYPE"}
    app = create_app({**config, "CACHE_REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert app.config["CACHE_TYPE"] == "RedisCache" and app.config["LIKES_CACHE_SECONDS"] == 30

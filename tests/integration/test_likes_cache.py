"""The like-state cache behind `GET /{v}/likes` (docs/decisions.md, caching): on with a cache every worker shares,
off with the per-process default, and our own like/unlike calls keep it right. Cards no longer read like states
(the browser fills in a page's hearts with one batched call), so a card costs no likes call at all."""

from __future__ import annotations

from bs4 import BeautifulSoup

from prerender import create_app
from tests.conftest import closed_port

from .conftest import browser_headers, get_card, headers, record_upstream_calls


def liked(client, browser: dict[str, str], recipe_id: str) -> str:
    """What the browser's batched read says of one recipe: "true" or "false"."""
    answer = client.get(f"/v1/likes?recipe_ids={recipe_id}", headers=browser)
    assert answer.status_code == 200, answer.get_json()
    return "true" if recipe_id in answer.get_json()["data"] else "false"


def likes_calls(calls: list[tuple[str, str, dict]]) -> list[tuple[str, str, dict]]:
    return [call for call in calls if call[1] == "/api/v1/likes"]


def test_a_logged_in_card_reads_no_like_state(app, client, monkeypatch):
    """The card's HTML is the same for every connected user: an unpressed heart the browser fills in."""
    calls = record_upstream_calls(app, monkeypatch)
    answer = get_card(client, hdrs=headers(user="likes-card-reader"), recipe_id="5")
    heart = BeautifulSoup(answer.get_data(as_text=True), "html5lib").find(class_="svc-like-button")
    assert heart["aria-pressed"] == "false" and heart["data-like-state"] == "unknown"
    assert likes_calls(calls) == []


def test_per_process_cache_never_keeps_likes(app_config, monkeypatch):
    """A like made through another worker could not update this worker's copy: always ask the upstream."""
    app = create_app({**app_config, "CACHE_TYPE": "SimpleCache", "CACHE_REDIS_URL": None})
    client = app.test_client()
    browser = browser_headers(client, user="likes-cache-off")
    assert app.config["LIKES_CACHE_SECONDS"] == 0
    calls = record_upstream_calls(app, monkeypatch)
    assert liked(client, browser, "5") == liked(client, browser, "5")
    assert len(likes_calls(calls)) == 2


def test_cached_likes_are_read_once_and_follow_our_writes(app_config, monkeypatch):
    app = create_app({**app_config, "LIKES_CACHE_SECONDS": 30})
    client = app.test_client()
    browser = browser_headers(client, user="likes-cache-on")
    calls = record_upstream_calls(app, monkeypatch)
    assert liked(client, browser, "6") == "false"
    assert liked(client, browser, "6") == "false"
    assert client.put("/v1/likes/6", headers=browser).status_code == 204
    assert liked(client, browser, "6") == "true"
    assert client.delete("/v1/likes/6", headers=browser).status_code == 204
    assert liked(client, browser, "6") == "false"
    assert len(likes_calls(calls)) == 1  # the first read only
    other = browser_headers(client, user="likes-cache-other")
    assert liked(client, other, "6") == "false"
    assert len(likes_calls(calls)) == 2  # states are per user


def test_a_failed_like_forgets_the_cached_state(app_config, upstream, monkeypatch):
    """The upstream may have applied a like whose answer was lost: the next read asks it again."""
    app = create_app({**app_config, "LIKES_CACHE_SECONDS": 30, "UPSTREAM_RETRIES": 0})
    client = app.test_client()
    browser = browser_headers(client, user="likes-cache-fault")
    # The browser's first call: its credential's supplier is known (and cached) before the upstream fails.
    assert liked(client, browser, "8") == "false"
    http = app.extensions["prerender.upstream"].http
    base_url = http.base_url
    monkeypatch.setattr(http, "base_url", f"http://127.0.0.1:{closed_port()}")  # the write fails
    assert client.put("/v1/likes/8", headers=browser).status_code == 503
    monkeypatch.setattr(http, "base_url", base_url)
    upstream.like("likes-cache-fault", "8")  # as if the lost write had been applied
    calls = record_upstream_calls(app, monkeypatch)
    assert liked(client, browser, "8") == "true"
    assert len(likes_calls(calls)) == 1


def test_while_redis_fails_no_worker_keeps_a_like_state_of_its_own(app_config):
    """Two workers (two apps) on a Redis that refuses connections: a like made through one shows through the
    other at once. A worker's own copy (what other reads fall back to meanwhile) would show the state it read
    before, for as long as it keeps it."""
    config = {**app_config, "CACHE_REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0", "LIKES_CACHE_SECONDS": 30}
    first, second = create_app(config).test_client(), create_app(config).test_client()
    browser = browser_headers(first, user="likes-redis-down")
    assert liked(second, browser, "8") == "false"
    assert first.put("/v1/likes/8", headers=browser).status_code == 204
    assert liked(second, browser, "8") == "true"

"""The like-state cache (docs/decisions.md, caching): on with a cache every worker shares, off with the
per-process default, and our own like/unlike calls keep it right."""

from __future__ import annotations

from bs4 import BeautifulSoup

from prerender import create_app
from tests.conftest import closed_port

from .conftest import browser_headers, get_card, headers, record_upstream_calls


def heart(response) -> str:
    assert response.status_code == 200
    card = BeautifulSoup(response.get_data(as_text=True), "html5lib").find("svc-recipe-card")
    return card.find(class_="svc-like-button")["aria-pressed"]


def likes_calls(calls: list[tuple[str, str, dict]]) -> list[tuple[str, str, dict]]:
    return [call for call in calls if call[1] == "/api/v1/likes"]


def test_per_process_cache_never_keeps_likes(app_config, monkeypatch):
    """A like made through another worker could not update this worker's copy: always ask the upstream."""
    app = create_app({**app_config, "CACHE_TYPE": "SimpleCache", "CACHE_REDIS_URL": None})
    client = app.test_client()
    assert app.config["LIKES_CACHE_SECONDS"] == 0
    calls = record_upstream_calls(app, monkeypatch)
    user = headers(user="likes-cache-off")
    assert heart(get_card(client, hdrs=user, recipe_id="5")) == heart(get_card(client, hdrs=user, recipe_id="5"))
    assert len(likes_calls(calls)) == 2


def test_cached_likes_are_read_once_and_follow_our_writes(app_config, monkeypatch):
    app = create_app({**app_config, "LIKES_CACHE_SECONDS": 30})
    client, user = app.test_client(), headers(user="likes-cache-on")
    browser = browser_headers(client, user="likes-cache-on")
    calls = record_upstream_calls(app, monkeypatch)
    assert heart(get_card(client, hdrs=user, recipe_id="6")) == "false"
    assert heart(get_card(client, hdrs=user, recipe_id="6")) == "false"
    assert client.put("/v1/likes/6", headers=browser).status_code == 204
    assert heart(get_card(client, hdrs=user, recipe_id="6")) == "true"
    assert client.get("/v1/likes?recipe_ids=6", headers=browser).get_json() == {"data": ["6"]}
    assert client.delete("/v1/likes/6", headers=browser).status_code == 204
    assert heart(get_card(client, hdrs=user, recipe_id="6")) == "false"
    assert len(likes_calls(calls)) == 1  # the first card only
    other = headers(user="likes-cache-other")
    assert heart(get_card(client, hdrs=other, recipe_id="6")) == "false"
    assert len(likes_calls(calls)) == 2  # states are per user


def test_a_failed_like_forgets_the_cached_state(app_config, upstream, monkeypatch):
    """The upstream may have applied a like whose answer was lost: the next card asks it again."""
    app = create_app({**app_config, "LIKES_CACHE_SECONDS": 30, "UPSTREAM_RETRIES": 0})
    client, user = app.test_client(), headers(user="likes-cache-fault")
    browser = browser_headers(client, user="likes-cache-fault")
    assert heart(get_card(client, hdrs=user, recipe_id="8")) == "false"
    # The browser's first call: its credential's supplier is known (and cached) before the upstream fails.
    assert client.get("/v1/likes?recipe_ids=8", headers=browser).get_json() == {"data": []}
    http = app.extensions["prerender.gateway"].http
    base_url = http.base_url
    monkeypatch.setattr(http, "base_url", f"http://127.0.0.1:{closed_port()}")  # the write fails
    assert client.put("/v1/likes/8", headers=browser).status_code == 503
    monkeypatch.setattr(http, "base_url", base_url)
    upstream.like("likes-cache-fault", "8")  # as if the lost write had been applied
    calls = record_upstream_calls(app, monkeypatch)
    assert heart(get_card(client, hdrs=user, recipe_id="8")) == "true"
    assert len(likes_calls(calls)) == 1

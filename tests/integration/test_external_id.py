"""The lookup of a recipe by the id a publisher uses (README.md, Limits: cached 5 seconds, "no match" too)."""

from __future__ import annotations

import pytest
from flask import g

from prerender import create_app
from prerender.gateway import UpstreamStatusError

from .conftest import headers, record_upstream_calls


def lookup(app, external_id: str) -> str | None:
    """The gateway's answer inside a request of a publisher (its identity goes upstream)."""
    with app.test_request_context("/v1/styles/base", headers=headers(token="demo-publisher-token")):
        app.preprocess_request()
        return app.extensions["prerender.upstream"].recipes.id_by_external_id(g.ctx.upstream, external_id)


def test_a_known_external_id_is_resolved_once(app, upstream, monkeypatch):
    recipe = next(r for r in upstream.all_recipes() if r.get("external_id"))
    calls = record_upstream_calls(app, monkeypatch)
    assert lookup(app, recipe["external_id"]) == str(recipe["id"])
    assert lookup(app, recipe["external_id"]) == str(recipe["id"])
    assert [c[1] for c in calls].count(f"/api/v1/recipes/by-external-id/{recipe['external_id']}") == 1


def test_no_match_is_none_and_cached_too(app, monkeypatch):
    calls = record_upstream_calls(app, monkeypatch)
    assert lookup(app, "no-such-publisher-id") is None
    assert lookup(app, "no-such-publisher-id") is None
    assert len([c for c in calls if "by-external-id" in c[1]]) == 1


def test_the_answers_expire_after_five_seconds(app_config, monkeypatch):
    app = create_app({**app_config, "CACHE_TYPE": "prerender.memory_cache.LruCache", "CACHE_REDIS_URL": None})
    now = [1000.0]
    monkeypatch.setattr("prerender.memory_cache.time.monotonic", lambda: now[0])
    calls = record_upstream_calls(app, monkeypatch)
    lookup(app, "no-such-publisher-id")
    now[0] += 4.9
    lookup(app, "no-such-publisher-id")
    now[0] += 0.2
    lookup(app, "no-such-publisher-id")
    assert len([c for c in calls if "by-external-id" in c[1]]) == 2


def test_an_upstream_failure_is_not_cached_as_no_match(app, monkeypatch):
    http = app.extensions["prerender.upstream"].http
    real = http.request

    def failing(method, path, **kwargs):
        if "by-external-id" in path:
            raise UpstreamStatusError(500, None, path)  # fault injection
        return real(method, path, **kwargs)

    monkeypatch.setattr(http, "request", failing)
    with pytest.raises(UpstreamStatusError):
        lookup(app, "flaky-id")
    monkeypatch.setattr(http, "request", real)
    assert lookup(app, "flaky-id") is None  # asked again, not a cached failure

"""`X-Content-Type-Options: nosniff`, once, on every answer: fragments, JSON, problems raised anywhere (hooks,
guard, views, werkzeug), static files, 304s and preflights (prerender/web/security_headers.py); and the
Prometheus exposition's Content-Type, with one charset (prerender/blueprints/metrics.py)."""

from __future__ import annotations

import io

import pytest
from flask import Flask
from werkzeug.test import TestResponse

from prerender.rendering.assets import get_assets
from tests.conftest import HEADERS


def assert_nosniff(response: TestResponse) -> None:
    assert response.headers.getlist("X-Content-Type-Options") == ["nosniff"], (response.status, response.headers)


@pytest.mark.parametrize(
    ("path", "status", "mimetype"),
    [
        ("/v1/recipe-card?recipe_id=1", 200, "text/html"),  # the fragment (empty: the upstream is down here)
        ("/v2/recipe-card?recipe_id=1", 200, "text/html"),
        ("/v1/styles/base", 200, "application/json"),
        ("/healthz", 200, "application/json"),
        ("/openapi.json", 200, "application/json"),
        ("/metrics", 200, "text/plain"),
        ("/v1/recipe-card", 400, "application/problem+json"),  # the declaration's 400
        ("/v1/recipe-card?recipe_id=1&display_variant=9", 400, "application/problem+json"),
        ("/no/such/path", 404, "application/problem+json"),
        ("/v2/catalog/favorites", 410, "application/problem+json"),
        ("/v1/recipe-card?pad=" + "x" * 8100, 414, "application/problem+json"),  # a before_request hook
    ],
)
def test_every_get_answer_says_nosniff(client, path, status, mimetype):
    response = client.get(path, headers=HEADERS)
    assert (response.status_code, response.mimetype) == (status, mimetype)
    assert_nosniff(response)


def test_a_guard_400_says_nosniff(client):
    response = client.get("/v1/recipe-card?recipe_id=1")  # no mandatory headers
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert_nosniff(response)


def test_a_credential_401_says_nosniff(client):
    response = client.get("/v1/basket", headers=HEADERS)  # a browser route: a claimed user is no credential
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
    assert_nosniff(response)


def test_a_431_405_413_and_415_say_nosniff(client):
    answers = [
        client.get("/healthz", headers={f"X-Extra-{i}": "1" for i in range(101)}),
        client.put("/healthz"),
        client.post("/v1/recipe-card/multiple", data=b"{" + b" " * 70_000 + b"}", headers=HEADERS),
        client.post(
            "/v1/recipe-card/multiple",
            input_stream=io.BytesIO(b" " * 70_000),
            headers={**HEADERS, "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            environ_base={"wsgi.input_terminated": True},
        ),
        client.post("/v1/recipe-card/multiple", data="x", headers={**HEADERS, "Content-Type": "text/plain"}),
    ]
    assert [r.status_code for r in answers] == [431, 405, 413, 413, 415]
    for response in answers:
        assert_nosniff(response)


def test_an_unexpected_error_says_nosniff(app: Flask):
    def broken() -> str:
        raise RuntimeError("a bug")

    app.add_url_rule("/broken", "broken", broken)
    response = app.test_client().get("/broken")
    assert response.status_code == 500 and response.mimetype == "application/problem+json"
    assert_nosniff(response)


def test_json_actions_and_their_upstream_failures_say_nosniff(client, shopper_headers):
    response = client.post("/v1/events", json={"events": [{"name": "recipe.show"}]}, headers=shopper_headers)
    assert response.status_code in (502, 503) and response.mimetype == "application/problem+json"
    assert_nosniff(response)


def test_a_304_says_nosniff(client):
    first = client.get("/v1/styles/base", headers=HEADERS)
    again = client.get("/v1/styles/base", headers={**HEADERS, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert_nosniff(again)


def test_static_files_and_their_304_say_nosniff(app: Flask, client):
    with app.app_context():
        assets = get_assets()
        name = next(name for name in sorted(assets.files) if name.endswith(".js"))
        url = f"/static/{assets.build_id}/{name}"
    response = client.get(url)
    assert response.status_code == 200 and "javascript" in response.mimetype  # nosniff needs a script type
    assert_nosniff(response)
    again = client.get(url, headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304
    assert_nosniff(again)
    css = next(name for name in sorted(assets.files) if name.endswith(".css"))
    styles = client.get(f"/static/{assets.build_id}/{css}")
    assert styles.mimetype == "text/css"  # nosniff refuses a stylesheet of another type
    assert_nosniff(styles)


def test_a_cors_preflight_says_nosniff(client):
    response = client.options(
        "/v1/basket",
        headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"},
    )
    assert response.status_code == 200 and response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
    assert_nosniff(response)


def test_no_header_meant_for_documents(client):
    """Fragments go into the customer's page with innerHTML: the headers of their answer never apply to that
    page, so no CSP, X-Frame-Options or Referrer-Policy (README.md's integration)."""
    response = client.get("/v1/recipe-card?recipe_id=1", headers=HEADERS)
    for name in ("Content-Security-Policy", "X-Frame-Options", "Referrer-Policy"):
        assert name not in response.headers


def test_metrics_content_type_has_one_charset(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers.getlist("Content-Type") == ["text/plain; version=0.0.4; charset=utf-8"]
    assert response.headers["Content-Type"].count("charset") == 1

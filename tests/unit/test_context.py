"""The header guard: mandatory headers, identities, profiling, request ids."""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import g

from prerender import create_app
from prerender.gateway import Supplier
from prerender.web.admission import admit_unvouched
from prerender.web.context import load_headers, load_request_context
from tests.conftest import HEADERS

RETAILER = Supplier(id="1", name="Demo", kind="retailer", personalization=True, affiliated_supplier_id=None)


def header_errors(response) -> dict:
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    return response.get_json()["errors"]["headers"]


@pytest.mark.parametrize("missing", ["language-id", "session-id"])
def test_each_mandatory_header_is_required(client, missing):
    headers = {k: v for k, v in HEADERS.items() if k != missing}
    assert missing in header_errors(client.get("/v1/styles/base", headers=headers))


def test_an_identity_is_required(client):
    headers = {k: v for k, v in HEADERS.items() if k != "authorization"}
    assert "authorization" in header_errors(client.get("/v1/styles/base", headers=headers))


@pytest.mark.parametrize(
    "name,value",
    [
        ("authorization", "Bearer abc"),
        ("authorization", "user_id "),
        ("authorization", "user_id a b"),
        ("language-id", "de"),
        ("language-id", "french"),
        ("language-id", "fr-"),
        ("session-id", "a b"),
        ("session-id", "é"),
        ("authorization", "user_id " + "x" * 129),
        ("profiling", "maybe"),
        ("authless-id", "x" * 129),
    ],
)
def test_malformed_headers_are_400(client, name, value):
    assert name in header_errors(client.get("/v1/styles/base", headers={**HEADERS, name: value}))


def context_for(app, headers: dict):
    with app.test_request_context("/v2/styles", headers=headers):
        app.preprocess_request()
        return g.ctx


def test_connected_user(app):
    ctx = context_for(app, HEADERS)
    assert ctx.is_connected and ctx.user_id == "u-1"
    assert ctx.upstream.headers()["Authorization"] == "user_id u-1"
    assert ctx.api_version == "v2"


def test_authless_id_becomes_the_upstream_authorization(app):
    headers = {"authless-id": "anon-7", "language-id": "en", "session-id": "s"}
    ctx = context_for(app, headers)
    assert not ctx.is_connected
    assert ctx.upstream.headers()["Authorization"] == "authless_id anon-7"


@pytest.mark.parametrize(
    "value,expected", [(None, True), ("true", True), ("false", False), ("FALSE", False), ("0", False)]
)
def test_profiling_header(app, value, expected):
    headers = dict(HEADERS) if value is None else {**HEADERS, "profiling": value}
    ctx = replace(context_for(app, headers), supplier=RETAILER)
    assert ctx.profiling is expected
    assert ctx.upstream.headers()["Profiling"] == ("true" if expected else "false")


@pytest.mark.parametrize("supplier", [replace(RETAILER, personalization=False), None])
def test_profiling_is_off_upstream_without_personalization(app, supplier):
    ctx = replace(context_for(app, {**HEADERS, "profiling": "true"}), supplier=supplier)
    assert ctx.upstream.headers()["Profiling"] == "false"


def test_user_ids_may_be_emails_and_base64(app):
    ctx = context_for(app, {**HEADERS, "authorization": "user_id ana+shop@example.com", "session-id": "a+/b=="})
    assert (ctx.user_id, ctx.session_id) == ("ana+shop@example.com", "a+/b==")


def test_language_with_retailer_variant(app):
    ctx = context_for(app, {**HEADERS, "language-id": "fr-demo"})
    assert (ctx.language, ctx.i18n_variant) == ("fr", "demo")


def test_supplier_token_is_logged_not_fatal_when_upstream_is_down(app, caplog):
    ctx = context_for(app, {**HEADERS, "supplier-token": "secret-token-value"})
    assert ctx.supplier is None and ctx.supplier_token is None
    assert not ctx.personalization
    assert "supplier lookup failed" in caplog.text
    assert "secret-token-value" not in caplog.text and "secret-token-value" not in repr(ctx)


def test_missing_supplier_token_is_logged(app, caplog):
    context_for(app, HEADERS)
    assert "without supplier-token" in caplog.text


def test_preflight_skips_the_guard(client):
    response = client.options(
        "/v1/recipe-card", headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"}
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"


@pytest.mark.parametrize(
    "origin,allowed",
    [
        ("http://localhost", True),
        ("https://localhost:8443", True),
        ("http://127.0.0.1:8080", True),
        ("http://[::1]:3000", True),
        ("http://localhost.evil.com", False),
        # Names under localhost are the loopback's too (browsers resolve them so themselves, RFC 6761).
        ("http://shop.localhost:3000", True),
        ("https://a.b-c.localhost", True),
        ("http://evil.com.localhost.evil.com", False),
        ("http://-bad.localhost", False),
        ("http://.localhost", False),
        ("http://evil.com#.localhost", False),
        ("http://shop.localhost.", False),
        ("http://a.localhost.evil.com:3000", False),
        ("http://SHOP.LOCALHOST", False),  # browsers write an origin's host in lower case
        ("http://evil.com/.localhost", False),
        ("http://user@shop.localhost", False),
        ("https://evil.com", False),
        ("http://127.0.0.2", False),
        # A port is 1 to 65535 (RFC 6335), as a browser writes it.
        ("http://localhost:8080", True),
        ("http://localhost:65535", True),
        ("http://localhost:1", True),
        ("http://localhost:99999", False),
        ("http://localhost:65536", False),
        ("http://localhost:0", False),
        ("http://localhost:08080", False),
        ("http://localhost:", False),
    ],
)
def test_cors_allows_every_localhost_origin_and_nothing_else(client, origin, allowed):
    response = client.get("/v1/styles/base", headers={**HEADERS, "Origin": origin})
    assert (response.headers.get("Access-Control-Allow-Origin") == origin) is allowed


def test_configured_cors_origin(app_config):
    app = create_app({**app_config, "CORS_ALLOWED_ORIGINS": ["https://shop.example"]})
    response = app.test_client().get("/v1/styles/base", headers={**HEADERS, "Origin": "https://shop.example"})
    assert response.headers.get("Access-Control-Allow-Origin") == "https://shop.example"


def test_request_id_is_echoed_or_made(client):
    given = client.get("/v1/styles/base", headers={**HEADERS, "X-Request-Id": "abc-123"})
    assert given.headers["X-Request-Id"] == "abc-123"
    made = client.get("/v1/styles/base", headers=HEADERS)
    assert len(made.headers["X-Request-Id"]) == 32


def test_guard_is_the_one_shared_function(app):
    """One header guard for every versioned route, then the admission of the requests no supplier vouches for,
    which needs what the guard found (prerender/web/admission.py)."""
    guards = {name: funcs for name, funcs in app.before_request_funcs.items() if name in ("v1", "v2")}
    assert guards == {"v1": [load_request_context, admit_unvouched], "v2": [load_request_context, admit_unvouched]}


def test_healthz_needs_no_headers_and_no_upstream(client):
    response = client.get("/healthz")  # the unit app's upstream is a closed port
    assert response.status_code == 200 and response.get_json()["status"] == "ok"


def test_no_cors_headers_without_an_origin(app_config):
    """A request without Origin is not a CORS request: nothing names the configured origins."""
    app = create_app({**app_config, "CORS_ALLOWED_ORIGINS": ["https://shop.example"]})
    response = app.test_client().get("/v1/styles/base", headers=HEADERS)
    assert not [name for name, _ in response.headers.items() if name.lower().startswith("access-control-")]


@pytest.mark.parametrize("origin", [None, "https://evil.example", "http://localhost:3000"])
def test_every_answer_varies_on_origin_in_one_line(client, origin):
    response = client.get("/v1/styles/base", headers={**HEADERS, **({"Origin": origin} if origin else {})})
    assert len(response.headers.getlist("Vary")) == 1
    assert "origin" in {value.strip().lower() for value in response.headers["Vary"].split(",")}


def test_loaded_headers_are_remembered_and_errors_never_are(client):
    load_headers.cache_clear()
    for _ in range(2):
        assert "language-id" in header_errors(client.get("/v1/styles/base", headers={**HEADERS, "language-id": "de"}))
        assert client.get("/v1/styles/base", headers=HEADERS).status_code == 200
    info = load_headers.cache_info()
    assert (info.hits, info.currsize) == (1, 1)

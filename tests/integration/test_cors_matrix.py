"""CORS, route by route and origin by origin (flask-cors as configured in prerender/__init__.py).

The policy: every http(s) origin on localhost, 127.0.0.1 or [::1] (any port) plus the exact origins of
CORS_ALLOWED_ORIGINS get their Origin echoed in Access-Control-Allow-Origin, with `Vary: Origin`; nothing
else gets any CORS header. No credentials: callers identify with headers, and the SDK fetches with
`credentials: "omit"` (prerender/static/sdk/http.js), so Access-Control-Allow-Credentials is never sent.
Preflights (which skip the header guard) allow the mandatory headers and the methods of every browser route.
Actual requests to the browser routes carry the shopper's credential (`Authorization: Bearer`, docs/security.md),
obtained from the bootstrap of the app under test: the matrix is about CORS headers, on answers that succeed.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from prerender import create_app
from tests.conftest import TEST_SECRET_KEY, listed
from tests.live import Stack
from tests.stacks import DEFAULT_STACK

from .conftest import browser_headers, headers

pytestmark = pytest.mark.only_stack(DEFAULT_STACK, reason="CORS headers do not depend on the backends")

CONFIGURED = "https://shop.example.com"
OTHER_CONFIGURED = "https://recipes.example.org"

ORIGINS: dict[str, tuple[str, bool]] = {
    "configured": (CONFIGURED, True),
    "other-configured": (OTHER_CONFIGURED, True),
    "localhost-port": ("http://localhost:3000", True),
    "localhost-https": ("https://localhost", True),
    "under-localhost": ("http://shop.localhost:8080", True),
    "127.0.0.1": ("http://127.0.0.1:8080", True),
    "ipv6-loopback": ("http://[::1]:5173", True),
    "disallowed": ("https://evil.test", False),
    "look-alike-suffix": ("https://shop.example.com.evil.test", False),
    "look-alike-prefix": ("https://evilshop.example.com", False),
    "configured-host-other-scheme": ("http://shop.example.com", False),
    "localhost-look-alike": ("http://localhost.evil.test", False),
    "127.0.0.2": ("http://127.0.0.2", False),
    "null": ("null", False),
}

ROUTES_ADD_RECIPE = {"recipe_id": "5", "guests": 4, "store_id": "1001"}
# Every method of every route the browser (or a page inserting fragments at runtime) may call.
ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/recipe-card?recipe_id=5&store_id=1001", None),
    ("GET", "/v2/recipe-card?recipe_id=5&store_id=1001&display_variant=4", None),
    ("GET", "/v1/styles/recipe-card", None),
    ("GET", "/v2/svc-window-bootstrap", None),
    ("GET", "/v1/recipe-details?recipe_id=5&store_id=1001&guests=4", None),
    ("GET", "/v1/basket?store_id=1001", None),
    ("GET", "/v1/likes?recipe_ids=5", None),
    (
        "POST",
        "/v1/recipe-card/multiple?store_id=1001",
        {"contexts": [{"productIds": ["100001", "100002"], "position": 1}]},
    ),
    ("POST", "/v1/basket/recipes", ROUTES_ADD_RECIPE),
    ("PATCH", "/v1/basket/recipes/5", {"guests": 2, "store_id": "1001"}),
    ("DELETE", "/v1/basket/recipes/5?store_id=1001", None),
    ("PUT", "/v1/likes/5", None),
    ("DELETE", "/v1/likes/5", None),
    ("POST", "/v1/events", {"events": [{"name": "recipe.show", "path": "/", "props": {"recipe_id": "5"}}]}),
]

# The browser routes: they act for the shopper of a credential, never for the specification's headers.
BROWSER_ROUTES = ("/v1/basket", "/v1/likes", "/v1/events")

# The request headers of the specification, and the authless visitor's credential a browser's merge sends, as
# a browser lists them in a preflight (lower case, sorted).
SPEC_HEADERS = [
    "authless-credential",
    "authless-id",
    "authorization",
    "content-type",
    "language-id",
    "profiling",
    "session-id",
    "supplier-token",
    "x-request-id",
]

CORS_RESPONSE_HEADERS = (
    "Access-Control-Allow-Origin",
    "Access-Control-Allow-Credentials",
    "Access-Control-Expose-Headers",
    "Access-Control-Allow-Methods",
    "Access-Control-Allow-Headers",
    "Access-Control-Max-Age",
)


def cors_config(coreapi_url: str, stack: Stack) -> dict[str, Any]:
    return {
        "TESTING": True,
        "UPSTREAM_URL": coreapi_url,
        **stack.cache_config(),
        "SECRET_KEYS": [TEST_SECRET_KEY],
        "CORS_ALLOWED_ORIGINS": [CONFIGURED, OTHER_CONFIGURED],
        "CORS_ALLOWED_HEADERS": ["x-datadog-trace-id", "Sentry-Trace"],
    }


@pytest.fixture(scope="module")
def cors_app(coreapi_url: str, stack: Stack) -> Flask:
    return create_app(cors_config(coreapi_url, stack))


@pytest.fixture
def cors_client(cors_app: Flask) -> FlaskClient:
    return cors_app.test_client()


def route_id(route: tuple[str, str, Any]) -> str:
    return f"{route[0]} {route[1].split('?')[0]}"


def send(client: FlaskClient, method: str, path: str, body: dict | None, **extra: str):
    """The route called as the SDK would, by a user of its own (routes write per user): with the user's
    credential on a browser route, else with the specification's headers; a basket recipe is added first when
    the route changes it."""
    user_id = f"cors-{uuid.uuid4().hex[:10]}"
    user = browser_headers(client, user=user_id) if path.startswith(BROWSER_ROUTES) else headers(user=user_id)
    if path.startswith("/v1/basket/recipes/"):
        added = client.post("/v1/basket/recipes", headers=user, json=ROUTES_ADD_RECIPE)
        assert added.status_code == 200, added.get_data(as_text=True)
    return client.open(path, method=method, headers={**user, **extra}, json=body)


@pytest.mark.parametrize("origin_name", ORIGINS)
@pytest.mark.parametrize("route", ROUTES, ids=route_id)
def test_actual_requests(cors_client, route, origin_name):
    method, path, body = route
    origin, allowed = ORIGINS[origin_name]
    response = send(cors_client, method, path, body, Origin=origin)
    assert response.status_code < 400, response.get_data(as_text=True)  # the route serves this method
    if allowed:
        assert response.headers.getlist("Access-Control-Allow-Origin") == [origin]  # echoed, never `*`
        assert "origin" in listed(response, "Vary")
        # A page on another origin reads the request id, and what a problem says of retrying or credentials.
        assert {"x-request-id", "retry-after", "www-authenticate"} <= listed(response, "Access-Control-Expose-Headers")
        assert "Access-Control-Allow-Credentials" not in response.headers
    else:
        assert not [name for name in CORS_RESPONSE_HEADERS if name in response.headers]


@pytest.mark.parametrize("origin_name", ORIGINS)
@pytest.mark.parametrize("route", ROUTES, ids=route_id)
def test_preflights(cors_client, route, origin_name):
    method, path, _ = route
    origin, allowed = ORIGINS[origin_name]
    response = cors_client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": ", ".join(SPEC_HEADERS),
        },
    )
    assert response.status_code == 200  # no header guard on a preflight: it carries no credentials
    if allowed:
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert method.lower() in listed(response, "Access-Control-Allow-Methods")
        assert set(SPEC_HEADERS) <= listed(response, "Access-Control-Allow-Headers")
        assert int(response.headers["Access-Control-Max-Age"]) > 0
        assert "origin" in listed(response, "Vary")
        assert "Access-Control-Allow-Credentials" not in response.headers
    else:
        assert not [name for name in CORS_RESPONSE_HEADERS if name in response.headers]


def test_a_preflight_allows_only_the_spec_headers(cors_client):
    response = cors_client.options(
        "/v1/basket",
        headers={
            "Origin": CONFIGURED,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, x-evil",
        },
    )
    assert listed(response, "Access-Control-Allow-Headers") == {"authorization"}


def test_a_preflight_allows_the_tracing_headers_a_pages_tag_adds(cors_client):
    """A page's tracing tag adds the W3C headers (and `baggage`) to every call, some tools their own headers too
    (CORS_ALLOWED_HEADERS): refused at the preflight, every call of the SDK failed (the forty-first outside check,
    docs/decisions.md)."""
    tracing = ["traceparent", "tracestate", "baggage", "x-datadog-trace-id", "sentry-trace"]
    response = cors_client.options(
        "/v1/basket/reconcile",
        headers={
            "Origin": CONFIGURED,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ",".join([*tracing, "content-type", "x-other-tool"]),
        },
    )
    assert listed(response, "Access-Control-Allow-Headers") == {*tracing, "content-type"}


def refusals(client: FlaskClient, kind: str) -> float:
    """prerender_cors_refused_total{kind} as /metrics says it."""
    text = client.get("/metrics").get_data(as_text=True)
    found = re.search(rf'^prerender_cors_refused_total\{{kind="{kind}"\}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


# What a browser adds to a CORS request (every browser of the support floor: docs/styles.md, "Browsers").
CORS_MODE = {"Sec-Fetch-Mode": "cors"}
REFUSED = "https://www.shop.example.com"  # the configured origin's www: another origin


def test_a_refused_origin_is_said_in_the_log_and_counted(coreapi_url, stack, caplog):
    """A page's origin missing from CORS_ALLOWED_ORIGINS fails every SDK call in its shoppers' browsers, and was an
    ordinary OPTIONS 200 in the log (the forty-second outside check): now a warning names the origin and the setting
    (once a minute per process at most), the request's line says `cors_refused`, and a counter counts it."""
    client = create_app(cors_config(coreapi_url, stack)).test_client()  # its own once-a-minute warning
    before = {kind: refusals(client, kind) for kind in ("preflight", "request")}
    with caplog.at_level(logging.INFO):
        for _ in range(2):
            client.options(
                "/v1/basket", headers={"Origin": REFUSED, "Access-Control-Request-Method": "GET", **CORS_MODE}
            )
        client.get("/v1/basket", headers={"Origin": REFUSED, **CORS_MODE})
        client.get("/v1/basket", headers={"Origin": CONFIGURED, **CORS_MODE})  # allowed: none of it
    warnings = [r.getMessage() for r in caplog.records if r.name == "prerender.web.cors_policy"]
    assert len(warnings) == 1, warnings  # the others counted for the next line
    assert REFUSED in warnings[0] and "PRERENDER_CORS_ALLOWED_ORIGINS" in warnings[0]
    lines = [r for r in caplog.records if r.name == "prerender.request" and getattr(r, "path", "") == "/v1/basket"]
    assert [getattr(r, "cors_refused", None) for r in lines] == [REFUSED] * 3 + [None]
    assert {kind: refusals(client, kind) for kind in before} == {
        "preflight": before["preflight"] + 2,
        "request": before["request"] + 1,
    }


def test_a_preflight_asking_for_headers_not_allowed_is_said_too(coreapi_url, stack, caplog):
    """A page of an allowed origin whose tracing tag adds its own header fails at the preflight the same way."""
    client = create_app(cors_config(coreapi_url, stack)).test_client()
    before = refusals(client, "header")
    with caplog.at_level(logging.INFO):
        client.options(
            "/v1/basket",
            headers={
                "Origin": CONFIGURED,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "authorization,traceparent,x-b3-traceid",
                **CORS_MODE,
            },
        )
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "prerender.web.cors_policy"]
    assert "x-b3-traceid" in warning and "PRERENDER_CORS_ALLOWED_HEADERS" in warning
    assert "authorization" not in warning and "traceparent" not in warning
    assert refusals(client, "header") == before + 1


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/v1/basket", {}),  # no Sec-Fetch-Mode: a server forwarding its visitor's Origin, a scanner
        ("/static/0000000000/sdk/svc.js", CORS_MODE),  # a static file (here a 404: no declared route)
        ("/origin-check", CORS_MODE),  # open to every origin
    ],
)
def test_what_is_no_browsers_refused_cors_request_is_not_counted(coreapi_url, stack, caplog, path, extra):
    client = create_app(cors_config(coreapi_url, stack)).test_client()
    before = {kind: refusals(client, kind) for kind in ("preflight", "request")}
    with caplog.at_level(logging.INFO):
        client.get(path, headers={"Origin": REFUSED, **extra})
    assert not [r for r in caplog.records if r.name == "prerender.web.cors_policy"]
    assert {kind: refusals(client, kind) for kind in before} == before


@pytest.mark.parametrize("origin_name", ORIGINS)
def test_origin_check_answers_what_cors_does(cors_client, origin_name):
    """GET /origin-check, open to every origin, says what the CORS headers of the browser routes say."""
    origin, allowed = ORIGINS[origin_name]
    answer = cors_client.get("/origin-check", headers={"Origin": origin, **CORS_MODE})
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.get_json() == {"origin": origin, "allowed": allowed}
    preflight = cors_client.options("/v1/basket", headers={"Origin": origin, "Access-Control-Request-Method": "GET"})
    assert ("Access-Control-Allow-Origin" in preflight.headers) is allowed


@pytest.mark.parametrize("method", ["TRACE", "CONNECT"])
def test_a_preflight_for_another_method_is_not_allowed(cors_client, method):
    response = cors_client.options(
        "/v1/basket", headers={"Origin": CONFIGURED, "Access-Control-Request-Method": method}
    )
    assert "Access-Control-Allow-Methods" not in response.headers


@pytest.mark.parametrize("origin_name", ["configured", "localhost-port"])
def test_errors_carry_cors_headers_so_the_sdk_can_read_the_problem(cors_client, origin_name):
    origin, _ = ORIGINS[origin_name]
    no_credential = cors_client.get("/v1/basket", headers={"Origin": origin})
    assert no_credential.status_code == 401 and no_credential.headers["WWW-Authenticate"].startswith("Bearer")
    credential_only = {"authorization": browser_headers(cors_client)["authorization"]}
    missing_headers = cors_client.get("/v1/basket", headers={**credential_only, "Origin": origin})
    invalid_body = send(cors_client, "POST", "/v1/basket/recipes", {"recipe_id": "5"}, Origin=origin)
    assert missing_headers.status_code == invalid_body.status_code == 400
    for response in (no_credential, missing_headers, invalid_body):
        assert response.mimetype == "application/problem+json"
        assert response.headers["Access-Control-Allow-Origin"] == origin


def test_a_beacon_post_gets_cors_headers_too(cors_client):
    """navigator.sendBeacon posts text/plain (no preflight) with the headers, credential included, in the body."""
    body = {
        "headers": browser_headers(cors_client, user=None, authless="cors-beacon", session="s-1"),
        "events": [{"name": "recipe.show", "props": {}}],
    }
    response = cors_client.post(
        "/v1/events",
        data=json.dumps(body),
        content_type="text/plain;charset=UTF-8",
        headers={"Origin": "http://localhost:3000"},
    )
    assert response.status_code == 202
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"


@pytest.mark.parametrize("origin", [CONFIGURED, "https://evil.test", None])
def test_static_files_are_open_to_every_origin(cors_client, origin):
    """ES modules and stylesheets: no credentials, the same bytes for everyone, `*`."""
    link = send(cors_client, "GET", "/v1/styles/recipe-card", None).get_json()["links"][0]
    path = link.split("://", 1)[1].split("/", 1)[1]
    response = cors_client.get(f"/{path}", headers={"Origin": origin} if origin else {})
    assert response.status_code == 200 and response.headers["Access-Control-Allow-Origin"] == "*"


def test_a_request_without_origin_gets_no_cors_headers(cors_client):
    response = send(cors_client, "GET", "/v1/styles/recipe-card", None)
    assert response.status_code == 200
    assert not [name for name in CORS_RESPONSE_HEADERS if name in response.headers]


@pytest.mark.parametrize(
    "origin",
    [
        pytest.param(CONFIGURED, id="allowed"),
        pytest.param("https://evil.test", id="disallowed"),
        pytest.param(None, id="no-origin"),
    ],
)
def test_public_answers_always_vary_on_origin(cors_client, origin):
    for route in ("/v1/styles/recipe-card", "/v1/recipe-details?recipe_id=5&store_id=1001"):
        response = send(cors_client, "GET", route, None, **({"Origin": origin} if origin else {}))
        assert "public" in response.headers["Cache-Control"]
        assert "origin" in listed(response, "Vary")

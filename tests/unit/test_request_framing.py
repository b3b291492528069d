"""What HTTP asks of a server about the request itself (prerender/web/request_framing.py), and that no error nor
health answer is kept by a cache (plumbing/problems.py, prerender/blueprints/health.py): a shared cache in front
(a CDN) that kept a 404 or a /readyz would go on answering for the service."""

from __future__ import annotations

import pytest
from werkzeug.test import EnvironBuilder, run_wsgi_app

from tests.conftest import HEADERS

PROBLEM = "application/problem+json"
CARD = "/v1/recipe-card?recipe_id=1"


def call(app, environ: dict) -> tuple[int, dict[str, str], bytes]:
    """The app's answer to a WSGI environ made by hand (the test client always sends one Host)."""
    body, status, headers = run_wsgi_app(app.wsgi_app, environ, buffered=True)
    return int(status.split()[0]), dict(headers), b"".join(body)


def environ(path: str = CARD, **changes: str | None) -> dict:
    built = EnvironBuilder(path=path, headers=HEADERS).get_environ()
    for name, value in changes.items():
        if value is None:
            built.pop(name, None)
        else:
            built[name] = value
    return built


@pytest.mark.parametrize("method", ["FOO", "PROPFIND", "QUERY"])
def test_a_method_http_does_not_define_is_a_501_problem(client, method):
    response = client.open(CARD, method=method, headers=HEADERS)
    assert response.status_code == 501 and response.mimetype == PROBLEM
    assert response.get_json()["status"] == 501 and "Allow" not in response.headers


def test_a_known_method_the_route_lacks_is_still_a_405(client):
    response = client.open(CARD, method="PATCH", headers=HEADERS)
    assert response.status_code == 405 and "GET" in response.headers["Allow"]


def test_an_http_1_1_request_without_host_is_a_400_problem(app):
    status, headers, body = call(app, environ(SERVER_PROTOCOL="HTTP/1.1", HTTP_HOST=None))
    assert status == 400 and headers["Content-Type"] == PROBLEM and b"Host" in body


def test_an_http_1_1_request_with_two_hosts_is_a_400_problem(app):
    status, _, body = call(app, environ(SERVER_PROTOCOL="HTTP/1.1", HTTP_HOST="a.example,b.example"))
    assert status == 400 and b"more than one Host" in body


def test_an_http_1_0_request_needs_no_host(app):
    status, _, _ = call(app, environ("/healthz", SERVER_PROTOCOL="HTTP/1.0", HTTP_HOST=None))
    assert status == 200


@pytest.mark.parametrize("coding", ["gzip, chunked", "deflate", "chunked, chunked, br"])
def test_a_transfer_coding_other_than_chunked_is_a_501_problem(app, coding):
    status, headers, _ = call(app, environ("/v1/events", REQUEST_METHOD="POST", HTTP_TRANSFER_ENCODING=coding))
    assert status == 501 and headers["Content-Type"] == PROBLEM


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/v1/no-such-route", 404),
        ("POST", CARD, 405),
        ("GET", "/v1/recipe-card", 400),  # no recipe_id
        ("GET", "/v2/catalog/favorites", 410),
        ("FOO", CARD, 501),
    ],
)
def test_no_cache_may_keep_an_error(client, method, path, status):
    response = client.open(path, method=method, headers=HEADERS)
    assert response.status_code == status and response.mimetype == PROBLEM
    assert response.headers["Cache-Control"] == "no-store" and "ETag" not in response.headers


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
def test_no_cache_may_keep_a_health_answer(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert "no-store" in response.headers["Cache-Control"] and "ETag" not in response.headers

"""A body sent without Content-Length (Transfer-Encoding: chunked) is held to MAX_CONTENT_LENGTH like any other:
413 problem+json over it, never a cut body read as invalid JSON (prerender/web/request_limits.py).

The test client does what gunicorn and werkzeug's server do with a chunked body: no CONTENT_LENGTH, and
`wsgi.input_terminated` set (the server ends the stream); tests/integration/test_chunked_bodies.py sends the
same bodies to a real gunicorn."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from gunicorn.http.errors import ChunkMissingTerminator, InvalidChunkExtension, InvalidChunkSize

from prerender import create_app
from tests.conftest import HEADERS
from tests.problems import names

LIMIT = 64 * 1024
PROBLEM = "application/problem+json"
CONTEXT = {"productIds": ["1", "2"], "position": 1}


def padded(body: dict[str, Any], size: int) -> bytes:
    """The body as JSON, padded with spaces (still valid JSON) to exactly `size` bytes."""
    data = json.dumps(body).encode()
    assert len(data) <= size
    return data + b" " * (size - len(data))


def chunked(
    client: FlaskClient,
    path: str,
    data: bytes,
    *,
    content_type: str = "application/json",
    base: dict[str, str] = HEADERS,
    **headers: str,
):
    return client.post(
        path,
        input_stream=io.BytesIO(data),
        headers={**base, **headers, "Content-Type": content_type, "Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )


MULTIPLE = ("/v1/recipe-card/multiple", {"contexts": [CONTEXT]}, "application/json")
EVENTS_JSON = ("/v1/events", {"events": [{"name": "recipe.show"}]}, "application/json")
EVENTS_BEACON = ("/v1/events", {"events": [{"name": "recipe.show"}]}, "text/plain;charset=UTF-8")
ROUTES = [MULTIPLE, EVENTS_JSON, EVENTS_BEACON]
IDS = ["multiple", "events-json", "events-beacon"]


@pytest.fixture
def route_headers(shopper_headers: dict[str, str]):
    """The headers of a route: the events route is a browser route (the shopper's credential)."""
    return lambda path: shopper_headers if path == "/v1/events" else HEADERS


@pytest.mark.parametrize(("path", "body", "content_type"), ROUTES, ids=IDS)
@pytest.mark.parametrize("size", [LIMIT + 1, 70 * 1024, 10 * LIMIT])
def test_a_chunked_body_over_the_limit_is_a_413(client, route_headers, path, body, content_type, size):
    response = chunked(client, path, padded(body, size), content_type=content_type, base=route_headers(path))
    assert response.status_code == 413 and response.mimetype == PROBLEM
    assert response.get_json()["status"] == 413
    assert response.get_json()["title"] == "Content Too Large"  # RFC 9110's phrase (RFC 9457, section 4.2.1)
    assert str(LIMIT) in response.get_json()["detail"]


@pytest.mark.parametrize(("path", "body", "content_type"), ROUTES, ids=IDS)
def test_a_body_with_a_content_length_over_the_limit_is_the_same_413(client, route_headers, path, body, content_type):
    base = route_headers(path)
    over = chunked(client, path, padded(body, 70 * 1024), content_type=content_type, base=base).get_json()
    response = client.post(path, data=padded(body, 70 * 1024), headers={**base, "Content-Type": content_type})
    assert response.status_code == 413 and response.mimetype == PROBLEM
    assert response.get_json() == over


def test_a_beacon_with_its_headers_in_a_chunked_body_over_the_limit_is_a_413(client, shopper_headers):
    """The header guard reads a beacon's headers, its credential included, from its body
    (prerender/web/context.py): it must not see a cut body either (it would answer 401 or 400 for the missing
    headers)."""
    body = {"events": [{"name": "recipe.show"}], "headers": shopper_headers}
    response = client.post(
        "/v1/events",
        input_stream=io.BytesIO(padded(body, 70 * 1024)),
        headers={"Content-Type": "text/plain", "Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )
    assert response.status_code == 413 and response.mimetype == PROBLEM


def test_a_chunked_body_at_the_limit_is_read_whole(client):
    response = chunked(client, MULTIPLE[0], padded(MULTIPLE[1], LIMIT))
    assert response.status_code == 200  # the upstream is down here: empty cards
    assert response.get_json() == {"data": [{"html": "", "position": 1}]}


@pytest.mark.parametrize(
    ("body", "field"), [({"contexts": [{**CONTEXT, "position": 2.5}]}, "contexts"), ({"contexts": []}, "contexts")]
)
def test_a_small_chunked_body_is_parsed_as_usual(client, body, field):
    response = chunked(client, MULTIPLE[0], json.dumps(body).encode())
    assert response.status_code == 400 and names(response.get_json()["errors"]["json"], field)


def test_the_limit_follows_the_configuration(app_config):
    client = create_app({**app_config, "MAX_CONTENT_LENGTH": 1024}).test_client()
    assert chunked(client, MULTIPLE[0], padded(MULTIPLE[1], 1024)).status_code == 200
    response = chunked(client, MULTIPLE[0], padded(MULTIPLE[1], 1025))
    assert response.status_code == 413 and "1024 bytes" in response.get_json()["detail"]


def test_a_413_keeps_the_request_id(client):
    response = chunked(client, MULTIPLE[0], padded(MULTIPLE[1], 70 * 1024), **{"X-Request-Id": "chunked-1"})
    assert response.status_code == 413 and response.headers["X-Request-Id"] == "chunked-1"


class BrokenChunks:
    """gunicorn's reader of a chunked body (`read` only, as its Body): `good` bytes, then `error` (the test
    client also measures the stream with tell and seek)."""

    def __init__(self, error: Exception, good: bytes) -> None:
        self.error = error
        self.buffer = io.BytesIO(good)
        self.tell, self.seek = self.buffer.tell, self.buffer.seek

    def read(self, size: int | None = -1) -> bytes:
        data = self.buffer.read(size)
        if not data:
            raise self.error
        return data


@pytest.mark.parametrize(
    "error",
    [InvalidChunkSize(b"zz"), ChunkMissingTerminator(b"xx"), InvalidChunkExtension("a bare CR")],
    ids=["size", "terminator", "extension"],
)
@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/healthz"), ("POST", "/healthz"), ("GET", "/openapi.json"), ("POST", MULTIPLE[0])]
)
def test_a_malformed_chunked_body_is_a_400_problem_on_any_route(client, error, method, path) -> None:
    response = client.open(
        path,
        method=method,
        input_stream=BrokenChunks(error, good=b'{"contexts"'),
        headers={**HEADERS, "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )
    assert response.status_code == 400 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["status"] == 400 and "chunked" in problem["detail"]
    assert "zz" not in problem["detail"] and "xx" not in problem["detail"]  # logged, not echoed

"""Chunked request bodies (Transfer-Encoding: chunked, no Content-Length) on real servers, sent over a raw
socket: over MAX_CONTENT_LENGTH, a 413 problem+json as for a Content-Length over it, never a 400 "invalid
JSON" on a cut body (prerender/web/request_limits.py); under it, parsed as usual. Under gunicorn with the
production settings (gunicorn.conf.py) and under werkzeug's server (`prerender_url`, tests/live.py). Bytes
that are not chunked coding are a 400 problem on any route, and so is a body shorter than its Content-Length;
the request line and framing HTTP asks a server to refuse are refused on both servers."""

from __future__ import annotations

import http.client
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from tests.live import Stack, running_prerender

from .conftest import headers, live_browser_headers

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 64 * 1024
PROBLEM = "application/problem+json"
CONTEXTS = [{"productIds": ["100001", "100002"], "position": 1}]
EVENTS = [{"name": "recipe.show", "path": "/", "props": {"recipe_id": "1"}}]


@pytest.fixture(scope="module")
def gunicorn_url(coreapi_url: str, stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """prerender under gunicorn (gunicorn.conf.py, one worker), on a free loopback port."""
    env = {
        **os.environ,
        **stack.environ("chunked"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path_factory.mktemp("chunked-metrics")),
        "PRERENDER_UPSTREAM_URL": coreapi_url,
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "4",
        "PRERENDER_LOG_LEVEL": "WARNING",
    }
    with running_prerender(env) as url:
        yield url


@pytest.fixture(params=["gunicorn", "werkzeug"])
def server_url(request: pytest.FixtureRequest, stack: Stack) -> str:
    """Each server in turn (`stack` named here so the live fixtures get each stack's parameter)."""
    return request.getfixturevalue("gunicorn_url" if request.param == "gunicorn" else "prerender_url")


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.content_type = response.getheader("Content-Type", "")
        self.body = response.read()

    def json(self) -> Any:
        return json.loads(self.body)


def route_headers(url: str, path: str) -> dict[str, str]:
    """The headers of the route: a browser's, with a credential of that server, on the events route (a browser
    route); the customer's server's elsewhere."""
    if path.startswith("/v1/events"):
        return live_browser_headers(url, user=None, authless="chunked-visitor")
    return headers(token=None)


def send_chunked(url: str, path: str, body: bytes, *, content_type: str, chunk: int = 4096) -> Answer:
    """POST `body` in chunks of `chunk` bytes over a raw socket, then read the answer."""
    parts = urlsplit(url)
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {parts.netloc}",
        f"Content-Type: {content_type}",
        "Transfer-Encoding: chunked",
        "Connection: close",
        *(f"{name}: {value}" for name, value in route_headers(url, path).items()),
    ]
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        try:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
            for start in range(0, len(body), chunk):
                piece = body[start : start + chunk]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server may answer (and stop reading) before the last chunk: its answer is still there
        response = http.client.HTTPResponse(sock, method="POST")
        response.begin()
        return Answer(response)


def padded(body: dict[str, Any], size: int) -> bytes:
    """The body as JSON, padded with spaces (still valid JSON) to `size` bytes."""
    data = json.dumps(body).encode()
    return data + b" " * (size - len(data))


ROUTES = [
    ("/v1/recipe-card/multiple", {"contexts": CONTEXTS}, "application/json"),
    ("/v1/events", {"events": EVENTS}, "application/json"),
    ("/v1/events", {"events": EVENTS}, "text/plain;charset=UTF-8"),  # navigator.sendBeacon
]
IDS = ["multiple", "events", "events-beacon"]


@pytest.mark.parametrize(("path", "body", "content_type"), ROUTES, ids=IDS)
@pytest.mark.parametrize("size", [70 * 1024, LIMIT + 1])
def test_a_chunked_body_over_the_limit_is_a_413_problem(server_url, path, body, content_type, size):
    answer = send_chunked(server_url, path, padded(body, size), content_type=content_type)
    assert answer.status == 413 and answer.content_type == PROBLEM, answer.body[:300]
    assert answer.json()["status"] == 413 and f"{LIMIT} bytes" in answer.json()["detail"]


def test_a_keyword_over_the_limit_in_one_large_chunk_is_a_413(server_url):
    body = json.dumps({"contexts": CONTEXTS, "keyword": "x" * 70 * 1024}).encode()
    answer = send_chunked(
        server_url, "/v1/recipe-card/multiple", body, content_type="application/json", chunk=len(body)
    )
    assert answer.status == 413 and answer.content_type == PROBLEM


def test_chunked_bodies_within_the_limit_are_read_whole(server_url):
    cards = send_chunked(
        server_url, "/v1/recipe-card/multiple", padded({"contexts": CONTEXTS}, LIMIT), content_type="application/json"
    )
    assert cards.status == 200 and [card["position"] for card in cards.json()["data"]] == [1]
    events = send_chunked(server_url, "/v1/events", json.dumps({"events": EVENTS}).encode(), content_type="text/plain")
    assert events.status == 202 and events.json() == {"stored": 1}


def test_a_small_chunked_body_is_validated_as_usual(server_url):
    body = {"contexts": CONTEXTS, "display_variant": 2.9}
    answer = send_chunked(
        server_url, "/v1/recipe-card/multiple", json.dumps(body).encode(), content_type="application/json"
    )
    assert answer.status == 400 and answer.content_type == PROBLEM
    assert "display_variant" in answer.json()["errors"]["json"]


def send_raw(url: str, request: bytes, *, close_write: bool = False) -> Answer:
    """Raw bytes on a new connection (then our side closed, with `close_write`); the answer as http.client reads
    it."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request)
        if close_write:
            sock.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(sock, method=request.split(b" ", 1)[0].decode())
        response.begin()
        return Answer(response)


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/healthz"), ("POST", "/healthz"), ("GET", "/openapi.json"), ("POST", "/v1/recipe-card/multiple")],
)
@pytest.mark.parametrize("chunk", [b"zz\r\n", b"5\r\nabcdeXX", b"-1\r\n"], ids=["not-hex", "no-crlf", "negative"])
def test_a_malformed_chunked_body_is_a_400_problem_on_any_route(server_url, method, path, chunk):
    """Bytes that are not chunked coding after `Transfer-Encoding: chunked`: a 400 problem, not a 500 with a
    trace in the log (prerender/web/request_limits.py)."""
    head = [
        f"{method} {path} HTTP/1.1",
        f"Host: {urlsplit(server_url).netloc}",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers(token=None).items()),
    ]
    answer = send_raw(server_url, ("\r\n".join(head) + "\r\n\r\n").encode() + chunk)
    assert answer.status == 400 and answer.content_type == PROBLEM, answer.body[:300]
    assert answer.json()["status"] == 400 and answer.json()["type"] == "about:blank"


def send_short(url: str, path: str, body: bytes, *, announced: int, headers: dict[str, str]) -> Answer:
    """POST `body` with a Content-Length of `announced` bytes, then close our side: a client that stopped early."""
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {urlsplit(url).netloc}",
        "Content-Type: application/json",
        f"Content-Length: {announced}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return send_raw(url, ("\r\n".join(head) + "\r\n\r\n").encode() + body, close_write=True)


def test_a_body_shorter_than_its_content_length_is_a_400_and_nothing_is_written(server_url):
    """A valid JSON body whose Content-Length announced 20 more bytes is incomplete (RFC 9112, section 6.3): gunicorn
    hands on the bytes it got, which were acted on as the whole body (prerender/web/request_limits.py)."""
    shopper = live_browser_headers(server_url, user=f"short-body-{os.getpid()}-{id(server_url)}", authless="short")
    body = json.dumps({"recipe_id": "2", "guests": 4, "store_id": "1001"}).encode()
    answer = send_short(server_url, "/v2/basket/recipes", body, announced=len(body) + 20, headers=shopper)
    assert answer.status == 400 and answer.content_type == PROBLEM, answer.body[:300]
    basket = requests.get(f"{server_url}/v2/basket?store_id=1001", headers=shopper, timeout=10).json()
    assert basket["recipes"] == []
    whole = send_short(server_url, "/v2/basket/recipes", body, announced=len(body), headers=shopper)
    assert whole.status == 200, whole.body[:300]


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (["GET /healthz HTTP/1.1"], 400),  # no Host
        (["GET /healthz HTTP/1.1", "Host: a.example", "Host: b.example"], 400),
        (["FOO /healthz HTTP/1.1", "Host: a.example"], 501),
        (["POST /v1/events HTTP/1.1", "Host: a.example", "Transfer-Encoding: gzip, chunked"], 501),
    ],
    ids=["no-host", "two-hosts", "unknown-method", "gzip-coding"],
)
def test_what_http_asks_of_the_request_line_and_framing(server_url, request_head, status):
    """On the real servers, which pass these on: an HTTP/1.1 request without one Host is a 400, a method or a
    transfer coding HTTP or this service does not know a 501 (prerender/web/request_framing.py)."""
    head = [*request_head, "Content-Type: application/json", "Connection: close"]
    answer = send_raw(server_url, ("\r\n".join(head) + "\r\n\r\n").encode() + b"0\r\n\r\n")
    assert answer.status == status and answer.content_type == PROBLEM, answer.body[:300]

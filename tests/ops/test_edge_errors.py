"""Requests refused before prerender's code runs, in the documented deployment (nginx with
deploy/nginx/prerender.conf in front of prerender under gunicorn with gunicorn.conf.py): they answer
application/problem+json, prerender's error shape (plumbing/problems.py), never an HTML page of nginx or
gunicorn. Sent over raw sockets: HTTP clients refuse to send most of them.

Without nginx, gunicorn's own refusals (control characters, both Content-Length and Transfer-Encoding, a
request line over 8190 bytes) are problem+json too (gunicorn.conf.py, `write_problem`;
tests/ops/test_gunicorn_refusals.py), and gunicorn.conf.py sets its limits above prerender's, so only absurd
requests meet them (the last tests).
"""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass

import pytest

from bench.nginx import NginxFront

from .conftest import GunicornPrerender

PROBLEM = "application/problem+json"


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def problem(self) -> dict:
        assert self.content_type == PROBLEM, (self.status, self.content_type, self.body[:200])
        return json.loads(self.body)


def send(url: str, request: bytes) -> Answer:
    """One raw request on a new connection; the answer as http.client reads it."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return Answer(response.status, response.headers, response.read())


def get(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: edge.test", *headers, "", ""]).encode("latin-1")


def assert_problem(answer: Answer, status: int) -> dict:
    """nginx's own refusal in prerender's shape, with the headers every nginx answer carries."""
    assert answer.status == status, (answer.status, answer.body[:300])
    problem = answer.problem()
    assert problem["status"] == status and problem["type"] == "about:blank" and problem["title"] and problem["detail"]
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["X-Request-Id"]
    return problem


# What nginx refuses itself, each with the status the client gets.
REFUSED = {
    "a header line over 8 KiB": (get("/healthz", "X-Big: " + "a" * 9000), 431),
    "headers over 32 KiB in all": (get("/healthz", *(f"X-Big-{i}: {'a' * 7000}" for i in range(6))), 431),
    "a URL over 8 KiB": (get("/healthz?pad=" + "a" * 9000), 414),
    "a control character in the request line": (b"GET /healthz\x01 HTTP/1.1\r\nHost: edge.test\r\n\r\n", 400),
    "a DEL in the URL": (b"GET /healthz?q=\x7f HTTP/1.1\r\nHost: edge.test\r\n\r\n", 400),
    "a byte beyond ASCII in the URL": (b"GET /healthz?q=\xc3\xa9 HTTP/1.1\r\nHost: edge.test\r\n\r\n", 400),
    "a control character in a header name": (get("/healthz", "X-Co\x01trol: 1"), 400),
    "a NUL in a header value": (get("/healthz", "X-Value: a\x00b"), 400),
    "both Content-Length and Transfer-Encoding": (
        b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    ),
    "a malformed chunk": (
        b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n",
        400,
    ),
    "a folded header line": (get("/healthz", "X-Folded: a", " b"), 400),
    "an HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
    "nginx's internal error locations, asked for from outside": (get("/.prerender-errors/400"), 404),
    "a transfer coding other than chunked": (
        b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nTransfer-Encoding: gzip\r\n\r\n",
        501,
    ),
}


@pytest.mark.nginx
@pytest.mark.parametrize("case", REFUSED)
def test_nginx_refusals_are_problem_json(nginx_before_gunicorn: NginxFront, case: str):
    request, status = REFUSED[case]
    assert_problem(send(nginx_before_gunicorn.url, request), status)


@pytest.mark.nginx
def test_a_body_over_64_kib_carries_nosniff(nginx_before_gunicorn: NginxFront):
    request = b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nContent-Length: 70000\r\n\r\n"
    assert_problem(send(nginx_before_gunicorn.url, request), 413)


# "GET /healthz?pad=" + padding + " HTTP/1.1": a request line of padding + 26 bytes, a target of padding + 13.
@pytest.mark.nginx
@pytest.mark.parametrize("padding", [7987, 7988, 8164, 8165, 9000])
def test_no_url_length_meets_gunicorns_own_error(nginx_before_gunicorn: NginxFront, padding: int):
    """Up to prerender's limit (8000 bytes of path and query) a 200; beyond, prerender's own 414 up to a request
    line of 8190 bytes (padding 8164), the most both nginx (one 8 KiB buffer, CRLF included) and gunicorn
    (limit_request_line, gunicorn.conf.py) accept; then nginx's 414. Never gunicorn's HTML."""
    answer = send(nginx_before_gunicorn.url, get("/healthz?pad=" + "a" * padding))
    expected = 200 if padding + 13 <= 8000 else 414
    assert answer.status == expected, (answer.status, answer.body[:200])
    assert answer.status == 200 or answer.problem()["status"] == 414


# "X-Big: " + value: a header line of size + 2 bytes, name and value of `size`.
@pytest.mark.nginx
@pytest.mark.parametrize("size", [8100, 8188, 8189, 9000])
def test_no_header_size_meets_gunicorns_own_error(nginx_before_gunicorn: NginxFront, size: int):
    """A header line up to 8190 bytes passes nginx (one 8 KiB buffer, CRLF included) and prerender (8192 bytes
    of name and value, prerender/config.py); a longer one is nginx's 431. gunicorn's field limit
    (limit_request_field_size, gunicorn.conf.py) is far above both."""
    answer = send(nginx_before_gunicorn.url, get("/healthz", "X-Big: " + "a" * (size - len("X-Big"))))
    expected = 200 if size + 2 <= 8190 else 431
    assert answer.status == expected, (answer.status, answer.body[:200])
    assert answer.status == 200 or answer.problem()["status"] == 431


@pytest.mark.nginx
def test_prerenders_own_errors_pass_through_unchanged(nginx_before_gunicorn: NginxFront):
    """error_page catches nginx's errors only: prerender's 400 still names the missing header."""
    answer = send(nginx_before_gunicorn.url, get("/v1/recipe-card?recipe_id=5&store_id=1001", "language-id: fr"))
    assert answer.status == 400
    assert "headers" in answer.problem().get("errors", {})


# gunicorn alone (`make run`): its limits sit above prerender's, so requests over prerender's limits get
# prerender's own problem+json, naming what is too large; only absurd ones meet gunicorn's.


@pytest.mark.parametrize(
    "request_bytes,status",
    [
        (get("/healthz?pad=" + "a" * 8050), 414),  # over prerender's 8000 bytes, under gunicorn's 8190
        (get("/healthz", "X-Big: " + "a" * 8500), 431),  # over prerender's 8192, under gunicorn's 16380
        (get("/healthz", *(f"X-H{i}: 1" for i in range(150))), 431),  # over prerender's 100, under gunicorn's 200
    ],
)
def test_gunicorn_alone_leaves_size_limits_to_prerender(
    gunicorn_prerender: GunicornPrerender, request_bytes: bytes, status: int
):
    answer = send(gunicorn_prerender.url, request_bytes)
    assert answer.status == status and answer.problem()["status"] == status

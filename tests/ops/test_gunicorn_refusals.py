"""gunicorn alone (`make run`, no nginx in front): what gunicorn refuses before prerender's code runs answers
problem+json too (gunicorn.conf.py, `write_problem`), never gunicorn's HTML page, and never echoes what it
refused beyond a short, JSON-escaped message."""

from __future__ import annotations

import pytest

from .conftest import GunicornPrerender
from .test_edge_errors import get, send

REFUSED_BY_GUNICORN = {
    "a control character in a header value": (get("/healthz", "X-Value: a\x01b"), 400),
    "a control character in the request line": (b"GET /healthz\x01 HTTP/1.1\r\nHost: edge.test\r\n\r\n", 400),
    "both Content-Length and Transfer-Encoding": (
        b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    ),
    "a request line over limit_request_line": (get("/healthz?pad=" + "a" * 9000), 414),
    "a header over limit_request_field_size": (get("/healthz", "X-Big: " + "<b>" * 6000), 431),
    "a transfer coding other than chunked": (
        b"POST /v1/events HTTP/1.1\r\nHost: edge.test\r\nTransfer-Encoding: gzip\r\n\r\n",
        400,
    ),
}


@pytest.mark.parametrize("case", REFUSED_BY_GUNICORN)
def test_gunicorns_own_refusals_are_problem_json(gunicorn_prerender: GunicornPrerender, case: str) -> None:
    request, status = REFUSED_BY_GUNICORN[case]
    answer = send(gunicorn_prerender.url, request)
    assert answer.status == status, (answer.status, answer.body[:200])
    problem = answer.problem()
    assert problem["status"] == status and problem["type"] == "about:blank" and problem["title"]
    assert problem["detail"].startswith("Malformed request") and len(problem["detail"]) <= 220
    assert "<b>" not in problem["detail"]
    assert answer.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.nginx
def test_a_control_character_nginx_lets_through_is_refused_as_problem_json(nginx_before_gunicorn) -> None:
    """nginx passes control characters inside a header value on to gunicorn, which refuses them."""
    answer = send(nginx_before_gunicorn.url, get("/healthz", "X-Value: a\x01b"))
    assert answer.status == 400 and answer.problem()["status"] == 400

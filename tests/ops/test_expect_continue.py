"""`Expect: 100-continue` under gunicorn with gunicorn.conf.py (no nginx in front): the interim `100 Continue`
is written only when the app reads the body (`pre_request`, `ContinueOnFirstRead`), so a request refused on
its head (a Content-Length over prerender's 64 KiB) gets its final answer first, and the client never sends
the body it announced. Read as bytes on the socket: an HTTP client would hide the interim answer. On gevent's
workers (the file's default) and gthread's (GUNICORN_WORKER_CLASS=gthread)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.live import Stack

from .conftest import GunicornPrerender

EVENTS = json.dumps({"events": [{"name": "recipe.show"}]}).encode()


@pytest.fixture(scope="module")
def gthread_prerender(
    coreapi_url: str, stack: Stack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GunicornPrerender]:
    with GunicornPrerender(tmp_path_factory.mktemp("gthread"), coreapi_url, stack, worker_class="gthread") as server:
        yield server


@pytest.fixture(params=["gevent", "gthread"])
def server(request: pytest.FixtureRequest, stack: Stack) -> GunicornPrerender:
    """Each worker class in turn (`stack` named here so the live fixtures get the stack's parameter)."""
    return request.getfixturevalue("gunicorn_prerender" if request.param == "gevent" else "gthread_prerender")


def head_of(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: edge.test", "Expect: 100-continue", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


def read_head(sock: socket.socket) -> bytes:
    """The bytes of the server's next answer head (status line and headers), as they arrive."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def read_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """The status line of the next answer, and its body when it is a final one (Content-Length framed)."""
    data = read_head(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    lengths = [int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length:")]
    if not lengths:
        return lines[0], b""  # an interim answer
    length = lengths[0]
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return lines[0], body


def test_a_body_over_the_limit_is_refused_without_100_continue(server: GunicornPrerender) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head_of("/v1/events", "Content-Type: application/json", "Content-Length: 999999999"))
        status, body = read_answer(sock)
        assert status.startswith(b"HTTP/1.1 413"), status  # not "HTTP/1.1 100 Continue"
        problem = json.loads(body)
        assert problem["status"] == 413 and "65536 bytes" in problem["detail"]
        assert sock.recv(4096) == b""  # closed: the announced body will not be read


def test_a_body_within_the_limit_gets_100_continue_then_its_answer(server: GunicornPrerender) -> None:
    """The client waits for `100 Continue` before sending its body: it comes once the app reads it."""
    body = json.dumps({"contexts": []}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(
            head_of(
                "/v1/recipe-card/multiple",
                "Content-Type: application/json",
                f"Content-Length: {len(body)}",
                "authorization: user_id continue-user",
                "language-id: fr",
                "session-id: continue-session",
            )
        )
        assert read_head(sock) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        status, answer = read_answer(sock)
        assert status.startswith(b"HTTP/1.1 400")  # the body arrived and was validated
        assert "contexts" in json.loads(answer)["errors"]["json"]
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: edge.test\r\n\r\n")  # kept alive after a read body
        assert read_answer(sock)[0].startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/v1/no-such-route", (), b"404"),
        ("/v1/recipe-card", (), b"405"),  # a GET route
        ("/v2/basket/recipes", ("authorization: Bearer not-a-credential", "language-id: fr", "session-id: s"), b"401"),
    ],
    ids=["unknown-route", "wrong-method", "no-credential"],
)
def test_a_request_refused_before_its_body_is_read_gets_no_100_continue(
    server: GunicornPrerender, path: str, headers: tuple[str, ...], status: bytes
) -> None:
    """Routing and the header guard answer before any reader asks for the body (prerender/web/request_limits.py
    holds the body to its Content-Length where it is read, not in a hook before them): the final answer comes
    first."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head_of(path, "Content-Type: application/json", f"Content-Length: {len(EVENTS)}", *headers))
        answer, _ = read_answer(sock)
        assert answer.startswith(b"HTTP/1.1 " + status), answer

"""The gateway's retries, made by urllib3 below requests' adapter: faults come from a loopback server or from
the socket layer, never from `responses`, which replaces the adapter's send and so only replays status
retries (connection errors and timeouts are retried inside urllib3's pool, below it)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
import urllib3.util.connection
from urllib3.exceptions import NewConnectionError

from prerender.gateway import UpstreamHttp, UpstreamStatusError, UpstreamTimeout, UpstreamUnavailable
from prerender.gateway.http import RETRY_PAUSE_SECONDS, UpstreamRetry, upstream_retry
from tests.conftest import closed_port
from tests.unit.guards import RESOURCE, guards

READ_TIMEOUT = 0.3
Action = tuple[Any, ...]


class ScriptedUpstream(ThreadingHTTPServer):
    """A loopback HTTP/1.1 server answering each request with the next action of its script."""

    daemon_threads = True

    def __init__(self, script: list[Action]) -> None:
        super().__init__(("127.0.0.1", 0), ScriptedHandler)
        self.script = list(script)
        self.received: list[str] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_action(self, request_line: str) -> Action:
        """Record a request; the action to answer it with (the script's last one repeats)."""
        with self.lock:
            self.received.append(request_line)
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]


class ScriptedHandler(BaseHTTPRequestHandler):
    """Runs one action: ("status", code, headers), ("slow", seconds: then no answer) or ("drop",)."""

    protocol_version = "HTTP/1.1"
    server: ScriptedUpstream

    def handle_one_request(self) -> None:
        """Answer any verb the same way."""
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline or not self.parse_request():
            self.close_connection = True
            return
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        action = self.server.next_action(f"{self.command} {self.path}")
        if action[0] == "drop":  # no answer at all: the client sees the connection closed
            self.close_connection = True
            return
        if action[0] == "slow":  # answers after the client has given up
            time.sleep(action[1])
            self.close_connection = True
            return
        status, headers = action[1], action[2]
        body = json.dumps({"status": status} if status >= 400 else {"id": "1"}).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


Serve = Callable[[list[Action]], ScriptedUpstream]


@pytest.fixture
def serve() -> Iterator[Serve]:
    servers: list[ScriptedUpstream] = []

    def start(script: list[Action]) -> ScriptedUpstream:
        server = ScriptedUpstream(script)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def upstream(base_url: str, *, retries: int = 1) -> UpstreamHttp:
    return UpstreamHttp(
        base_url=base_url,
        connect_timeout=0.2,
        read_timeout=READ_TIMEOUT,
        retries=retries,
        pool_size=2,
        guards=guards(),
    )


def call(http: UpstreamHttp, method: str = "GET", *, idempotent: bool = True) -> Any:
    return http.request(
        method,
        "/thing",
        resource=RESOURCE,
        name="thing",
        headers={},
        json={} if method != "GET" else None,
        idempotent=idempotent,
    )


OK: Action = ("status", 200, {})


@pytest.mark.parametrize("status", [502, 503, 504])
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE"])
def test_idempotent_calls_of_any_verb_are_retried_on_gateway_errors(serve: Serve, status: int, method: str) -> None:
    server = serve([("status", status, {}), OK])
    assert call(upstream(server.url), method) == {"id": "1"}
    assert server.received == [f"{method} /thing"] * 2


@pytest.mark.parametrize("method", ["GET", "POST", "PATCH"])
def test_non_idempotent_calls_are_never_retried(serve: Serve, method: str) -> None:
    server = serve([("status", 503, {}), OK])
    with pytest.raises(UpstreamStatusError) as raised:
        call(upstream(server.url), method, idempotent=False)
    assert raised.value.status == 503 and len(server.received) == 1


def test_the_last_gateway_error_is_decoded_once_retries_are_spent(serve: Serve) -> None:
    server = serve([("status", 502, {})])
    with pytest.raises(UpstreamStatusError) as raised:
        call(upstream(server.url, retries=2))
    assert (raised.value.status, raised.value.problem) == (502, {"status": 502})
    assert len(server.received) == 3


@pytest.mark.parametrize("status", [500, 429, 404])
def test_other_statuses_are_answers_not_retried(serve: Serve, status: int) -> None:
    server = serve([("status", status, {}), OK])
    with pytest.raises(UpstreamStatusError):
        call(upstream(server.url))
    assert len(server.received) == 1


def test_retry_after_is_not_waited_for(serve: Serve) -> None:
    server = serve([("status", 503, {"Retry-After": "30"}), OK])
    started = time.perf_counter()
    assert call(upstream(server.url)) == {"id": "1"}
    assert time.perf_counter() - started < 5 and len(server.received) == 2


def test_read_timeouts_are_never_retried(serve: Serve) -> None:
    server = serve([("slow", READ_TIMEOUT * 3)])
    with pytest.raises(UpstreamTimeout, match="read timeout") as raised:
        call(upstream(server.url, retries=3))
    assert isinstance(raised.value.__cause__, requests.exceptions.ReadTimeout)
    assert len(server.received) == 1


def test_a_connection_closed_without_answer_is_retried(serve: Serve) -> None:
    server = serve([("drop",), OK])
    assert call(upstream(server.url)) == {"id": "1"}
    assert len(server.received) == 2


def test_a_connection_closed_without_answer_is_not_retried_for_a_write(serve: Serve) -> None:
    server = serve([("drop",), OK])
    with pytest.raises(UpstreamUnavailable) as raised:
        call(upstream(server.url), "POST", idempotent=False)
    assert isinstance(raised.value.__cause__, requests.exceptions.ConnectionError)
    assert len(server.received) == 1


class Connects:
    """Stands in for urllib3's create_connection: counts the attempts; the first `failures` of them raise
    `failure` (all of them when None), the others connect for real."""

    def __init__(self, failure: OSError | None = None, *, failures: int | None = None) -> None:
        self.failure = failure
        self.failures = failures
        self.attempts = 0
        self.real = urllib3.util.connection.create_connection

    def __call__(self, *args: Any, **kwargs: Any) -> socket.socket:
        self.attempts += 1
        if self.failure is not None and (self.failures is None or self.attempts <= self.failures):
            raise self.failure
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("idempotent, attempts", [(True, 3), (False, 1)])
def test_refused_connections_become_upstream_unavailable(
    monkeypatch: pytest.MonkeyPatch, idempotent: bool, attempts: int
) -> None:
    connects = Connects()  # a real refusal: nothing listens on the port
    monkeypatch.setattr(urllib3.util.connection, "create_connection", connects)
    with pytest.raises(UpstreamUnavailable) as raised:
        call(upstream(f"http://127.0.0.1:{closed_port()}", retries=2), "POST", idempotent=idempotent)
    assert type(raised.value.__cause__) is requests.exceptions.ConnectionError
    assert connects.attempts == attempts


@pytest.mark.parametrize("idempotent, attempts", [(True, 3), (False, 1)])
def test_connect_timeouts_become_upstream_timeouts(
    monkeypatch: pytest.MonkeyPatch, idempotent: bool, attempts: int
) -> None:
    connects = Connects(TimeoutError("timed out"))
    monkeypatch.setattr(urllib3.util.connection, "create_connection", connects)
    with pytest.raises(UpstreamTimeout, match="connect timeout") as raised:
        call(upstream(f"http://127.0.0.1:{closed_port()}", retries=2), idempotent=idempotent)
    assert isinstance(raised.value.__cause__, requests.exceptions.ConnectTimeout)
    assert connects.attempts == attempts


def test_a_connect_timeout_is_retried_on_a_new_connection(monkeypatch: pytest.MonkeyPatch, serve: Serve) -> None:
    server = serve([OK])
    connects = Connects(TimeoutError("timed out"), failures=1)
    monkeypatch.setattr(urllib3.util.connection, "create_connection", connects)
    assert call(upstream(server.url)) == {"id": "1"}
    assert connects.attempts == 2 and len(server.received) == 1


def test_retries_zero_means_one_attempt(serve: Serve) -> None:
    server = serve([("status", 503, {}), OK])
    with pytest.raises(UpstreamStatusError):
        call(upstream(server.url, retries=0))
    assert len(server.received) == 1


def test_every_retry_waits_the_same_pause() -> None:
    retry = upstream_retry(3)
    assert isinstance(retry, UpstreamRetry) and retry.allowed_methods is None and not retry.raise_on_status
    for _ in range(3):
        retry = retry.increment("GET", "/x", error=NewConnectionError(None, "refused"))
        assert retry.get_backoff_time() == RETRY_PAUSE_SECONDS


def test_each_call_borrows_a_session_of_its_idempotency() -> None:
    http = upstream("http://127.0.0.1:1")
    with http.sessions(idempotent=True).borrow() as retrying, http.sessions(idempotent=False).borrow() as single:
        assert retrying is not single
    assert retrying.get_adapter("http://x").max_retries.total == 1
    assert single.get_adapter("http://x").max_retries.total == 0
    assert retrying.trust_env is False and single.trust_env is False
    with http.sessions(idempotent=True).borrow() as again:
        assert again is retrying  # given back, then lent to the next call

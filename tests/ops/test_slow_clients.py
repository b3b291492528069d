"""Slow clients (the slowloris probe of the issue): connections that send their headers or their body a byte a
second and never finish must not keep /healthz or a card from answering. Against prerender as `make run`
serves it (gunicorn with gunicorn.conf.py), and through nginx with deploy/nginx/prerender.conf in front of it
(docs/operations.md, "Slow clients").

The bound is about correctness, not speed: each request answers at all within ANSWER_SECONDS while the slow
connections stay open. With a pool of threads each reading one request (gunicorn's gthread workers, 2 x 8),
16 slow connections were enough to leave every request waiting until they gave up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import requests

from .conftest import GunicornPrerender, NginxFront
from .slow_clients import CARD, DEMO_HEADERS, SlowClients

ANSWER_SECONDS = 5
# Held open while the checks run; a worker takes a connection as soon as its first bytes arrive.
SETTLE_SECONDS = 1.5
CHECKS = 3
GUNICORN_SLOW = 64
NGINX_SLOW = 200


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def assert_still_answers(url: str, slow: SlowClients, server_logs: Callable[[], str]) -> None:
    """/healthz and README.md's card answer within ANSWER_SECONDS while `slow` is open, each a few times on
    new connections: the kernel hands a new connection to any of gunicorn's workers, and the slow ones may
    have filled one worker and not the other. An empty card is reported with the end of `server_logs()`,
    which says why prerender degraded it."""
    slow_connections = f"{len(slow.sockets)} slow-{slow.kind} connections open"
    for path, hdrs, need_body in [("/healthz", {}, False), (CARD, DEMO_HEADERS, True)] * CHECKS:
        try:
            response = requests.get(url + path, headers=hdrs, timeout=ANSWER_SECONDS)
        except requests.RequestException as error:
            pytest.fail(f"{path} did not answer within {ANSWER_SECONDS} s with {slow_connections}: {error!r}")
        assert response.status_code == 200, (path, response.status_code, response.text[:200])
        assert not need_body or response.content.strip(), f"{path}: an empty card (upstream failure): {server_logs()}"


def open_and_check(url: str, count: int, kind: str, server_logs: Callable[[], str] = lambda: "") -> None:
    with SlowClients(address(url), count, kind) as slow:
        time.sleep(SETTLE_SECONDS)
        assert len(slow.sockets) == count, "the server closed slow connections before the check"
        assert_still_answers(url, slow, server_logs)


@pytest.mark.parametrize("kind", ["headers", "body"])
def test_gunicorn_alone_answers_with_64_slow_clients(gunicorn_prerender: GunicornPrerender, kind: str):
    open_and_check(gunicorn_prerender.url, GUNICORN_SLOW, kind, gunicorn_prerender.logs)


@pytest.mark.nginx
@pytest.mark.parametrize("kind", ["headers", "body"])
def test_nginx_in_front_answers_with_200_slow_clients(nginx_before_gunicorn: NginxFront, kind: str):
    """The documented deployment."""
    open_and_check(nginx_before_gunicorn.url, NGINX_SLOW, kind)


@pytest.mark.nginx
@pytest.mark.parametrize("kind", ["headers", "body"])
def test_nginx_alone_keeps_200_slow_clients_from_thread_workers(nginx_before_gthread: NginxFront, kind: str):
    """nginx in front of gthread workers, which 16 slow clients reaching them would fill: nginx's own reading
    of heads and bodies is what protects them (proxy_request_buffering)."""
    open_and_check(nginx_before_gthread.url, NGINX_SLOW, kind)

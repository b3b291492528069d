"""The demo shop (examples/shop) through its Flask test client, against the live seeded stack of
tests/live.py (`coreapi_url`, `prerender_url`: so on both stacks, sqlite-simplecache and postgresql-redis),
or against closed ports to play a service that is down, or behind a proxy that fails some of prerender's
routes (`faulty`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator

import pytest
import requests
from bs4 import BeautifulSoup
from flask import Flask, Response, request
from flask.testing import FlaskClient

from examples.shop import create_app
from tests.conftest import closed_port
from tests.live import LiveServer


def shop_config(**overrides: object) -> dict:
    # Generous timeouts: the live servers of the test session are single processes.
    return {
        "TESTING": True,
        "PRERENDER_READ_TIMEOUT": 10.0,
        "COREAPI_READ_TIMEOUT": 10.0,
        "PRERENDER_PAGE_BUDGET": 30.0,
        **overrides,
    }


@pytest.fixture
def make_shop(coreapi_url: str, prerender_url: str) -> Callable[..., Flask]:
    """A shop on the live stack; keyword arguments override its configuration."""

    def make(**overrides: object) -> Flask:
        return create_app(shop_config(**{"PRERENDER_URL": prerender_url, "COREAPI_URL": coreapi_url, **overrides}))

    return make


@pytest.fixture
def shop_client(make_shop: Callable[..., Flask]) -> FlaskClient:
    return make_shop().test_client()


@pytest.fixture
def unreachable_url() -> str:
    """A loopback address that refuses connections."""
    return f"http://127.0.0.1:{closed_port()}"


def soup_of(response) -> BeautifulSoup:
    assert response.status_code == 200, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "html5lib")


class FaultyPrerender:
    """A proxy in front of the live prerender that fails the paths of `faults` (path -> a view answering the
    fault); everything else goes to prerender as it is. `release` ends the slow faults' wait."""

    def __init__(self, prerender_url: str, faults: dict[str, Callable[[], Response]]) -> None:
        self.prerender_url = prerender_url
        self.faults = faults
        self.release = threading.Event()
        app = Flask(__name__)
        app.add_url_rule("/<path:path>", "proxy", self._answer, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
        self.server = LiveServer(app)

    def _answer(self, path: str) -> Response:
        fault = self.faults.get(f"/{path}")
        if fault is not None:
            return fault()
        upstream = requests.request(
            request.method,
            f"{self.prerender_url}/{path}",
            params=request.args,
            data=request.get_data(),
            headers={k: v for k, v in request.headers if k.lower() not in ("host", "content-length")},
            timeout=30,
        )
        response = Response(upstream.content, status=upstream.status_code)
        for name in ("Content-Type", "Cache-Control", "ETag"):
            if name in upstream.headers:
                response.headers[name] = upstream.headers[name]
        return response

    def slow(self) -> Response:
        """An answer that comes too late (once `release` is set, or after 10 s)."""
        self.release.wait(timeout=10)
        return Response("<p>too late</p>", mimetype="text/html")

    def __enter__(self) -> FaultyPrerender:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.__exit__(*exc)

    @property
    def url(self) -> str:
        return self.server.url


def problem_answer(status: int, errors: dict | None = None) -> Callable[[], Response]:
    def answer() -> Response:
        body = {"type": "about:blank", "title": "Failure", "status": status, "detail": "Injected."}
        if errors:
            body["errors"] = errors
        return Response(json.dumps(body), status=status, mimetype="application/problem+json")

    return answer


@pytest.fixture
def faulty(prerender_url: str) -> Iterator[Callable[..., FaultyPrerender]]:
    """Proxies in front of the live prerender, failing the paths given (path -> fault), stopped after the test."""
    proxies: list[FaultyPrerender] = []

    def make(faults: dict[str, Callable[[], Response]] | None = None) -> FaultyPrerender:
        proxy = FaultyPrerender(prerender_url, dict(faults or {}))
        proxies.append(proxy.__enter__())
        return proxy

    yield make
    for proxy in proxies:
        proxy.__exit__(None, None, None)

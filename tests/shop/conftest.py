"""The demo shop (examples/shop) through its Flask test client, against the live seeded stack of
tests/live.py (`coreapi_url`, `prerender_url`: so on both stacks, sqlite-simplecache and postgresql-redis),
or against closed ports to play a service that is down, or behind a proxy that fails some of prerender's
routes (`faulty`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from bs4 import BeautifulSoup
from flask import Flask, Response
from flask.testing import FlaskClient

from examples.delivery import static_url_path
from examples.shop import STATIC_FOLDER, create_app
from tests.conftest import closed_port
from tests.demo_sites import SHOP_SECRET_KEY
from tests.faulty_upstream import FaultyPrerender, status
from tests.live import use_live_servers


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


def shop_config(**overrides: object) -> dict:
    # Generous timeouts: the live servers of the test session are single processes.
    return {
        "TESTING": True,
        "SECRET_KEY": SHOP_SECRET_KEY,
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


def static_url(filename: str) -> str:
    """Where the shop serves one of its static files: under its folder's version (examples/delivery.py)."""
    return f"{static_url_path(STATIC_FOLDER)}/{filename}"


def soup_of(response) -> BeautifulSoup:
    assert response.status_code == 200, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "html5lib")


# A fault: prerender's problem answer of a status (tests that also name a parameter `status` import it so).
problem_answer = status


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

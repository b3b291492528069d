"""The demo recipe blog (examples/publisher) through its Flask test client: against a prerender faked with
`responses` (fault injection: the unit tests), or against the live seeded stack of tests/live.py (`prerender_url`,
so on both stacks), or against a closed port to play a prerender that is down."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from flask import Flask

from examples.delivery import static_url_path
from examples.publisher import STATIC_FOLDER, create_app
from tests.conftest import closed_port
from tests.demo_sites import PUBLISHER_SECRET_KEY
from tests.live import use_live_servers

# The prerender the unit tests fake with `responses` (nothing listens there).
FAKE_PRERENDER = "http://prerender.test"


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


def publisher_config(**overrides: object) -> dict:
    # Generous timeouts: the live servers of the test session are single processes.
    return {
        "TESTING": True,
        "SECRET_KEY": PUBLISHER_SECRET_KEY,
        "PRERENDER_READ_TIMEOUT": 10.0,
        "PRERENDER_PAGE_BUDGET": 30.0,
        **overrides,
    }


@pytest.fixture
def make_blog() -> Callable[..., Flask]:
    """A blog on the faked prerender (`responses`); keyword arguments override its configuration."""

    def make(**overrides: object) -> Flask:
        return create_app(publisher_config(**{"PRERENDER_URL": FAKE_PRERENDER, **overrides}))

    return make


@pytest.fixture
def make_live_blog(prerender_url: str) -> Callable[..., Flask]:
    """A blog on the live stack's prerender; keyword arguments override its configuration."""

    def make(**overrides: object) -> Flask:
        return create_app(publisher_config(**{"PRERENDER_URL": prerender_url, **overrides}))

    return make


@pytest.fixture
def unreachable_url() -> str:
    """A loopback address that refuses connections."""
    return f"http://127.0.0.1:{closed_port()}"


def static_url(filename: str) -> str:
    """Where the blog serves one of its static files: under its folder's version (examples/delivery.py)."""
    return f"{static_url_path(STATIC_FOLDER)}/{filename}"


def soup_of(response, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "html5lib")

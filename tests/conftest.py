"""Fixtures shared by every level: a prerender app built from create_app with a test configuration."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from prerender import create_app
from prerender.web import credentials, shopper
from tests.clock import WallClock

# The live stacks' marker (tests/stacks.py) and Chromium (tests/chromium.py) for every folder; the live servers
# themselves (tests/live.py) only for the folders whose conftest asks for them (`use_live_servers`).
pytest_plugins = ["tests.stacks", "tests.chromium"]

TEST_SECRET_KEY = "test-signing-key-" + "k" * 32
HEADERS = {"authorization": "user_id u-1", "language-id": "fr", "session-id": "session-1"}


def listed(response, name: str) -> set[str]:
    """The values of a list header over all its field lines, lower-cased (prerender's Vary and flask-cors's
    `Vary: Origin` are two lines, which HTTP reads as one list). A Flask test response or a requests one (whose
    lines requests has already joined)."""
    lines = response.headers.getlist(name) if hasattr(response.headers, "getlist") else [response.headers.get(name, "")]
    return {part.strip().lower() for line in lines for part in line.split(",") if part.strip()}


def allowed(response) -> set[str]:
    """The methods of an answer's `Allow` (werkzeug writes them in no fixed order)."""
    return {method.upper() for method in listed(response, "Allow")}


def closed_port() -> int:
    """A loopback port nothing listens on: an upstream that refuses connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def app_config() -> dict:
    """The test configuration; integration tests override UPSTREAM_URL with a live coreapi."""
    return {
        "TESTING": True,
        "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}",
        "UPSTREAM_RETRIES": 0,
        "I18N_OVERRIDES_DIR": None,
        "SECRET_KEYS": [TEST_SECRET_KEY],
    }


@pytest.fixture
def one_credential_step(monkeypatch: pytest.MonkeyPatch) -> WallClock:
    """The shopper's credential of one time step for the whole test: the clock its stamp and its element read
    (prerender/web/credentials.py, prerender/web/shopper.py) stands still. A test that compares two private
    answers (their bodies, or an ETag and its 304) needs it: two requests on either side of a step's end carry
    two credentials, as they should, and the comparison would fail once in a while. It holds the prerender apps
    of this process (the test's own, and tests/live.py's threads), not a gunicorn started as another process."""
    clock = WallClock()
    monkeypatch.setattr(credentials, "time", clock)
    monkeypatch.setattr(shopper, "time", clock)
    return clock


@pytest.fixture
def app(app_config: dict) -> Iterator[Flask]:
    yield create_app(app_config)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()

"""Live servers for integration tests (a pytest plugin loaded by tests/conftest.py).

`coreapi_url`: the real coreapi, seeded on a fresh SQLite file, served on a free loopback port.
`prerender_url`: prerender pointed at it, also on a free loopback port. Both last the whole session;
tests must not depend on each other's writes (use distinct user ids).
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

import coreapi
import prerender


class LiveServer:
    """A WSGI app served by werkzeug in a daemon thread on 127.0.0.1:<free port>."""

    def __init__(self, app: Flask) -> None:
        self.server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)


def seeded_coreapi(database_url: str) -> Flask:
    """A coreapi app on that database, tables created and the demo catalog loaded."""
    app = coreapi.create_app({"TESTING": True, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING"})
    result = app.test_cli_runner().invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    return app


@pytest.fixture(scope="session")
def coreapi_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = Path(tmp_path_factory.mktemp("coreapi")) / "coreapi.sqlite"
    with LiveServer(seeded_coreapi(f"sqlite:///{database}")) as server:
        yield server.url


@pytest.fixture(scope="session")
def prerender_url(coreapi_url: str) -> Iterator[str]:
    app = prerender.create_app({"UPSTREAM_URL": coreapi_url, "LOG_LEVEL": "WARNING"})
    with LiveServer(app) as server:
        yield server.url

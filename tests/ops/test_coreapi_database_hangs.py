"""coreapi under gunicorn's shipped worker class (gunicorn.conf.py: gevent), on PostgreSQL behind tests/tcp_proxy.py's
`HangingProxy`: while the database takes connections and never answers, requests blocked on it in several greenlets
of one worker are cut after ``COREAPI_DATABASE_HOLD_SECONDS`` (coreapi/services/connection_watchdog.py: its thread
is a greenlet there, and psycopg's waits are gevent's) and answer 503; once it answers again, 200, no restart.
tests/coreapi/test_database_hangs.py checks the same under threads, with reads, writes and their retries."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from sqlalchemy.engine import make_url

from tests.databases import POSTGRES_URL, PostgresSchemas, Unreachable
from tests.tcp_proxy import HangingProxy

from .conftest import ChildServer, free_port, health_answers_200, load_devstack

CONCURRENT = 4  # requests on the hung database at once, in one worker
# Roomy for the requests before and after the hang on a loaded machine; each answers in about twice this while it
# hangs (a pooled connection's ping cut, then a new connection's connect_timeout, 2 s).
HOLD_SECONDS = 2.0
WAIT_SECONDS = 20  # a bound on each answer while the database hangs (it was the hang's length before)


class GunicornCoreapi(ChildServer):
    """coreapi as `make run` serves it (tools/devstack.py, gunicorn.conf.py), one worker, on `database_url`."""

    name = "coreapi"

    def __init__(self, prefix: Path, database_url: str) -> None:
        self.port = free_port()
        self.command = load_devstack().Service("coreapi", self.port, "coreapi.wsgi:app", "/healthz", {}).command()
        self.env = {
            **{name: value for name, value in os.environ.items() if not name.startswith(("GUNICORN_", "COREAPI_"))},
            "COREAPI_DATABASE_URL": database_url,
            "COREAPI_DATABASE_HOLD_SECONDS": str(HOLD_SECONDS),
            # No write here; a hold must exceed what a write may take (coreapi/config.py, check_hold).
            "COREAPI_WRITE_DEADLINE_SECONDS": "1.0",
            "COREAPI_IDEMPOTENCY_WAIT_SECONDS": "1.0",
            "COREAPI_SERVICE_KEYS": '["ops-test-service-key-' + "k" * 32 + '"]',
            "COREAPI_LOG_PSEUDONYM_KEY": "ops-test-pseudonym-key",
            "GUNICORN_WORKERS": "1",
        }
        self.cwd = Path(__file__).resolve().parents[2]
        self.log = prefix / "coreapi.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ready(self) -> bool:
        return health_answers_200(self.port)


@pytest.fixture
def proxy() -> Iterator[HangingProxy]:
    try:
        PostgresSchemas(POSTGRES_URL).close()
    except Unreachable as error:
        pytest.skip(str(error))
    url = make_url(POSTGRES_URL)
    with HangingProxy((url.host or "127.0.0.1", url.port or 5432)) as proxy:
        yield proxy


def health(url: str) -> int:
    return requests.get(f"{url}/healthz", timeout=WAIT_SECONDS).status_code


def test_requests_on_a_hung_database_answer_503_under_gevent_then_200(proxy: HangingProxy, tmp_path: Path) -> None:
    through_proxy = make_url(POSTGRES_URL).set(host="127.0.0.1", port=proxy.port)
    with GunicornCoreapi(tmp_path, through_proxy.render_as_string(hide_password=False)) as server:
        with ThreadPoolExecutor(CONCURRENT) as pool:
            assert list(pool.map(health, [server.url] * CONCURRENT)) == [200] * CONCURRENT  # pooled connections
            proxy.hang()
            try:
                assert list(pool.map(health, [server.url] * CONCURRENT)) == [503] * CONCURRENT
            finally:
                proxy.resume()
        assert health(server.url) == 200
    assert re.search(rf"cut the database connection request \S+ held over {HOLD_SECONDS:.1f} s", server.logs())

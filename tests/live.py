"""Live servers for the tests that call prerender and coreapi over HTTP: a pytest plugin that the conftest of each
folder using them registers (`use_live_servers`: tests/integration, tests/shop, tests/browser, tests/ops,
tests/customers, tests/publisher), so that tests/unit and tests/coreapi never import it (the unit tests run
with prerender's dependencies alone; tests/unit/test_isolation.py checks it).

Every test that uses these fixtures runs twice, once per *stack* (the session fixture `stack`):

- ``sqlite-simplecache``, the default configuration: coreapi on a fresh SQLite file, prerender with its
  default in-process cache (``DefaultConfig.CACHE_TYPE`` of prerender/config.py, SimpleCache or its bounded
  replacement: the id names the kind, the product's default decides the class). Needs nothing but Python;
  always runs.
- ``postgresql-redis``, the scaled configuration: coreapi on PostgreSQL (a schema of this session, through
  ``search_path``; ``COREAPI_TEST_POSTGRES_URL``, default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``)
  and every prerender cache in Redis (``CACHE_REDIS_URL``; ``PRERENDER_TEST_REDIS_URL``, default
  ``redis://127.0.0.1:6379/15``), under a key prefix of this session. Skipped, with the reason, where either
  server does not answer; marked ``postgres`` (``-m "not postgres"`` leaves it out).

pytest orders the tests by stack, so each stack is set up once (`--setup-show`: one SETUP of each). At its
teardown the schema is dropped and the session's Redis keys deleted (tests/databases.py): parallel runs and
other suites on the same servers never collide.

Fixtures: `stack` (the configuration; `stack.cache_config()` is the CACHE_* of a new, empty prerender
cache: an in-process one, or a Redis sub-prefix of its own, so each app starts cold on both stacks;
`stack.environ()` is the same for a subprocess, whose workers then share it), `coreapi_url` (the real
coreapi, seeded, on a free loopback port) and `prerender_url` (prerender pointed at it, with a cache of its
own). All last the stack's whole session; tests must not depend on each other's writes (use distinct user
ids).

What runs where:
- tests/integration: on both stacks (the in-process `app` of tests/integration/conftest.py gets the stack's
  cache; the gunicorn metrics test gives its two workers one shared Redis prefix; test_health.py checks that
  each stack is what its id says). Tests that build their own cache configuration (Redis down; two apps on
  one Redis prefix, through the `redis_namespace` fixture) run on both too: only coreapi differs. Pinned to
  sqlite-simplecache: test_cors_matrix.py (CORS headers do not depend on the backends).
- tests/shop: on both (the shop is a client of the live servers; a few seconds per stack).
- tests/browser: on ``sqlite-simplecache`` only (tests/browser/conftest.py): each test drives a real
  Chromium (about 45 s for the suite, the slowest of `make test`) for client-side behaviour that does not
  depend on the backends, which tests/integration and tests/shop cover on both.
- tests/ops: on ``sqlite-simplecache`` only (tests/ops/conftest.py: nginx in front does not depend on the
  backends).
- tests/unit and tests/coreapi do not use these fixtures (tests/coreapi has its own SQLite/PostgreSQL pair).

`@pytest.mark.only_stack("<id>", reason="...")` pins a test to one stack: its other variants are deselected
(tests/stacks.py, a plugin of tests/conftest.py, which needs nothing of coreapi).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from sqlalchemy import text
from werkzeug.serving import BaseWSGIServer, make_server

import coreapi
import prerender
from coreapi.extensions import db
from prerender.config import DefaultConfig
from tests.conftest import closed_port
from tests.databases import PostgresSchemas, RedisNamespace, Unreachable
from tests.stacks import DEFAULT_STACK, SCALED_STACK

# The live prerender's upstream budgets and read timeout: roomy, so that a loaded CI machine never turns a test of
# something else into an empty fragment or a 504 (the live coreapi serves in a pytest worker's interpreter, beside
# the tests: once, under the whole suite's load, it took more than the default 3 s to answer a read). The budget
# and the timeout are tested with their own small values (tests/unit/test_upstream_budget.py, the gateway's tests)
# and measured at their defaults by `make bench`.
TEST_BUDGETS = {"UPSTREAM_FRAGMENT_BUDGET": 10.0, "UPSTREAM_JSON_BUDGET": 10.0, "UPSTREAM_READ_TIMEOUT": 10.0}
# The live coreapi's time for a write and for a request's hold of a connection, roomy for the same reason
# (tests/coreapi/test_write_deadline.py and test_database_hangs.py test them).
ROOMY_COREAPI_LIMITS = {"WRITE_DEADLINE_SECONDS": 30.0, "DATABASE_HOLD_SECONDS": 60.0}

ROOT = Path(__file__).resolve().parent.parent


class LiveServer:
    """A WSGI app served by werkzeug in a daemon thread on 127.0.0.1:<port> (a free one unless given)."""

    def __init__(self, app: Flask, port: int = 0) -> None:
        self.server: BaseWSGIServer = make_server("127.0.0.1", port, app, threaded=True)
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


def seeded_coreapi(database_url: str, **config: Any) -> Flask:
    """A coreapi app on that database (config: e.g. SQLALCHEMY_ENGINE_OPTIONS), migrated and seeded."""
    app = coreapi.create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING", **ROOMY_COREAPI_LIMITS, **config}
    )
    result = app.test_cli_runner().invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    return app


# A catalog of thousands of recipes more than the seed's: more than the catalog's 100 pages of 20 list
# (prerender/schemas/catalog.py), and the planner panel's 50 of 6.
CROWD_RECIPES = 2050
_FIRST_CROWD_ID = 100_000
# Copies of a seed recipe with its ingredients (the lists at a store show a recipe whose primary ingredient is
# sold there), named "Gratin <n>", in statements SQLite and PostgreSQL both run.
_COPY_RECIPES = text(
    """
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :count)
    INSERT INTO recipes (id, external_id, title, description, type, difficulty, preparation_time, cooking_time,
                         guests, search_text)
    SELECT :first + i, 'crowd-' || CAST(i AS TEXT), 'Gratin ' || CAST(i AS TEXT), '', 'main-dish', 1, 10, 20, 4,
           'gratin ' || CAST(i AS TEXT)
    FROM n
    """
)
_COPY_INGREDIENTS = text(
    """
    INSERT INTO recipe_ingredients (recipe_id, ingredient_id, position, quantity, is_primary, display_unit)
    SELECT copy.id, used.ingredient_id, used.position, used.quantity, used.is_primary, used.display_unit
    FROM recipes AS copy JOIN recipe_ingredients AS used ON used.recipe_id = 1
    WHERE copy.id > :first
    """
)


@contextlib.contextmanager
def crowded_coreapi(stack: Stack) -> Iterator[str]:
    """A live coreapi (its URL) whose catalog holds CROWD_RECIPES main dishes more than the seed's."""
    database = stack.database()
    app = seeded_coreapi(database.pop("DATABASE_URL"), **database)
    with app.app_context():
        db.session.execute(_COPY_RECIPES, {"count": CROWD_RECIPES, "first": _FIRST_CROWD_ID})
        db.session.execute(_COPY_INGREDIENTS, {"first": _FIRST_CROWD_ID})
        db.session.commit()
        # The planner's statistics, as a database's own maintenance keeps them: without, PostgreSQL plans the
        # completion filter for the seed's few rows and takes seconds over the copies (a budget's 504). This
        # database's tables only (found through its search_path): a bare ANALYZE locks every table of every
        # schema on the server at once, the parallel workers' and other suites' too, and ran out of shared memory.
        for table in db.metadata.sorted_tables:
            db.session.execute(text(f'ANALYZE "{table.name}"'))
        db.session.commit()
    with LiveServer(app) as server:
        yield server.url
    with app.app_context():
        db.engine.dispose()  # before the stack drops the schema


class Stack:
    """One configuration of the live services: coreapi's database and prerender's caches."""

    name: str

    def database(self) -> dict[str, Any]:
        """coreapi's configuration of a new, empty database (DATABASE_URL and any engine options)."""
        raise NotImplementedError

    def cache_config(self, name: str | None = None) -> dict[str, Any]:
        """prerender's CACHE_* configuration of a new, empty cache."""
        raise NotImplementedError

    def environ(self, name: str | None = None) -> dict[str, str]:
        """The same, as PRERENDER_* environment variables for a prerender subprocess (one cache for all its
        workers)."""
        return {f"PRERENDER_{key}": str(value) for key, value in self.cache_config(name).items()}

    def close(self) -> None:
        """Drop what the stack created on shared servers."""


class SqliteSimpleCache(Stack):
    name = DEFAULT_STACK

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._databases = 0

    def database(self) -> dict[str, Any]:
        self._databases += 1
        return {"DATABASE_URL": f"sqlite:///{self.directory / f'coreapi-{self._databases}.sqlite'}"}

    def cache_config(self, name: str | None = None) -> dict[str, Any]:
        # The default in-process cache; no URL: a PRERENDER_CACHE_REDIS_URL of the developer's shell must not
        # switch it to Redis.
        return {"CACHE_TYPE": DefaultConfig.CACHE_TYPE, "CACHE_REDIS_URL": None}

    def environ(self, name: str | None = None) -> dict[str, str]:
        # One in-process cache per worker; an empty URL for the same reason as above.
        return {"PRERENDER_CACHE_TYPE": DefaultConfig.CACHE_TYPE, "PRERENDER_CACHE_REDIS_URL": ""}


class PostgresqlRedis(Stack):
    name = SCALED_STACK

    def __init__(self, postgres: PostgresSchemas, redis: RedisNamespace) -> None:
        self.postgres = postgres
        self.redis = redis

    def database(self) -> dict[str, Any]:
        return self.postgres.new_database()

    def cache_config(self, name: str | None = None) -> dict[str, Any]:
        return self.redis.cache_config(name)

    def close(self) -> None:
        try:
            self.redis.close()
        finally:
            self.postgres.close()


def open_scaled_stack() -> PostgresqlRedis:
    """Both servers, or a skip saying which one does not answer (nothing is left open)."""
    try:
        postgres = PostgresSchemas(prefix="live_test_")
    except Unreachable as error:
        pytest.skip(f"{SCALED_STACK}: {error}")
    try:
        redis = RedisNamespace()
    except Unreachable as error:
        postgres.close()
        pytest.skip(f"{SCALED_STACK}: {error}")
    return PostgresqlRedis(postgres, redis)


@contextlib.contextmanager
def running_prerender(env: dict[str, str]) -> Iterator[str]:
    """prerender under gunicorn (gunicorn.conf.py, `make run`'s command) on a free loopback port, with `env`
    as its environment; its URL once a worker answers /healthz, stopped on exit."""
    port = closed_port()
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "--config",
            "gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "wsgi:app",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        # The socket is bound before a worker has booted: until one answers, connections are refused or
        # wait in the backlog (a read timeout), so both mean "not yet".
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(f"{url}/healthz", timeout=1).raise_for_status()
                break
            except requests.RequestException:
                assert process.poll() is None, f"gunicorn exited with {process.returncode}"
                assert time.monotonic() < deadline, "gunicorn did not answer /healthz within 30s"
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def use_live_servers(config: pytest.Config) -> None:
    """Gives this module's fixtures to the tests of the folder whose conftest calls this from its
    `pytest_configure` (registered once, as the plugin "tests.live"; the root conftest does not load it, so that
    the folders that need no live server never import coreapi)."""
    module = sys.modules[__name__]
    if not config.pluginmanager.is_registered(module):
        config.pluginmanager.register(module, name="tests.live")


@pytest.fixture(scope="session", params=[DEFAULT_STACK, pytest.param(SCALED_STACK, marks=pytest.mark.postgres)])
def stack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The configuration the live fixtures run on (see the module docstring)."""
    if request.param == DEFAULT_STACK:
        stack: Stack = SqliteSimpleCache(tmp_path_factory.mktemp("coreapi"))
    else:
        stack = open_scaled_stack()
    try:
        yield stack
    finally:
        stack.close()


@pytest.fixture(scope="session")
def redis_namespace() -> Iterator[RedisNamespace]:
    """A Redis prefix of this session, whatever the stack (tests of the Redis cache itself); skipped when
    Redis does not answer."""
    try:
        namespace = RedisNamespace()
    except Unreachable as error:
        pytest.skip(str(error))
    yield namespace
    namespace.close()


@pytest.fixture(scope="session")
def coreapi_url(stack: Stack) -> Iterator[str]:
    database = stack.database()
    app = seeded_coreapi(database.pop("DATABASE_URL"), **database)
    with LiveServer(app) as server:
        yield server.url
    with app.app_context():
        db.engine.dispose()  # before the stack drops the schema


@pytest.fixture(scope="session")
def prerender_url(stack: Stack, coreapi_url: str) -> Iterator[str]:
    app = prerender.create_app(
        {"UPSTREAM_URL": coreapi_url, "LOG_LEVEL": "WARNING", **TEST_BUDGETS, **stack.cache_config("live")}
    )
    with LiveServer(app) as server:
        yield server.url

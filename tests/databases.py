"""Throwaway namespaces on the shared test servers: PostgreSQL schemas and Redis key prefixes.

Each test session makes its own (a random name), and drops it at the end, so parallel runs and other
suites on the same servers never see each other's data. Both raise `Unreachable` (with a one-line
reason naming the environment variable to set) when the server does not answer; callers skip on it.

A session killed before its end (a timeout, Ctrl-C twice) leaves its schemas behind, and the server's lock
table fills up with them over the runs of weeks. So a schema's name carries the time it was made, and the
first `PostgresSchemas` of a process drops the test schemas made more than `STALE_AFTER` ago: no test session
lasts that long. Names without a time (made by an older checkout, which may be running now) are left alone.
"""

from __future__ import annotations

import itertools
import os
import re
import time
import uuid
from typing import Any

import redis
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

POSTGRES_URL = os.environ.get("COREAPI_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
# Database 15: out of the way of a developer's `make run` on database 0.
REDIS_URL = os.environ.get("PRERENDER_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


# The prefixes of every suite's schemas (tests/coreapi, tests/live.py, tests/ops), and how old one is stale.
TEST_SCHEMA_PREFIXES = ("coreapi_test_", "live_test_", "coreapi_install_")
STALE_AFTER = 6 * 3600  # seconds
# A test schema's name: its suite's prefix, the Unix time it was made, and a random part.
_TIMED_NAME = re.compile(rf"^(?:{'|'.join(TEST_SCHEMA_PREFIXES)})(\d{{10}})_[0-9a-f]{{8}}$")
_swept = False  # in this process


class Unreachable(Exception):
    """The server does not answer; str() is the reason to show in a skip."""


class PostgresSchemas:
    """Each database is a schema of its own on the test server, selected through `search_path`."""

    name = "postgresql"

    def __init__(self, url: str = POSTGRES_URL, *, prefix: str = "coreapi_test_", pre_ping: bool = True) -> None:
        if prefix not in TEST_SCHEMA_PREFIXES:
            raise ValueError(f"{prefix!r} is not one of TEST_SCHEMA_PREFIXES: its stale schemas would never go")
        self.url = url
        self.prefix = prefix  # of the schema names: says which suite left one behind, if it ever does
        self.pre_ping = pre_ping  # the applications' pools test a connection before lending it
        self.engine = create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
        self.schemas: list[str] = []
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except OperationalError as error:
            self.engine.dispose()
            where = make_url(url).render_as_string(hide_password=True)
            raise Unreachable(
                f"PostgreSQL is not reachable at {where} (set COREAPI_TEST_POSTGRES_URL): "
                f"{str(error.orig).strip().splitlines()[0]}"
            ) from error
        global _swept
        if not _swept:
            _swept = True
            self.drop_stale_schemas()

    def drop_stale_schemas(self, now: float | None = None) -> list[str]:
        """Drops the test schemas made more than STALE_AFTER before `now` (default: now); returns their names."""
        with self.engine.connect() as connection:
            names = connection.execute(text("SELECT nspname FROM pg_namespace")).scalars().all()
            stale = [name for name in names if _made_before(name, (now or time.time()) - STALE_AFTER)]
            for name in stale:
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        return stale

    def new_database(self) -> dict[str, Any]:
        """The coreapi configuration of a new, empty schema (DATABASE_URL and the engine's search_path)."""
        schema = f"{self.prefix}{int(time.time())}_{uuid.uuid4().hex[:8]}"
        with self.engine.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        self.schemas.append(schema)
        return {
            "DATABASE_URL": self.url,
            "SQLALCHEMY_ENGINE_OPTIONS": {
                "pool_pre_ping": self.pre_ping,
                "connect_args": {"options": f"-csearch_path={schema}"},
            },
        }

    def close(self) -> None:
        with self.engine.connect() as connection:
            for schema in self.schemas:
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        self.engine.dispose()


def _made_before(name: str, moment: float) -> bool:
    """Whether `name` is a test schema's (TEST_SCHEMA_PREFIXES, with its time) made before `moment`."""
    match = _TIMED_NAME.match(name)
    return match is not None and int(match.group(1)) < moment


class RedisNamespace:
    """A key prefix of this session on the test Redis; `cache_config()` gives one sub-prefix per cache."""

    def __init__(self, url: str = REDIS_URL) -> None:
        self.url = url
        self.prefix = f"prerender-test-{uuid.uuid4().hex[:12]}:"
        self._caches = itertools.count(1)
        self.client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        try:
            self.client.ping()
        except redis.RedisError as error:
            self.client.close()
            raise Unreachable(f"Redis is not reachable at {url} (set PRERENDER_TEST_REDIS_URL): {error}") from error

    def cache_config(self, name: str | None = None) -> dict[str, Any]:
        """prerender's configuration of a new, empty cache in Redis (a sub-prefix of this session's)."""
        return {
            "CACHE_TYPE": "RedisCache",
            "CACHE_REDIS_URL": self.url,
            "CACHE_KEY_PREFIX": f"{self.prefix}{name or next(self._caches)}:",
        }

    def keys(self) -> list[bytes]:
        return list(self.client.scan_iter(match=f"{self.prefix}*", count=1000))

    def close(self) -> None:
        """Delete every key of the session (prerender's entries expire anyway, but not before hours)."""
        keys = self.keys()
        for start in range(0, len(keys), 1000):
            self.client.delete(*keys[start : start + 1000])
        self.client.close()

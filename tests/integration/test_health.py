"""Readiness against the real upstream, and the stack (tests/live.py) being the one its id names."""

from __future__ import annotations

import sqlite3

from flask_caching.backends import RedisCache
from sqlalchemy import text

from prerender.config import DefaultConfig
from prerender.extensions import cache
from tests.live import PostgresqlRedis, SqliteSimpleCache

from .conftest import get_card


def test_readyz_with_the_real_upstream(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ready" and body["checks"] == {"cache": "ok"}
    assert set(body["upstream"].values()) == {"closed"}


def test_healthz(client):
    body = client.get("/healthz").get_json()
    assert body["status"] == "ok"
    assert {"recipes", "baskets", "catalog", "menus", "suppliers"} <= set(body["upstream"])


def test_the_stack_is_the_one_its_id_names(stack, app, client):
    """Guards the parametrization: the scaled run must not fall back to SQLite or to an in-process cache."""
    assert get_card(client, recipe_id="1", store_id="1001").status_code == 200
    backend = app.extensions["cache"][cache]
    if isinstance(stack, PostgresqlRedis):
        prefix = app.config["CACHE_KEY_PREFIX"]
        assert isinstance(backend, RedisCache) and prefix.startswith(stack.redis.prefix)
        assert list(stack.redis.client.scan_iter(match=f"{prefix}*"))  # the card's reads, cached in Redis
        (schema,) = stack.postgres.schemas
        with stack.postgres.engine.connect() as connection:
            assert connection.execute(text(f'SELECT count(*) FROM "{schema}".recipes')).scalar() > 0
    else:
        # prerender's default in-process cache (DefaultConfig.CACHE_TYPE), not a shared one.
        assert isinstance(stack, SqliteSimpleCache) and not isinstance(backend, RedisCache)
        assert app.config["CACHE_TYPE"] == DefaultConfig.CACHE_TYPE
        (database,) = stack.directory.glob("coreapi-*.sqlite")
        with sqlite3.connect(database) as connection:
            assert connection.execute("SELECT count(*) FROM recipes").fetchone()[0] > 0

"""Readiness against the real upstream, and the stack (tests/live.py) being the one its id names."""

from __future__ import annotations

import importlib.metadata
import sqlite3

import requests
from alembic.script import ScriptDirectory
from flask_caching.backends import RedisCache
from sqlalchemy import text

from coreapi import migrate
from prerender.config import DefaultConfig
from prerender.extensions import cache
from prerender.rendering.assets import EXTENSION_KEY as ASSETS
from tests.live import PostgresqlRedis, SqliteSimpleCache

from .conftest import browser_headers, get_card

SERVICE_KEY_METRIC = "prerender_upstream_service_key_refused"


def test_readyz_with_the_real_upstream(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ready" and body["checks"] == {"cache": "ok", "service_key": "ok"}
    assert set(body["upstream"].values()) == {"closed"}


def test_readyz_says_when_the_upstream_refuses_the_service_key(app, client, caplog):
    """A node whose copy of the upstream's service key is wrong (made up when the file was missing): its browser
    routes fail, and /readyz says so, degraded but 200 (its fragments still serve), until the upstream takes the
    key again. The error log says it once, and a metric says it while it lasts. The supplier is known already
    (cached, as another node's lookup leaves it in a shared cache): the refusal of the route's own call counts too."""
    browser, right = browser_headers(client), app.config["UPSTREAM_SERVICE_KEY"]
    assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 200
    app.config["UPSTREAM_SERVICE_KEY"] = "a-key-the-upstream-never-issued-" + "x" * 32
    for _ in range(2):
        assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 502
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["status"] == "degraded"
    assert "refuses UPSTREAM_SERVICE_KEY" in ready.get_json()["checks"]["service_key"]
    assert [record.levelname for record in caplog.records if "refused UPSTREAM_SERVICE_KEY" in record.message] == [
        "ERROR"
    ]
    assert get_card(client, recipe_id="1", store_id="1001").status_code == 200
    assert service_key_refused(client) == 1.0  # what an alert on the metrics sees

    app.config["UPSTREAM_SERVICE_KEY"] = right
    assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 200
    body = client.get("/readyz").get_json()
    assert body["status"] == "ready" and body["checks"] == {"cache": "ok", "service_key": "ok"}
    assert service_key_refused(client) == 0.0


def service_key_refused(client) -> float:
    """`prerender_upstream_service_key_refused` as GET /metrics exposes it."""
    exposed = client.get("/metrics").get_data(as_text=True)
    return float(next(line for line in exposed.splitlines() if line.startswith(SERVICE_KEY_METRIC + " ")).split()[1])


def test_healthz(client):
    body = client.get("/healthz").get_json()
    assert body["status"] == "ok"
    assert {"recipes", "baskets", "catalog", "menus", "suppliers"} <= set(body["upstream"])


def test_both_services_say_which_release_they_run(app, client, coreapi_url):
    """What step 6 of a new release checks (docs/operations.md): each service's installed version as it read it at
    start, the build id prerender's fragments link, and the revision coreapi's database is at (the newest of the
    scripts, from Alembic's script directory: the live coreapi's database is migrated)."""
    assert client.get("/healthz").get_json()["version"] == {
        "package": importlib.metadata.version("prerender"),
        "static_build": app.extensions[ASSETS].build_id,
    }
    assert client.get("/readyz").get_json()["version"] == client.get("/healthz").get_json()["version"]
    head = ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()
    answer = requests.get(f"{coreapi_url}/healthz", timeout=10)
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ok",
        "version": {"package": importlib.metadata.version("prerender-coreapi"), "schema": head},
    }


def test_the_stack_is_the_one_its_id_names(stack, app, client):
    """Guards the parametrization: the scaled run must not fall back to SQLite or to an in-process cache."""
    assert get_card(client, recipe_id="1", store_id="1001").status_code == 200
    backend = app.extensions["cache"][cache]
    if isinstance(stack, PostgresqlRedis):
        prefix = app.config["CACHE_KEY_PREFIX"]
        assert isinstance(backend, RedisCache) and prefix.startswith(stack.redis.prefix)
        assert list(stack.redis.client.scan_iter(match=f"{prefix}*"))  # the card's reads, cached in Redis
        # The session's coreapi database, and any other a test made (tests/live.py, `crowded_coreapi`): PostgreSQL.
        assert stack.postgres.schemas
        with stack.postgres.engine.connect() as connection:
            for schema in stack.postgres.schemas:
                assert connection.execute(text(f'SELECT count(*) FROM "{schema}".recipes')).scalar() > 0
    else:
        # prerender's default in-process cache (DefaultConfig.CACHE_TYPE), not a shared one.
        assert isinstance(stack, SqliteSimpleCache) and not isinstance(backend, RedisCache)
        assert app.config["CACHE_TYPE"] == DefaultConfig.CACHE_TYPE
        # The session's coreapi database, and any other a test made (tests/live.py, `crowded_coreapi`): SQLite.
        databases = list(stack.directory.glob("coreapi-*.sqlite"))
        assert databases
        for database in databases:
            with sqlite3.connect(database) as connection:
                assert connection.execute("SELECT count(*) FROM recipes").fetchone()[0] > 0

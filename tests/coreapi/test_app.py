"""The application factory, configuration, health, request ids and the shape of every error."""

from __future__ import annotations

import importlib.metadata
import logging
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from flask import Flask
from flask.testing import FlaskClient

from coreapi import INSTANCE_PATH, create_app, migrate
from coreapi.config import ConfigError
from coreapi.extensions import db
from tests.conftest import closed_port

PROBLEM = "application/problem+json"


def test_instance_folder_is_the_repository_one_wherever_the_app_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COREAPI_DATABASE_URL", raising=False)
    monkeypatch.delenv("COREAPI_INSTANCE_PATH", raising=False)
    app = create_app({"TESTING": True})
    assert Path(app.instance_path) == INSTANCE_PATH
    assert Path(__file__).resolve().parents[2] / "instance" == INSTANCE_PATH
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{INSTANCE_PATH / 'coreapi.sqlite'}"


def test_an_installed_coreapi_keeps_its_files_in_the_folder_coreapi_instance_path_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A wheel installed in a virtual environment has no repository around it: its instance folder (made if
    missing, as systemd's StateDirectory would) holds coreapi.cfg, the service key and the default SQLite
    file (docs/operations.md, "Production install")."""
    folder = tmp_path / "var" / "lib" / "coreapi"
    monkeypatch.setenv("COREAPI_INSTANCE_PATH", str(folder))
    monkeypatch.delenv("COREAPI_DATABASE_URL", raising=False)
    monkeypatch.delenv("COREAPI_SERVICE_KEYS", raising=False)
    app = create_app({"TESTING": True})
    assert Path(app.instance_path) == folder
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{folder / 'coreapi.sqlite'}"
    assert app.config["SERVICE_KEYS"] == [(folder / "upstream-service-key").read_text()]
    (folder / "coreapi.cfg").write_text("LOG_LEVEL = 'ERROR'\n")
    assert create_app({"TESTING": True}).config["LOG_LEVEL"] == "ERROR"


def test_environment_overrides_defaults_and_test_config_overrides_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COREAPI_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite'}")
    monkeypatch.setenv("COREAPI_PUBLIC_URL", "https://cdn.example/up/")
    monkeypatch.setenv("COREAPI_LOG_LEVEL", "WARNING")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'env.sqlite'}"
    assert app.config["PUBLIC_URL"] == "https://cdn.example/up"
    assert app.config["LOG_LEVEL"] == "WARNING"

    app = create_app({"DATABASE_URL": "sqlite://", "LOG_LEVEL": "DEBUG"})
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "sqlite://"
    assert app.config["LOG_LEVEL"] == "DEBUG"


@pytest.mark.parametrize("value", ["abc", "-1", "0", "true"])
def test_a_duration_that_is_no_number_above_0_stops_the_start_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    """`abc` started coreapi, then every shopper's write answered 500 (`-1`: 503)."""
    monkeypatch.setenv("COREAPI_WRITE_DEADLINE_SECONDS", value)
    with pytest.raises(ConfigError, match=r"^COREAPI_WRITE_DEADLINE_SECONDS: a number of seconds above 0"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'bad.sqlite'}"})


def test_a_duration_of_0_is_taken_where_0_means_something(tmp_path: Path) -> None:
    """A picture's `Cache-Control: max-age=0`, and the idempotency outcomes pruned at every write."""
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'zero.sqlite'}",
            "MEDIA_MAX_AGE": 0,
            "IDEMPOTENCY_PRUNE_INTERVAL_SECONDS": 0,
        }
    )
    assert app.config["MEDIA_MAX_AGE"] == 0 and app.config["IDEMPOTENCY_PRUNE_INTERVAL_SECONDS"] == 0
    with pytest.raises(ConfigError, match=r"^COREAPI_MEDIA_MAX_AGE: a number of seconds of 0 or more"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'zero.sqlite'}", "MEDIA_MAX_AGE": -1})


@pytest.mark.parametrize("setting", ["EVENT_RETENTION_DAYS", "IDLE_AUTHLESS_RETENTION_DAYS"])
@pytest.mark.parametrize("value", ["abc", "0", "-1", "true", "36501"])
def test_a_retention_that_is_no_number_of_days_stops_the_start_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, setting: str, value: str
) -> None:
    """0 would have the daily prune (coreapi/services/retention.py) delete every event, or every visitor's empty
    basket, at once; a million days is a time before any Python can write."""
    monkeypatch.setenv(f"COREAPI_{setting}", value)
    with pytest.raises(ConfigError, match=rf"^COREAPI_{setting}: a number of days above 0 and at most 36500"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'bad.sqlite'}"})
    monkeypatch.setenv(f"COREAPI_{setting}", "30.5")
    assert create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'good.sqlite'}"}).config[setting] == 30.5


def test_a_connection_hold_no_longer_than_a_write_may_take_stops_the_start(tmp_path: Path) -> None:
    """Writes near their deadline, or a keyed write's claim waiting for its key, would be cut and answered "the
    database is unavailable" rather than finish or answer their own 409."""
    database = {"DATABASE_URL": f"sqlite:///{tmp_path / 'hold.sqlite'}", "IDEMPOTENCY_WAIT_SECONDS": 2.0}
    refused = r"^COREAPI_DATABASE_HOLD_SECONDS: more than a write may take .*: 3.0 s; got 3\)$"
    with pytest.raises(ConfigError, match=refused):
        create_app({**database, "WRITE_DEADLINE_SECONDS": 2.5, "DATABASE_HOLD_SECONDS": 3})
    assert create_app({**database, "WRITE_DEADLINE_SECONDS": 2.5, "DATABASE_HOLD_SECONDS": 3.1})
    refused = r"^COREAPI_DATABASE_HOLD_SECONDS: more than a write may take .*: 4.5 s; got 3.1\)$"
    with pytest.raises(ConfigError, match=refused):
        create_app({**database, "IDEMPOTENCY_WAIT_SECONDS": 4.0, "DATABASE_HOLD_SECONDS": 3.1})


def test_healthz(client: FlaskClient) -> None:
    """The release coreapi runs: its installed version, and the revision its (migrated) database is at."""
    response = client.get("/healthz")
    assert response.status_code == 200
    version = {"package": importlib.metadata.version("prerender-coreapi"), "schema": migrate.head_revision()}
    assert response.json == {"status": "ok", "version": version}


def test_healthz_names_the_revision_the_database_is_at_as_it_is_upgraded(empty_app: Flask) -> None:
    """Read at each check: the database is upgraded while coreapi runs (docs/operations.md, "A new release")."""
    client = empty_app.test_client()
    assert client.get("/healthz").json["version"]["schema"] is None  # no migration history yet
    head = migrate.head_revision()
    assert head is not None
    before = ScriptDirectory.from_config(migrate.alembic_config()).get_revision(head).down_revision
    assert isinstance(before, str)
    for revision in (before, head):
        with empty_app.app_context(), migrate.schema_connection(db.engine) as connection:
            migrate.upgrade(connection, revision)
        answer = client.get("/healthz")
        assert answer.status_code == 200 and answer.json["version"]["schema"] == revision


def test_healthz_names_the_package_version_read_at_start(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another release installed in place after the start (its metadata) is not the one that runs."""
    started = client.get("/healthz").json["version"]["package"]
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "99.0.0")
    assert client.get("/healthz").json["version"]["package"] == started != "99.0.0"


def test_request_id_is_echoed(client: FlaskClient) -> None:
    response = client.get("/api/v1/stores", headers={"X-Request-Id": "req-42.abc"})
    assert response.headers["X-Request-Id"] == "req-42.abc"


def test_request_id_is_in_the_logs(client: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="coreapi"):
        client.get("/api/v1/stores/1001", headers={"X-Request-Id": "log-me-1"})
    (record,) = [r for r in caplog.records if "/api/v1/stores/1001" in r.getMessage()]
    assert record.request_id == "log-me-1"
    assert "200" in record.getMessage()


def test_request_id_is_made_up_when_missing_or_unsafe(client: FlaskClient) -> None:
    made_up = client.get("/healthz").headers["X-Request-Id"]
    assert made_up
    unsafe = client.get("/healthz", headers={"X-Request-Id": "a b\tc<script>"})
    assert unsafe.headers["X-Request-Id"] not in ("", "a b\tc<script>")
    assert unsafe.headers["X-Request-Id"] != made_up


def test_request_id_is_echoed_on_errors_too(client: FlaskClient) -> None:
    response = client.get("/api/v1/recipes/999999", headers={"X-Request-Id": "err-1"})
    assert response.status_code == 404
    assert response.headers["X-Request-Id"] == "err-1"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/no/such/route", 404),
        ("get", "/api/v1/recipes/999999", 404),
        ("get", "/api/v1/stores/9", 404),
        ("delete", "/api/v1/recipes", 405),
        ("get", "/api/v1/recipes?per_page=0", 400),
    ],
)
def test_every_error_is_a_problem_document(client: FlaskClient, method: str, path: str, status: int) -> None:
    response = getattr(client, method)(path)
    assert response.status_code == status
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["status"] == status
    assert body["type"] == "about:blank"
    assert body["title"] and isinstance(body["detail"], str)


def test_validation_errors_are_400_keyed_by_location_and_field(client: FlaskClient) -> None:
    response = client.get("/api/v1/recipes?per_page=abc&type=lunch&page=1")
    assert response.status_code == 400
    errors = response.get_json(force=True)["errors"]
    assert set(errors) == {"query"}
    assert set(errors["query"]) == {"per_page", "type"}
    assert all(isinstance(m, str) for messages in errors["query"].values() for m in messages)


def test_invalid_json_body_is_400(client: FlaskClient) -> None:
    response = client.post("/api/v1/suggestions", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.mimetype == PROBLEM
    assert "json" in response.get_json(force=True)["errors"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "The JSON body is nested too deeply."),
        ('{"store_id": ' + "9" * 5000 + "}", "Invalid JSON body."),
    ],
    ids=["nested-too-deeply", "integer-too-long"],
)
def test_a_json_body_python_cannot_load_is_400_not_a_server_error(client: FlaskClient, body: str, message: str) -> None:
    """The shared parser (plumbing/parsing.py) is prerender's: what the interpreter refuses to load is the
    caller's error, named, as on prerender's routes."""
    response = client.post("/api/v1/suggestions", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.mimetype == PROBLEM
    assert response.get_json(force=True)["errors"] == {"json": {"_schema": [message]}}


@pytest.mark.parametrize(
    ("body", "query", "errors"),
    [
        ({"keyword": "tomate\u0000"}, {}, {"json": {"keyword": ["Must not contain a NUL character."]}}),
        ({"product_ids": ["1", "2\u0000"]}, {}, {"json": {"product_ids.1": ["Must not contain a NUL character."]}}),
        (
            {"contexts": []},
            {"preferences": "true\u0000"},
            {"query": {"preferences": ["Must not contain a NUL character."]}},
        ),
        (
            {"product_ids": ["1", "\ud800"]},
            {},
            {"json": {"product_ids.1": ["Must not contain a lone surrogate (U+D800 to U+DFFF): it is no character."]}},
        ),
    ],
    ids=["value", "nested-value", "query", "lone-surrogate"],
)
def test_a_text_no_database_stores_is_400_naming_where_it_was(client: FlaskClient, body, query, errors) -> None:
    """PostgreSQL refuses NUL in text, and a lone surrogate (JSON may escape half a UTF-16 pair) has no UTF-8
    form for either database: sent on, each was a 500 of this service (which a caller's circuit breaker counts
    as an outage). No field means one, so it is the caller's error, on either database."""
    response = client.post("/api/v1/suggestions", json=body, query_string=query)
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert response.get_json(force=True)["errors"] == errors


@pytest.mark.parametrize(
    "path",
    ["/api/v1/recipes/by-external-id/%00", "/api/v1/recipes/a%00b", "/api/v1/stores/%00"],
)
def test_a_nul_character_in_a_path_names_nothing(client: FlaskClient, path: str) -> None:
    """werkzeug decodes `%00`; PostgreSQL refuses the text in a query (a 500). No resource has such a name: 404."""
    response = client.get(path, headers={"Supplier-Token": "demo-retailer-token"})
    assert response.status_code == 404 and response.mimetype == PROBLEM
    assert response.get_json(force=True)["detail"] == "No resource is named with a NUL character."


def test_a_key_given_twice_with_two_values_is_a_400(client: FlaskClient) -> None:
    """Which value the caller meant is a guess, as for a query parameter given twice."""
    body = '{"keyword": "tomate", "keyword": "poireau"}'
    response = client.post("/api/v1/suggestions", data=body, content_type="application/json")
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert response.get_json(force=True)["errors"] == {
        "json": {
            "_schema": ["The key 'keyword' is given more than once in one object, with different values: give it once."]
        }
    }


def test_unknown_query_parameters_are_ignored(client: FlaskClient) -> None:
    assert client.get("/api/v1/recipes?utm_source=x&per_page=1").status_code == 200


@pytest.mark.parametrize(
    "database_url",
    [
        "postgresql+psycopg://postgres@127.0.0.1:{port}/test",
        "sqlite:///{missing}/no-such-folder/coreapi.sqlite",
    ],
    ids=["postgresql-unreachable", "sqlite-unopenable"],
)
def test_a_database_that_fails_is_a_503_to_try_again(database_url: str, tmp_path: Path) -> None:
    """Not the 500 of a bug: the callers' circuit breakers count a 503 as an upstream that cannot serve now (a 500,
    which one request's input may cause, they do not count: prerender/gateway/http.py)."""
    url = database_url.format(port=closed_port(), missing=tmp_path)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SQLALCHEMY_ENGINE_OPTIONS": {}})
    answer = app.test_client().get("/api/v1/recipes/1", headers={"Supplier-Token": "demo-retailer-token"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1", answer.get_json()
    assert answer.mimetype == "application/problem+json"
    assert answer.get_json()["detail"] == "The database is unavailable; try again in a moment."

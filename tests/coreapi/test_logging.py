"""coreapi's logs name no shopper: identities in the access log are pseudonyms (HMAC-SHA256 under
``COREAPI_LOG_PSEUDONYM_KEY``), and SQL errors leave their parameters out."""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from coreapi import log as coreapi_log
from coreapi.extensions import db
from plumbing.log_text import LOG_TEXT_MAX

from .conftest import make_app

RETAILER = {"Supplier-Token": "demo-retailer-token"}


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


def expected_pseudonym(key: str, value: str) -> str:
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()[:16]


def test_the_access_log_writes_no_authless_id(client: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    authless_id = f"visitor-{uuid.uuid4().hex}"
    user_id = f"member-{uuid.uuid4().hex}"
    with caplog.at_level(logging.INFO, logger="coreapi"):
        response = client.get(
            f"/api/v1/basket/merge-authless-basket?authless_id={authless_id}&store_id=1001",
            headers={"Authorization": f"user_id {user_id}", **RETAILER},
        )
    assert response.status_code == 200
    text = logged(caplog)
    assert authless_id not in text and user_id not in text
    (line,) = [record.getMessage() for record in caplog.records if "merge-authless-basket" in record.getMessage()]
    with client.application.app_context():
        pseudonym = coreapi_log.pseudonym(authless_id)
    assert len(pseudonym) == 16 and int(pseudonym, 16) >= 0
    assert f"/api/v1/basket/merge-authless-basket?authless_id=~{pseudonym}&store_id=1001 200" in line


@pytest.mark.parametrize("name", ["authless_id", "user_id", "AUTHLESS_ID", "q", "keyword", "search"])
def test_every_identity_parameter_is_pseudonymized(
    client: FlaskClient, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    """Whatever the route (even one that ignores it) and however it is encoded."""
    secret = f"secret {uuid.uuid4().hex}"
    encoded = secret.replace(" ", "%20")
    with caplog.at_level(logging.INFO, logger="coreapi"):
        client.get(f"/api/v1/stores?near=1&{name}={encoded}&{name}=&x=%C3%A9")
    text = logged(caplog)
    assert secret.split()[1] not in text
    with client.application.app_context():
        pseudonym = coreapi_log.pseudonym(secret)
        empty = coreapi_log.pseudonym("")
    assert f"/api/v1/stores?near=1&{name}=~{pseudonym}&{name}=~{empty}&x=%C3%A9 200" in text


def test_werkzeugs_request_lines_are_pseudonymized_too(backend: Any, caplog: pytest.LogCaptureFixture) -> None:
    """``flask run`` and the test suites' live servers log each request line themselves."""
    app = make_app(backend, LOG_PSEUDONYM_KEY="server-key")
    secret = f"visitor-{uuid.uuid4().hex}"
    line = f"GET /api/v1/basket/merge-authless-basket?store_id=1001&authless_id={secret} HTTP/1.1"
    try:
        with caplog.at_level(logging.INFO, logger="werkzeug"):
            logging.getLogger("werkzeug").info('127.0.0.1 - - [date] "%s" %s %s', f"\x1b[1m{line}\x1b[0m", "200", "-")
        text = logged(caplog)
        assert secret not in text
        pseudonym = expected_pseudonym("server-key", secret)
        assert f"?store_id=1001&authless_id=~{pseudonym} HTTP/1.1" in text
    finally:
        with app.app_context():
            db.engine.dispose()


def test_pseudonyms_are_keyed_by_the_configuration(backend: Any) -> None:
    """The same key gives the same pseudonyms in every process (to follow one shopper across
    the logs of several workers); another key, others."""
    apps = [make_app(backend, LOG_PSEUDONYM_KEY=key) for key in ("key-one", "key-one", "key-two")]
    try:
        names = []
        for app in apps:
            with app.app_context():
                names.append(coreapi_log.pseudonym("visitor-1"))
        assert names[0] == names[1] == expected_pseudonym("key-one", "visitor-1")
        assert names[2] == expected_pseudonym("key-two", "visitor-1")
    finally:
        for app in apps:
            with app.app_context():
                db.engine.dispose()


def test_without_a_key_a_random_one_per_process_and_one_warning(
    backend: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coreapi_log, "_warned_about_the_random_key", False)
    with caplog.at_level(logging.WARNING, logger="coreapi"):
        apps = [make_app(backend, LOG_PSEUDONYM_KEY=None) for _ in range(2)]
    try:
        warnings = [r for r in caplog.records if "COREAPI_LOG_PSEUDONYM_KEY" in r.getMessage()]
        assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
        names = []
        for app in apps:
            with app.app_context():
                names.append(coreapi_log.pseudonym("visitor-1"))
        assert names[0] == names[1] != expected_pseudonym("", "visitor-1")
    finally:
        for app in apps:
            with app.app_context():
                db.engine.dispose()


def test_sql_errors_do_not_carry_their_parameters(app: Flask) -> None:
    """An unexpected database error is logged with its traceback: its message must not hold the
    identities bound to the statement."""
    with app.app_context():
        assert db.engine.hide_parameters is True


def test_a_request_id_with_a_trailing_newline_is_replaced(client: FlaskClient) -> None:
    """`$` matches before a final newline: such an id was adopted, then could not be echoed as a header."""
    response = client.get("/healthz", environ_overrides={"HTTP_X_REQUEST_ID": "abc-123\n"})
    assert response.status_code == 200
    assert response.headers["X-Request-Id"] != "abc-123" and len(response.headers["X-Request-Id"]) == 32


def test_a_refused_request_is_information_not_a_warning(client: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    """A 400 is the caller's mistake: the reason is logged at INFO (where the access log is), never as a warning
    about the service, which a client sending junk would otherwise fill."""
    with caplog.at_level(logging.INFO, logger="coreapi"):
        response = client.get("/api/v1/recipes/1?serves=many", headers=RETAILER)
    assert response.status_code == 400
    (record,) = [record for record in caplog.records if record.getMessage().startswith("rejected ")]
    assert record.levelno == logging.INFO and "serves" in record.getMessage()
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_a_long_path_is_clipped_in_the_access_log(client: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    """The path and query are the client's to choose, up to the URL's limit: the line holds LOG_TEXT_MAX characters
    of them and says how long they were (plumbing/log_text.py)."""
    path = "/api/v1/" + "p" * 6000
    with caplog.at_level(logging.INFO, logger="coreapi"):
        assert client.get(f"{path}?x={'x' * 1500}").status_code == 404
    (line,) = [record.getMessage() for record in caplog.records if "/api/v1/ppp" in record.getMessage()]
    assert len(line) < 2 * LOG_TEXT_MAX and "(7511 characters)" in line


def test_a_failing_database_health_check_is_one_line(
    client: FlaskClient, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load balancer probes /healthz every few seconds: while the database is down each probe is one line with the
    driver's reason (as a request's database error is), not a traceback of a hundred lines."""

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        reason = ConnectionRefusedError('connection failed: Connection refused\nIs the server running on "db"?')
        raise OperationalError("SELECT 1", {"shopper": "visitor-1"}, reason)

    monkeypatch.setattr(Session, "execute", refused)
    with caplog.at_level(logging.INFO, logger="coreapi"):
        response = client.get("/healthz")
    assert response.status_code == 503
    failures = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [record.getMessage() for record in failures] == [
        "database health check failed: connection failed: Connection refused"
    ]
    assert failures[0].exc_info is None


@pytest.mark.parametrize(
    ("traceparent", "named"),
    [
        (
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            " trace=4bf92f3577b34da6a3ce929d0e0e4736 parent=00f067aa0ba902b7",
        ),
        ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""),  # not a trace (plumbing/trace_context.py)
        (None, ""),
    ],
)
def test_the_access_log_names_the_callers_trace(
    client: FlaskClient, caplog: pytest.LogCaptureFixture, traceparent: str | None, named: str
) -> None:
    """A caller's `traceparent` (prerender names its own span in it) puts the trace and the calling span in the line."""
    with caplog.at_level(logging.INFO, logger="coreapi"):
        response = client.get(
            "/api/v1/suppliers/me", headers={**RETAILER, **({"traceparent": traceparent} if traceparent else {})}
        )
    assert response.status_code == 200
    (line,) = [record.getMessage() for record in caplog.records if "/api/v1/suppliers/me" in record.getMessage()]
    assert line.endswith(f"ms{named}"), line

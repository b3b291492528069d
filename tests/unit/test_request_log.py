"""One JSON log line per request, with the request id, and no secret in clear."""

from __future__ import annotations

import hashlib
import json
import logging
import math

from plumbing.log_text import LOG_TEXT_MAX, clipped
from prerender import create_app
from prerender.blueprints import health
from prerender.web.request_log import JsonFormatter, pseudonym, shopper_pseudonym
from tests.conftest import HEADERS


def request_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "prerender.request"]


def test_one_line_per_request_with_its_fields(app, client, caplog):
    caplog.set_level(logging.INFO, logger="prerender")
    client.get("/v1/styles/base", headers={**HEADERS, "X-Request-Id": "req-42"})
    [record] = request_records(caplog)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "request" and line["status"] == 200 and line["method"] == "GET"
    assert line["path"] == "/v1/styles/base" and line["endpoint"] == "v1.styles.component_styles"
    assert line["api_version"] == "v1" and line["duration_ms"] >= 0
    with app.app_context():
        assert line["user"] == shopper_pseudonym(line["supplier_id"], "u-1")


def test_no_token_and_no_user_id_in_clear(app, client, caplog):
    caplog.set_level(logging.DEBUG, logger="prerender")
    headers = {**HEADERS, "authorization": "user_id alice@example.com", "supplier-token": "very-secret-token"}
    client.get("/v1/recipe-card?recipe_id=1", headers=headers)
    text = "\n".join(JsonFormatter().format(r) for r in caplog.records)
    assert "very-secret-token" not in text and "alice@example.com" not in text
    [line] = [json.loads(JsonFormatter().format(r)) for r in request_records(caplog)]
    with app.app_context():
        assert line["user"] == shopper_pseudonym(line["supplier_id"], "alice@example.com")


def test_one_id_at_two_suppliers_is_two_shoppers_in_the_log(app):
    """The same user id at two retailers: two shoppers, which the log neither mixes up nor links."""
    with app.app_context():
        assert shopper_pseudonym("1", "alice") == shopper_pseudonym("1", "alice")
        assert len({shopper_pseudonym("1", "alice"), shopper_pseudonym("10", "alice"), pseudonym("alice")}) == 3


def test_pseudonyms_are_keyed_so_a_guessable_id_cannot_be_found_by_hashing(app_config):
    """An unkeyed hash of a guessable id (an email, a sequence number) is found by hashing candidates."""
    one, other = (create_app({**app_config, "SECRET_KEYS": [key * 40]}) for key in "ab")
    with one.app_context():
        mine = pseudonym("user-42")
    with other.app_context():
        theirs = pseudonym("user-42")
    assert mine != theirs and hashlib.sha256(b"user-42").hexdigest()[: len(mine)] != mine


def test_requests_outside_the_versions_are_logged_too(client, caplog):
    caplog.set_level(logging.INFO, logger="prerender")
    client.get("/healthz")
    [record] = request_records(caplog)
    assert record.status == 200 and record.path == "/healthz"


def test_readyz_does_not_follow_the_upstream(client):
    response = client.get("/readyz")  # the unit app's upstream is a closed port: the node still serves
    body = response.get_json()
    assert response.status_code == 200 and body["status"] == "ready"
    assert body["checks"] == {"cache": "ok", "service_key": "ok"}


def test_a_failing_cache_check_is_logged_when_it_starts_failing_and_when_it_passes_again(client, caplog, monkeypatch):
    """Not at every probe: a load balancer probes every few seconds for as long as Redis is down."""
    caplog.set_level(logging.INFO, logger="prerender")

    def unreachable(*_args, **_kwargs):
        raise ConnectionError("Redis is down")

    def cache_lines() -> list[str]:
        return [record.getMessage() for record in caplog.records if "cache check" in record.getMessage()]

    with monkeypatch.context() as down:
        down.setattr(health.cache, "set", unreachable)
        for _ in range(3):
            assert client.get("/readyz").get_json()["checks"]["cache"] == "failed: ConnectionError"
    assert client.get("/readyz").get_json()["checks"]["cache"] == "ok"
    assert client.get("/readyz").get_json()["checks"]["cache"] == "ok"
    assert cache_lines() == [
        "cache check failed: ConnectionError('Redis is down') (logged again once it has passed)",
        "cache check passes again",
    ]


def test_a_request_refused_before_its_view_is_timed_from_its_start(client, caplog):
    """The timer starts before the size limits and admission may refuse a request: its duration is measured, never
    the -0.0 of a timer that never started."""
    caplog.set_level(logging.INFO, logger="prerender")
    assert client.get("/v1/styles/base?" + "x" * 9000, headers=HEADERS).status_code == 414
    [record] = request_records(caplog)
    assert record.status == 414 and math.copysign(1.0, record.duration_ms) == 1.0


def test_what_a_client_chooses_is_clipped_in_the_log(client, caplog):
    """A path, or a body's unknown keys named in a 400, are the client's to choose up to the request's limits: one
    events POST of 250 keys of 200 characters wrote a 57 KB line. Each line holds at most LOG_TEXT_MAX characters
    of them, and says how long they were; the client's answer still names every key."""
    caplog.set_level(logging.INFO)
    # A route's own path parameter, warned about at once (a request without supplier-token; the first such
    # warning of the app: later ones are throttled, prerender/web/throttled_log.py).
    assert client.get("/v1/styles/" + "s" * 7000, headers=HEADERS).status_code == 404
    junk = {"contexts": [{f"k{i:03d}-{'x' * 200}": 1 for i in range(250)}]}
    answer = client.post("/v1/recipe-card/multiple", json=junk, headers=HEADERS)
    assert answer.status_code == 400 and len(answer.get_json()["errors"]["json"]) == 252  # and two missing
    long_path = "/" + "p" * 7000
    assert client.get(long_path, headers=HEADERS).status_code == 404

    lines = [JsonFormatter().format(record) for record in caplog.records]
    assert max(len(line) for line in lines) < 2 * LOG_TEXT_MAX, sorted(len(line) for line in lines)
    [rejected] = [line for line in lines if "rejected POST /v1/recipe-card/multiple" in line]
    assert "contexts" in rejected and "characters)" in rejected
    [_styles, unmatched] = [json.loads(line) for line in lines if '"status": 404' in line]
    assert unmatched["path"] == clipped(long_path) and unmatched["path"].endswith("(7001 characters)")
    assert any("request without supplier-token on /v1/styles/sss" in line for line in lines)


def test_a_key_rotation_changes_the_pseudonyms_once(app_config):
    """The pseudonyms are keyed by the signing key: through docs/security.md's three deploys of a rotation they
    change once, when the new key starts signing, so one shopper reads the same in every line of a step."""
    old, new = "o" * 40, "n" * 40

    def pseudonym_with(keys: list[str]) -> str:
        with create_app({**app_config, "SECRET_KEYS": keys}).app_context():
            return pseudonym("user-42")

    before, added, signing, removed = (pseudonym_with(keys) for keys in ([old], [new, old], [old, new], [new]))
    assert before == added and signing == removed and added != signing

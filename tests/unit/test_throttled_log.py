"""Warnings anyone may cause at will (prerender/web/throttled_log.py): one line a while, saying how many were left
out, so that a flood of token-less requests is not a flood of log lines."""

from __future__ import annotations

import logging

import pytest
from flask.testing import FlaskClient

from prerender.web.throttled_log import ThrottledWarning
from tests.conftest import HEADERS


def test_one_line_a_period_then_how_many_were_left_out(caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    throttle = ThrottledWarning(logging.getLogger("test.throttle"), seconds=10, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="test.throttle"):
        for path in ("/a", "/b", "/c"):
            throttle.warn("request without supplier-token on %s", path)
        now[0] += 10
        throttle.warn("request without supplier-token on %s", "/d")
        now[0] += 10
        throttle.warn("request without supplier-token on %s", "/e")
    assert [record.getMessage() for record in caplog.records] == [
        "request without supplier-token on /a",
        "request without supplier-token on /d (and 2 more like it since the last such line)",
        "request without supplier-token on /e",
    ]


def test_a_flood_of_requests_without_token_writes_one_line(client: FlaskClient, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="prerender.web.context")
    for _ in range(20):
        assert client.get("/v1/styles/base", headers=HEADERS).status_code == 200
    lines = [r.getMessage() for r in caplog.records if "without supplier-token" in r.getMessage()]
    assert lines == ["request without supplier-token on /v1/styles/base"]

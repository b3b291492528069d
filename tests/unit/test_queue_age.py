"""The front's arrival stamp (prerender/web/queue_age.py): with TRUST_REQUEST_START on, the time a request waited
before the worker read it comes out of its upstream budget, and a request whose whole budget went by in the queue
is shed at the door (prerender/web/admission.py); off, or with a stamp not to be believed, nothing changes. What is
checked is what the upstream is told (its deadline) and what the routes answer, not how long anything took."""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest
import responses
from flask import Flask
from prometheus_client import REGISTRY

from prerender import create_app
from prerender.gateway import deadline
from prerender.gateway import http as http_module
from prerender.gateway.http import DEADLINE_HEADER
from prerender.web import queue_age
from prerender.web.admission import EXTENSION_KEY as ADMISSION_KEY
from prerender.web.queue_age import REQUEST_START_HEADER, arrival_of
from tests.clock import FakeClock, WallClock
from tests.conftest import HEADERS

CARD = "/v1/recipe-card?recipe_id=1&store_id=1001"
ADD = {"recipe_id": "1", "store_id": "1001", "guests": 4}


def stamp(seconds_ago: float) -> dict[str, str]:
    """The header nginx sets (deploy/nginx/prerender.conf: `t=${msec}`) for a request that arrived that long ago,
    in whole milliseconds cut down, as nginx writes it: rounded, the stamp could be up to half a millisecond later
    than the arrival, and a wait of 1 s read as 999.8 ms (a CI failure)."""
    return {REQUEST_START_HEADER: f"t={math.floor((time.time() - seconds_ago) * 1000) / 1000:.3f}"}


@pytest.fixture
def app_config(app_config: dict) -> dict:
    """The app behind a front whose stamp it trusts (the `app` fixture and its shopper's headers)."""
    return {**app_config, "TRUST_REQUEST_START": True}


@pytest.fixture
def trusting(app: Flask) -> Flask:
    """The trusting app; a write's budget (4 s) is above the read timeout (3 s)."""
    return app


@pytest.fixture
def upstream() -> Iterator[responses.RequestsMock]:
    """Every upstream call answered 503 (nothing applied), each recorded with the headers it was sent with."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        for method in (responses.GET, responses.POST):
            mocked.add(method, re.compile(r"http://127\.0\.0\.1:\d+/.*"), status=503, json={"status": 503})
        yield mocked


def card_answers(reason: str) -> float:
    """The card's degraded answers of a reason so far (this process's metric)."""
    return (
        REGISTRY.get_sample_value(
            "prerender_degraded_answers_total", {"endpoint": "v1.recipe_card.get_card", "reason": reason}
        )
        or 0.0
    )


def queued_answers() -> float:
    """The card's answers shed for their wait so far."""
    return card_answers("queued")


def deadline_told(upstream: responses.RequestsMock, sent_at: float) -> float:
    """Seconds after `sent_at` (the test's frozen wall clock) by which the write's one upstream attempt said
    prerender stops waiting."""
    (call,) = [call for call in upstream.calls if call.request.method == "POST"]
    return int(call.request.headers[DEADLINE_HEADER]) / 1000 - sent_at


@pytest.mark.parametrize(
    ("value", "arrival"),
    [
        ("t=1700000000.123", 1700000000.123),  # nginx's ${msec}
        ("1700000000.5", 1700000000.5),
        ("t=1700000000123", 1700000000.123),  # milliseconds
        ("t=1700000000123456", 1700000000.123456),  # microseconds
        ("", None),
        ("t=", None),
        ("t=soon", None),
        ("t=-5", None),
        ("t=nan", None),
        ("t=inf", None),
    ],
)
def test_the_stamps_a_front_may_send(value: str, arrival: float | None) -> None:
    assert arrival_of(value) == (pytest.approx(arrival) if arrival is not None else None)


def test_a_write_that_waited_has_that_much_less_for_its_upstream_call(
    trusting: Flask, shopper_headers: dict[str, str], upstream: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every clock the write reads stands still: the stamp's age (prerender/web/queue_age.py), the budget's
    # (prerender/gateway/deadline.py) and the deadline header's (prerender/gateway/http.py). What the upstream is
    # told is then exact, whatever the machine's load between the request and its call.
    wall, budget_clock = WallClock(), FakeClock()
    monkeypatch.setattr(queue_age, "time", wall)
    monkeypatch.setattr(deadline, "time", budget_clock)
    monkeypatch.setattr(
        http_module, "time", SimpleNamespace(sleep=time.sleep, perf_counter=time.perf_counter, time=wall.time)
    )
    client = trusting.test_client()
    client.post("/v1/basket/recipes", json=ADD, headers=shopper_headers)
    unqueued = deadline_told(upstream, wall.now)
    upstream.calls.reset()
    waited = {REQUEST_START_HEADER: f"t={wall.now - 2.5:.3f}"}
    client.post("/v1/basket/recipes", json=ADD, headers={**shopper_headers, **waited})
    queued = deadline_told(upstream, wall.now)
    # Unqueued: the read timeout (3 s), under the 4 s budget. After 2.5 s in the queue: the 1.5 s left of the budget.
    # Exact, but for the header's whole milliseconds.
    assert (round(unqueued, 2), round(queued, 2)) == (3.0, 1.5)


def test_a_fragment_that_waited_its_whole_budget_is_shed(trusting: Flask, caplog: pytest.LogCaptureFixture) -> None:
    before, upstream_before = queued_answers(), card_answers("upstream")
    with caplog.at_level(logging.INFO):
        response = trusting.test_client().get(CARD, headers={**HEADERS, **stamp(1.0)})  # the budget is 0.8 s
    assert response.status_code == 200 and response.get_data() == b""  # nothing cached: the empty card
    assert response.headers["X-Degraded"] == "shed"
    assert response.headers["Cache-Control"] == "private, no-store"
    # Told apart from a full worker: its own reason in the metric, and the wait in the request's log line.
    assert queued_answers() == before + 1
    (line,) = [record for record in caplog.records if record.name == "prerender.request"]
    assert 1000 <= line.queued_ms < 60_000
    # Counted once, for its wait: not as an upstream failure too (an alert on `upstream` would fire on a queue),
    # and no error line for the upstream call it was given no time to make.
    assert card_answers("upstream") == upstream_before
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_write_that_waited_its_whole_budget_is_refused_unsent(
    trusting: Flask, shopper_headers: dict[str, str], upstream: responses.RequestsMock
) -> None:
    response = trusting.test_client().post("/v1/basket/recipes", json=ADD, headers={**shopper_headers, **stamp(5)})
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert response.mimetype == "application/problem+json"
    assert not upstream.calls  # nothing was sent: the SDK resends it with its key


def not_shed(app: Flask, headers: dict[str, str]) -> bool:
    """Whether the card was rendered (here from an upstream that is down: `X-Degraded: upstream`), not shed."""
    response = app.test_client().get(CARD, headers={**HEADERS, **headers})
    return response.status_code == 200 and response.headers.get("X-Degraded") != "shed"


def test_a_stamp_is_ignored_unless_trusted(app_config: dict) -> None:
    assert not_shed(create_app({**app_config, "TRUST_REQUEST_START": False}), stamp(1.0))


@pytest.mark.parametrize(
    "stamped",
    [
        pytest.param(lambda: stamp(-30), id="from the future"),
        pytest.param(lambda: stamp(120), id="too old to be a queue"),
        pytest.param(lambda: {REQUEST_START_HEADER: "t=soon"}, id="not a time"),
    ],
)
def test_a_stamp_not_to_be_believed_is_ignored(trusting: Flask, stamped: Callable[[], dict[str, str]]) -> None:
    assert not_shed(trusting, stamped())  # stamped when the test runs, not when it was collected


def test_a_request_shed_for_its_wait_is_not_counted_in_progress(trusting: Flask) -> None:
    trusting.test_client().get(CARD, headers={**HEADERS, **stamp(1.0)})
    assert trusting.extensions[ADMISSION_KEY].in_progress == 0

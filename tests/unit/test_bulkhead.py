"""The per-resource bulkhead: a bounded number of upstream calls in flight, a bounded wait, then shedding."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
import responses

from prerender.gateway import Resource, Shed, deadline
from prerender.gateway.bulkhead import QUIET_SECONDS, Bulkhead
from tests.clock import FakeClock
from tests.unit.guards import upstream_http

BASE = "http://upstream.test"


@pytest.fixture
def held() -> Iterator[tuple[Bulkhead, threading.Event]]:
    """A bulkhead of one place, taken by a thread until the event is set."""
    bulkhead = Bulkhead(name="recipes", limit=1, queue=1)
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with bulkhead.place(wait=0):
            taken.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(5)
    yield bulkhead, release
    release.set()
    thread.join()


def test_a_call_without_time_to_wait_is_shed_at_once(held):
    bulkhead, _ = held
    with pytest.raises(Shed, match="too many calls in flight to recipes"), bulkhead.place(wait=0):
        pytest.fail("no place was free")
    assert bulkhead.in_flight == 1 and bulkhead.waiting == 0


def test_a_waiting_call_gets_the_place_once_it_is_freed(held):
    bulkhead, release = held
    threading.Timer(0.05, release.set).start()
    with bulkhead.place(wait=5):
        assert bulkhead.in_flight == 1
    assert bulkhead.in_flight == 0


def test_calls_beyond_the_queue_are_shed_without_waiting(held):
    bulkhead, release = held
    waiting = threading.Event()
    outcome: list[str] = []

    def wait_in_queue() -> None:
        waiting.set()
        with bulkhead.place(wait=5):
            outcome.append("served")

    queued = threading.Thread(target=wait_in_queue)
    queued.start()
    assert waiting.wait(5)
    for _ in range(100):  # until the queued call is counted as waiting (bounded)
        if bulkhead.waiting == 1:
            break
        threading.Event().wait(0.01)
    with pytest.raises(Shed), bulkhead.place(wait=5):  # the queue (1) is full: no wait at all
        pytest.fail("no place was free")
    release.set()
    queued.join(5)
    assert outcome == ["served"]


def test_a_wait_ends_with_a_shed_when_no_place_frees_in_time(held):
    bulkhead, _ = held
    with pytest.raises(Shed), bulkhead.place(wait=0.05):
        pytest.fail("no place was free")
    assert bulkhead.waiting == 0


@responses.activate
def test_a_shed_call_is_not_sent_and_is_no_evidence_for_the_breaker():
    http = upstream_http(BASE, calls_in_flight=1, queued_calls=0, minimum_calls=1)
    responses.get(f"{BASE}/api/v1/basket", json={})
    guard = http.guards[Resource.BASKETS]
    with guard.bulkhead.place(wait=0), deadline.budget(0.5), pytest.raises(Shed):
        http.request("GET", "/api/v1/basket", resource=Resource.BASKETS, name="basket", headers={}, idempotent=True)
    assert len(responses.calls) == 0
    assert guard.breaker.counts() == (0, 0)
    # Another resource's bulkhead is its own.
    http.request("GET", "/api/v1/basket", resource=Resource.RECIPES, name="x", headers={}, idempotent=True)
    assert len(responses.calls) == 1


def test_shedding_is_said_when_it_starts_and_once_it_has_stopped_for_a_while(caplog: pytest.LogCaptureFixture):
    # Two lines for a steady overload, however many calls get a place between the shed ones.
    clock = FakeClock()
    bulkhead = Bulkhead(name="test-recipes", limit=1, queue=0, clock=clock)
    caplog.set_level(logging.INFO, logger="prerender.gateway.bulkhead")
    for _ in range(5):  # a call holds the place, two are shed, then it goes
        with bulkhead.place(wait=0):
            for _ in range(2):
                with pytest.raises(Shed), bulkhead.place(wait=0):
                    pytest.fail("no place was free")
        clock.now += 1
    assert [r.getMessage() for r in caplog.records] == [
        "bulkhead for test-recipes full (1 calls in flight, 0 waiting): shedding calls"
    ]
    clock.now += QUIET_SECONDS
    with bulkhead.place(wait=0):
        pass
    with bulkhead.place(wait=0):
        pass
    assert [(r.levelname, r.getMessage()) for r in caplog.records][1:] == [
        ("WARNING", "bulkhead for test-recipes: calls go through again, none shed for 10 s (10 shed before)")
    ]

"""The request's upstream time budget (prerender/gateway/deadline.py, prerender/web/upstream_budget.py): every
call is cut to what is left, a call is not sent once the budget is spent, retries need time left, the gateway's
pool inherits the budget, and each route gets the budget of its kind. No timing is asserted: what is checked is
what the calls are given and what the routes answer. A hung upstream is a real socket that accepts and never
answers (fault injection)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import requests
import responses

from prerender import create_app
from prerender.gateway import UpstreamHttp, UpstreamStatusError, UpstreamTimeout, deadline
from prerender.gateway import http as http_module
from prerender.gateway.breaker import CLOSED, OPEN
from prerender.gateway.errors import BudgetSpent
from prerender.gateway.http import DEADLINE_HEADER, RETRY_PAUSE_SECONDS
from prerender.web.contract import contract_of
from prerender.web.upstream_budget import budget_of
from tests.clock import FakeClock, WallClock
from tests.conftest import HEADERS, TEST_SECRET_KEY
from tests.unit.guards import RESOURCE, guards, tenant_breaker

BASE = "http://upstream.test"


@pytest.fixture
def hung_upstream() -> Iterator[str]:
    """An upstream that accepts connections and never answers (a stuck load balancer)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def http_to(base_url: str, *, read_timeout: float = 3.0, retries: int = 1) -> UpstreamHttp:
    return UpstreamHttp(
        base_url=base_url,
        connect_timeout=0.5,
        read_timeout=read_timeout,
        retries=retries,
        pool_size=2,
        guards=guards(),
    )


def record_timeouts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The `timeout` of every request the upstream sessions send."""
    seen: list[Any] = []
    real = requests.Session.request

    def recording(self: requests.Session, method: str, url: str, **kwargs: Any) -> Any:
        seen.append(kwargs.get("timeout"))
        return real(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", recording)
    return seen


@pytest.fixture
def budget_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The budget's clock, standing still until the test moves it: a call gets the whole of a short budget whatever
    the machine's load before it is sent (on a busy machine, 0.1 s could be spent before the first attempt, which
    then is never sent). A hung socket's wait is still real: the attempt's timeout, cut to the budget, ends it."""
    clock = FakeClock()
    monkeypatch.setattr(deadline, "time", clock)  # prerender/gateway/deadline.py reads `time.monotonic()`
    return clock


def test_a_timeout_after_a_fair_wait_counts_as_a_failure_for_the_breaker(hung_upstream, budget_clock):
    http = http_to(hung_upstream)
    http.guards = guards(minimum_calls=1, slow_call_seconds=0.05)  # one counted failure opens it
    with deadline.budget(0.1), pytest.raises(UpstreamTimeout):
        http.request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
    assert tenant_breaker(http.guards).state == OPEN


def test_a_call_its_own_budget_cut_short_is_no_evidence_against_the_upstream(hung_upstream, budget_clock):
    """A call left 0.1 s by its request's budget (read timeout 3 s, fair wait 0.5 s) that times out says nothing of
    the upstream: the window stays empty."""
    http = http_to(hung_upstream)
    http.guards = guards(minimum_calls=1, slow_call_seconds=0.5)
    with deadline.budget(0.1), pytest.raises(UpstreamTimeout):
        http.request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
    breaker = tenant_breaker(http.guards)
    assert breaker.state == CLOSED and breaker.counts() == (0, 0)
    assert http.guards[RESOURCE].breaker.counts() == (0, 0)  # nor for the shared one


def test_a_call_waits_at_most_what_is_left_of_the_budget(hung_upstream, monkeypatch, budget_clock):
    timeouts = record_timeouts(monkeypatch)
    http = http_to(hung_upstream)
    with deadline.budget(0.2), pytest.raises(UpstreamTimeout):
        http.request("GET", "/api/v1/recipes/1", resource=RESOURCE, name="recipe", headers={}, idempotent=True)
    assert len(timeouts) == 1  # a read timeout is never retried, and no time is left anyway
    connect, read = timeouts[0]
    assert (connect, read) == pytest.approx((0.2, 0.2))  # the budget's 0.2 s, under the configured 0.5 and 3 s


def test_without_a_budget_the_configured_timeouts_apply(monkeypatch):
    timeouts = record_timeouts(monkeypatch)
    with responses.RequestsMock() as mocked:
        mocked.get(f"{BASE}/x", json={})
        http_to(BASE).request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
    assert timeouts == [(0.5, 3.0)]


def test_nothing_is_sent_once_the_budget_is_spent_and_the_breaker_does_not_count_it(monkeypatch):
    timeouts = record_timeouts(monkeypatch)
    http = http_to(BASE)
    http.guards = guards(minimum_calls=1)  # one counted failure would open it
    with deadline.budget(0), pytest.raises(BudgetSpent):
        http.request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
    assert timeouts == []
    assert tenant_breaker(http.guards).counts() == (0, 0)
    assert http.guards[RESOURCE].breaker.counts() == (0, 0)


def test_retries_happen_within_the_budget():
    with responses.RequestsMock() as mocked:
        mocked.get(f"{BASE}/x", status=503)
        mocked.get(f"{BASE}/x", json={"ok": True})
        with deadline.budget(5):
            assert http_to(BASE).request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True) == {
                "ok": True
            }
        assert len(mocked.calls) == 2


def a_503_taking(clock: FakeClock, seconds: float) -> Callable[[Any], tuple[int, dict[str, str], str]]:
    """A responses callback: a 503 that takes `seconds` of the budget's clock."""

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        clock.now += seconds
        return 503, {}, ""

    return answer


def test_no_retry_without_time_for_it(budget_clock: FakeClock):
    """The first attempt's 503 comes when less is left of the budget than a pause and another attempt need: it
    is the answer. The test's clock says so, not the machine's: the 503 takes 0.95 s of a 1 s budget."""

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.add_callback(responses.GET, f"{BASE}/x", callback=a_503_taking(budget_clock, 0.95))
        mocked.get(f"{BASE}/x", json={"ok": True})  # what a retry would get
        with deadline.budget(1), pytest.raises(UpstreamStatusError):
            http_to(BASE).request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
        assert len(mocked.calls) == 1


def test_a_retry_with_time_for_it(budget_clock: FakeClock):
    """The same 503 with time left for a pause and another attempt: the retry's answer."""

    with responses.RequestsMock() as mocked:
        mocked.add_callback(responses.GET, f"{BASE}/x", callback=a_503_taking(budget_clock, 0.5))
        mocked.get(f"{BASE}/x", json={"ok": True})
        with deadline.budget(1):
            assert http_to(BASE).request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True) == {
                "ok": True
            }
        assert len(mocked.calls) == 2


def test_writes_are_not_retried_within_a_budget():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.post(f"{BASE}/x", status=503)
        with deadline.budget(5), pytest.raises(UpstreamStatusError):
            http_to(BASE).request("POST", "/x", resource=RESOURCE, name="x", headers={}, json={}, idempotent=False)
        assert len(mocked.calls) == 1


def test_the_gateways_pool_runs_calls_under_the_callers_budget(app):
    calls = app.extensions["prerender.upstream"].concurrent
    with deadline.budget(5):
        left = calls.start(deadline.remaining).result()
    assert left is not None and 0 < left <= 5
    assert calls.start(deadline.remaining).result() is None


@pytest.mark.parametrize(
    ("endpoint", "kind"),
    [
        ("v1.recipe_card.get_card", "UPSTREAM_FRAGMENT_BUDGET"),
        ("v1.multiple.post_multiple", "UPSTREAM_FRAGMENT_BUDGET"),
        ("v1.cta.get_cta", "UPSTREAM_FRAGMENT_BUDGET"),
        ("v1.recipe_details.get_details", "UPSTREAM_FRAGMENT_BUDGET"),
        ("v2.planner.current_menu_page", "UPSTREAM_FRAGMENT_BUDGET"),
        ("v1.basket.add_recipe", "UPSTREAM_JSON_BUDGET"),
        ("v1.likes.like", "UPSTREAM_JSON_BUDGET"),
        ("v1.payments.handle_payment", "UPSTREAM_JSON_BUDGET"),
    ],
)
def test_each_route_gets_the_budget_of_its_kind(app, endpoint, kind):
    with app.app_context():
        contract = contract_of(app.view_functions[endpoint])
        assert contract is not None
        assert budget_of(contract) == app.config[kind]


def test_a_card_from_a_hung_upstream_is_the_documented_empty_answer(hung_upstream):
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEYS": [TEST_SECRET_KEY],
            "UPSTREAM_URL": hung_upstream,
            "UPSTREAM_FRAGMENT_BUDGET": 0.3,
        }
    )
    answer = app.test_client().get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=HEADERS)
    assert answer.status_code == 200
    assert answer.get_data(as_text=True) == ""
    assert "private" in answer.headers["Cache-Control"]


def test_each_attempt_tells_the_upstream_when_it_stops_waiting(budget_clock: FakeClock, monkeypatch):
    """Within a budget, an attempt says when prerender stops waiting for its answer (now plus its read timeout, cut
    to what is left), as a Unix time in milliseconds: coreapi rolls back a write it could not commit by then
    (coreapi/blueprints/writes.py). The retry, with less left, says sooner. Without a budget, nothing is said."""

    # Both clocks stand still but for what the test moves: the 503's 0.5 s of the budget and the retry's pause. The
    # machine's own time between the two attempts (a busy CI runner) would otherwise move the second deadline.
    wall = WallClock()

    def pause(seconds: float) -> None:
        budget_clock.now += seconds
        wall.now += seconds

    monkeypatch.setattr(
        http_module, "time", SimpleNamespace(sleep=pause, perf_counter=time.perf_counter, time=wall.time)
    )
    with responses.RequestsMock() as mocked:
        mocked.add_callback(responses.POST, f"{BASE}/x", callback=a_503_taking(budget_clock, 0.5))
        mocked.post(f"{BASE}/x", json={"ok": True})
        with deadline.budget(2):
            http_to(BASE).request("POST", "/x", resource=RESOURCE, name="x", headers={}, json={}, idempotent=True)
        said = [int(call.request.headers[DEADLINE_HEADER]) for call in mocked.calls]
    # The first attempt, sent at the call: 2 s later (the budget, under the 3 s read timeout). The retry, sent after
    # the pause (0.05 s) with 1.45 s left of the budget (the 503 took 0.5 s of it): 1.5 s after the call. Exact, but
    # for the header's whole milliseconds.
    call = (wall.now - RETRY_PAUSE_SECONDS) * 1000
    assert [abs(at - call - expected) <= 1 for at, expected in zip(said, (2000, 1500), strict=True)] == [True, True], (
        said
    )
    with responses.RequestsMock() as mocked:
        mocked.get(f"{BASE}/x", json={})
        http_to(BASE).request("GET", "/x", resource=RESOURCE, name="x", headers={}, idempotent=True)
        assert DEADLINE_HEADER not in mocked.calls[0].request.headers


def test_a_retry_whose_pause_ran_past_the_budget_answers_the_attempt_made(budget_clock, monkeypatch):
    """The first attempt's 503 left time for a retry, but its pause ran long (a busy machine): the call's outcome
    is that 503, an attempt that was sent, never `BudgetSpent`, which says nothing was (a browser's 503 "not
    applied", prerender/web/errors.py)."""

    def long_pause(seconds: float) -> None:
        budget_clock.now += 5

    monkeypatch.setattr(
        http_module, "time", SimpleNamespace(sleep=long_pause, perf_counter=time.perf_counter, time=time.time)
    )
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.post(f"{BASE}/x", status=503)
        mocked.post(f"{BASE}/x", json={"ok": True})
        with deadline.budget(1), pytest.raises(UpstreamStatusError) as raised:
            http_to(BASE).request("POST", "/x", resource=RESOURCE, name="x", headers={}, json={}, idempotent=True)
        assert raised.value.status == 503 and not isinstance(raised.value, BudgetSpent)
        assert len(mocked.calls) == 1

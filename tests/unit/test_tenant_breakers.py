"""One retailer's failures open its own breakers (prerender/gateway/tenant_breakers.py): a breaker per (resource,
tenant), keyed without a token in clear and bounded in number; the resource's shared breaker counts a failure only
when two tenants fail within its window; a tenant takes at most half of a resource's bulkhead. The calls go through
the production HTTP client to a fake upstream (`responses`) that fails for one supplier only."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import responses
from prometheus_client import REGISTRY

from prerender.gateway import CallerIdentity, CircuitOpen, Resource, Shed, UpstreamHttp, UpstreamStatusError, contention
from prerender.gateway.breaker import CLOSED, HALF_OPEN, OPEN, BreakerPolicy
from prerender.gateway.bulkhead import Bulkhead
from prerender.gateway.contention import CONTENDED_SECONDS
from prerender.gateway.tenant_breakers import (
    NO_TENANT,
    TENANTS_PER_RESOURCE,
    TenantBreakers,
    tenant_key,
    tenant_of_headers,
)
from tests.clock import FakeClock
from tests.unit.guards import upstream_http

BASE = "http://upstream.test"
URL = f"{BASE}/api/v1/categories"
TOKEN = "acme-secret-supplier-token"
# Breakers that open at 50 % of failures once 4 calls are known in 10 s; open 10 s, then 2 probes.
POLICY = {"minimum_calls": 4, "window": 10, "cooldown": 10, "probes": 2}


def tenants_open(resource: str) -> float | None:
    return REGISTRY.get_sample_value("prerender_circuit_breaker_tenants_open", {"resource": resource})


@pytest.fixture
def failing_for() -> Iterator[set[str]]:
    """A fake upstream whose categories answer 503 to the suppliers (Supplier-Id) in the set, 200 to the others."""

    def answer(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        if request.headers.get("Supplier-Id") in failing:
            return 503, {}, '{"status": 503}'
        return 200, {}, "[]"

    failing: set[str] = set()
    responses.start()  # the module's default mock: `responses.calls` are the calls sent
    try:
        responses.add_callback(responses.GET, URL, callback=answer)
        yield failing
    finally:
        responses.stop()
        responses.reset()


def http_with(clock: FakeClock, **settings: Any) -> UpstreamHttp:
    return upstream_http(BASE, clock=clock, **{**POLICY, **settings})


def call(http: UpstreamHttp, supplier_id: str) -> None:
    """A catalog call made for `supplier_id`, as a browser's request makes it (service key and Supplier-Id)."""
    http.request(
        "GET",
        "/api/v1/categories",
        resource=Resource.CATALOG,
        name="categories",
        headers={"X-Service-Key": "k", "Supplier-Id": supplier_id},
        idempotent=True,
    )


def fail(http: UpstreamHttp, supplier_id: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(UpstreamStatusError):
            call(http, supplier_id)


# --- the tenant key ---------------------------------------------------------------------------------------------


def test_a_tenant_is_its_supplier_id_else_a_digest_of_its_token_never_the_token():
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()[:16]
    assert tenant_key("7", TOKEN) == "id:7"  # the token resolved: its supplier
    assert tenant_key(None, TOKEN) == f"token:{digest}"  # the supplier lookup: the token only, digested
    assert TOKEN not in tenant_key(None, TOKEN)
    assert tenant_key(None, None) == NO_TENANT == "none"
    assert tenant_of_headers({"Supplier-Token": TOKEN, "X-Request-Id": "r"}) == f"token:{digest}"
    assert tenant_of_headers({"X-Service-Key": "k", "Supplier-Id": "7"}) == "id:7"
    assert tenant_of_headers({}) == NO_TENANT
    identity = CallerIdentity(
        authorization=None,
        supplier_token=TOKEN,
        supplier_id="7",
        language="fr",
        session_id=None,
        profiling=False,
        request_id="r",
    )
    assert identity.tenant == "id:7" and TOKEN not in repr(identity)


@responses.activate
def test_a_lookup_by_token_is_counted_for_the_tokens_digest_and_its_log_never_shows_the_token(caplog):
    clock = FakeClock()
    http = http_with(clock)
    responses.get(f"{BASE}/api/v1/suppliers/me", status=503)
    caplog.set_level(logging.INFO, logger="prerender.gateway.breaker")
    for _ in range(4):
        with pytest.raises(UpstreamStatusError):
            http.request(
                "GET",
                "/api/v1/suppliers/me",
                resource=Resource.SUPPLIERS,
                name="supplier",
                headers={"Supplier-Token": TOKEN},
                idempotent=True,
            )
    key = tenant_key(None, TOKEN)
    assert http.guards[Resource.SUPPLIERS].breakers.of(key).state == OPEN
    opened = [r.getMessage() for r in caplog.records if "opened" in r.getMessage()]
    assert opened == [
        f"circuit for suppliers (tenant {key}) opened (4 of its last 4 calls failed): calls refused for 10 s"
    ]
    assert all(TOKEN not in r.getMessage() for r in caplog.records)


# --- isolation --------------------------------------------------------------------------------------------------


def test_one_retailers_failures_open_its_own_breaker_and_the_others_calls_go_on(failing_for):
    """The outside check's case: retailer 1's catalog answers 503 for it alone. Its breaker opens and refuses its
    calls without sending them; retailer 2's calls are still sent and answered; the shared breaker stays closed."""
    http = http_with(FakeClock())
    failing_for.add("1")
    for _ in range(6):  # the other retailer's traffic goes on meanwhile
        call(http, "2")
    fail(http, "1", 4)
    breakers = http.guards[Resource.CATALOG].breakers
    assert breakers.of("id:1").state == OPEN
    sent = len(responses.calls)
    with pytest.raises(CircuitOpen, match="circuit open for catalog"):
        call(http, "1")
    assert len(responses.calls) == sent  # refused: not sent
    for _ in range(10):
        call(http, "2")
    assert len(responses.calls) == sent + 10
    assert breakers.of("id:2").state == CLOSED
    assert breakers.shared.state == CLOSED and breakers.shared.counts() == (16, 0)
    assert http.guards.states()["catalog"] == CLOSED  # what /healthz and /readyz show
    assert tenants_open("catalog") == 1


def test_a_whole_upstream_outage_with_one_tenant_opens_that_tenants_breaker(failing_for):
    """A deployment of one retailer: the shared breaker never counts one tenant's failures, so the retailer's own
    breaker is what opens on a whole-upstream outage, as the resource's one breaker did, and its calls are refused
    unsent until the cooldown's probes pass."""
    clock = FakeClock()
    http = http_with(clock)
    failing_for.add("1")
    fail(http, "1", 4)
    breaker = http.guards[Resource.CATALOG].breakers.of("id:1")
    assert breaker.state == OPEN
    sent = len(responses.calls)
    for _ in range(5):
        with pytest.raises(CircuitOpen):
            call(http, "1")
    assert len(responses.calls) == sent
    failing_for.clear()  # the upstream is back
    clock.now += 10
    assert breaker.state == HALF_OPEN
    call(http, "1")
    call(http, "1")  # the two probes pass
    assert breaker.state == CLOSED and tenants_open("catalog") == 0


# --- the shared breaker's rule ----------------------------------------------------------------------------------


def test_the_shared_breaker_counts_failures_once_two_tenants_fail_within_its_window(failing_for):
    """One failing tenant never opens the shared breaker however long it fails (its failures are no evidence for it);
    once a second tenant fails within the window the failures count, and the shared breaker, open, refuses every
    tenant, a third one that never failed too: a whole-upstream outage."""
    clock = FakeClock()
    http = http_with(clock, minimum_calls=6)
    shared = http.guards[Resource.CATALOG].breakers.shared
    failing_for.add("1")
    fail(http, "1", 5)
    assert shared.counts() == (0, 0)  # one tenant: nothing counted
    clock.now += 10  # tenant 1's failures leave the window
    failing_for.clear()
    failing_for.add("2")
    fail(http, "2", 5)
    assert shared.counts() == (0, 0)  # one tenant again: 1's failures are older than the window
    failing_for.add("3")
    fail(http, "3", 3)  # a second tenant within the window: from now on, failures count
    assert shared.counts() == (3, 3) and shared.state == CLOSED
    failing_for.add("4")
    fail(http, "4", 3)
    assert shared.state == OPEN
    sent = len(responses.calls)
    with pytest.raises(CircuitOpen):
        call(http, "5")  # a tenant that never failed: refused unsent, by the shared breaker
    assert len(responses.calls) == sent
    assert http.guards[Resource.CATALOG].breakers.of("id:5").state == CLOSED


def test_a_shared_refusal_leaves_the_tenants_probe_to_the_next_caller():
    """A tenant's probe refused by the open shared breaker was not sent: its place goes to the next caller."""
    clock = FakeClock()
    breakers = TenantBreakers(name="test-probe", policy=BreakerPolicy(**POLICY, failure_rate=0.5), clock=clock)
    own = breakers.of("id:1")
    for _ in range(4):
        own.record_failure(False)
    for _ in range(4):
        breakers.shared.record_failure(False)
    clock.now += 10
    breakers.shared.allow(), breakers.shared.allow()  # the shared breaker's two probes are out
    with pytest.raises(CircuitOpen):
        breakers.allow("id:1")
    assert own.allow() is True and own.allow() is True  # both of the tenant's probe places are free


# --- bounds -----------------------------------------------------------------------------------------------------


def test_made_up_tokens_cannot_grow_the_breakers_beyond_the_bound(failing_for):
    http = http_with(FakeClock())
    for n in range(TENANTS_PER_RESOURCE + 100):
        call(http, f"made-up-{n}")
    breakers = http.guards[Resource.CATALOG].breakers
    assert breakers.tenants() == TENANTS_PER_RESOURCE


def test_the_least_recently_used_closed_breaker_goes_first_and_an_open_one_stays():
    clock = FakeClock()
    breakers = TenantBreakers(name="test-lru", policy=BreakerPolicy(**POLICY), clock=clock, capacity=3)
    a, b = breakers.of("id:a"), breakers.of("id:b")
    for _ in range(4):
        a.record_failure(False)  # a opens
    breakers.of("id:c")
    assert a.state == OPEN and tenants_open("test-lru") == 1
    breakers.of("id:b")  # b used again: c is now the least recently used closed one
    breakers.of("id:d")
    assert breakers.tenants() == 3
    assert breakers.of("id:a") is a and breakers.of("id:b") is b  # kept: open, and used lately
    # c went: it comes back with a new breaker (and d, then least recently used and closed, went for it).
    assert breakers.tenants() == 3
    # None closed: the least recently used open one goes, and the gauge forgets it.
    for tenant in ("id:b", "id:c"):
        for _ in range(4):
            breakers.of(tenant).record_failure(False)
    assert tenants_open("test-lru") == 3
    breakers.of("id:e")
    assert tenants_open("test-lru") == 2 and breakers.tenants() == 3
    assert breakers.of("id:a") is not a  # a was the least recently used


# --- the bulkhead's share ---------------------------------------------------------------------------------------


@pytest.fixture
def holders() -> Iterator[list[threading.Event]]:
    """Threads that hold places until their event is set (all set at the end)."""
    releases: list[threading.Event] = []
    yield releases
    for release in releases:
        release.set()


def hold(bulkhead: Bulkhead, tenant: str, releases: list[threading.Event]) -> None:
    """A call for `tenant` that takes a place and holds it until released."""
    taken, release = threading.Event(), threading.Event()

    def run() -> None:
        with bulkhead.place(wait=0, tenant=tenant):
            taken.set()
            release.wait(5)

    threading.Thread(target=run, daemon=True).start()
    releases.append(release)
    assert taken.wait(5), "the place was not given"


def test_a_hung_tenant_holds_half_of_the_places_and_the_others_get_the_rest(holders):
    bulkhead = Bulkhead(name="test-share", limit=4, queue=8)
    assert bulkhead.share == 2
    with bulkhead.place(wait=0, tenant="id:9"):  # another tenant asked: the resource is contended
        pass
    hold(bulkhead, "id:1", holders)
    hold(bulkhead, "id:1", holders)
    with pytest.raises(Shed), bulkhead.place(wait=0, tenant="id:1"):  # its share is taken: shed, places free
        pytest.fail("a third place for one tenant")
    with pytest.raises(Shed), bulkhead.place(wait=0.05, tenant="id:1"):  # waiting does not give it one either
        pytest.fail("a third place for one tenant")
    assert bulkhead.in_flight == 2 and bulkhead.in_flight_for("id:1") == 2
    hold(bulkhead, "id:2", holders)
    with bulkhead.place(wait=0, tenant="id:3"):
        assert bulkhead.in_flight == 4
    holders[0].set()  # one of tenant 1's calls ends: its waiting call gets the place
    with bulkhead.place(wait=5, tenant="id:1"):
        assert bulkhead.in_flight_for("id:1") == 2
    assert min(Bulkhead(name="test-one", limit=1, queue=0).share, Bulkhead(name="x", limit=3, queue=0).share) == 1


def test_a_tenant_alone_takes_all_but_a_reserve_and_half_once_another_asks(holders):
    """A tenant alone (a deployment of one retailer) takes every place but a quarter; the reserve lets another
    tenant's first call through at once, after which the first tenant's calls are held to half until the other has
    not asked for CONTENDED_SECONDS."""
    clock = FakeClock()
    bulkhead = Bulkhead(name="test-solo", limit=16, queue=8, clock=clock)
    assert (bulkhead.share, bulkhead.solo_share, bulkhead.share_of("id:1")) == (8, 12, 12)
    for _ in range(12):
        hold(bulkhead, "id:1", holders)  # hung, alone: 12 places
    with pytest.raises(Shed), bulkhead.place(wait=0, tenant="id:1"):
        pytest.fail("a thirteenth place for a tenant alone")
    hold(bulkhead, "id:2", holders)  # another retailer's first call: a place of the reserve, at once
    assert bulkhead.share_of("id:1") == 8 and bulkhead.share_of("id:2") == 8
    for release in holders[:5]:
        release.set()  # five of tenant 1's calls end: it holds 7, under its contended share
    for _ in range(200):
        if bulkhead.in_flight_for("id:1") == 7:
            break
        threading.Event().wait(0.01)
    hold(bulkhead, "id:1", holders)  # its eighth place
    with pytest.raises(Shed), bulkhead.place(wait=0, tenant="id:1"):  # not a ninth, with places free
        pytest.fail("a ninth place for a contended tenant")
    assert bulkhead.in_flight == 9
    clock.now += CONTENDED_SECONDS  # tenant 2 has not asked since: tenant 1 is alone again
    assert bulkhead.share_of("id:1") == 12
    with bulkhead.place(wait=0, tenant="id:1"):
        assert bulkhead.in_flight_for("id:1") == 9
    assert [Bulkhead(name="x", limit=limit, queue=0).solo_share for limit in (1, 2, 3, 4, 32)] == [1, 1, 2, 3, 24]


def test_a_waiting_call_takes_a_place_once_the_contention_ends_with_none_freed(holders, monkeypatch):
    """The share grows back to `solo_share` with time, not at a freed place: a call of the contended tenant waiting
    for a place is woken then, not at the end of its wait."""
    monkeypatch.setattr(contention, "CONTENDED_SECONDS", 0.2)
    bulkhead = Bulkhead(name="test-uncontended", limit=4, queue=4)
    with bulkhead.place(wait=0, tenant="id:2"):  # another tenant asked: tenant 1 is held to 2 places
        pass
    hold(bulkhead, "id:1", holders)
    hold(bulkhead, "id:1", holders)
    got: list[str] = []

    def third() -> None:
        with bulkhead.place(wait=60, tenant="id:1"):
            got.append("placed")

    waiting = threading.Thread(target=third, daemon=True)
    waiting.start()
    waiting.join(3)  # before the holders end theirs (5 s): woken by the end of the contention (0.2 s)
    assert got == ["placed"] and not waiting.is_alive()


def test_a_waiting_call_of_another_tenant_takes_a_place_its_tenant_may_have(holders):
    """A freed place goes to a waiting call that may take it, not to one whose tenant holds its share."""
    bulkhead = Bulkhead(name="test-wake", limit=2, queue=4)
    hold(bulkhead, "id:1", holders)
    hold(bulkhead, "id:2", holders)
    got: list[str] = []

    def wait_for_place(tenant: str) -> None:
        try:
            with bulkhead.place(wait=2, tenant=tenant):
                got.append(tenant)
        except Shed:
            got.append(f"{tenant} shed")

    first = threading.Thread(target=wait_for_place, args=("id:2",))
    first.start()
    second = threading.Thread(target=wait_for_place, args=("id:3",))
    second.start()
    for _ in range(200):
        if bulkhead.waiting == 2:
            break
        threading.Event().wait(0.01)
    holders[0].set()  # tenant 1's place frees: tenant 2 holds its share (1 of 2), tenant 3 takes it
    second.join(5)
    assert got == ["id:3"]
    holders[1].set()
    first.join(5)
    assert got == ["id:3", "id:2"]


def test_one_tenants_hung_calls_leave_places_for_another_through_the_http_client(failing_for):
    """Through the HTTP client: the calls of tenant 1 hold half of the catalog's places; tenant 2's still go."""
    http = http_with(FakeClock(), calls_in_flight=2, queued_calls=0)
    bulkhead = http.guards[Resource.CATALOG].bulkhead
    with bulkhead.place(wait=0, tenant="id:1"):  # tenant 1's one place of two, hung
        with pytest.raises(Shed):
            call(http, "1")
        call(http, "2")
    assert [c.request.headers["Supplier-Id"] for c in responses.calls] == ["2"]

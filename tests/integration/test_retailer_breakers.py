"""One retailer's upstream failures open that retailer's breakers only (docs/decisions.md, "One retailer's failures
open its own breakers"): against the live coreapi, behind the fault proxy (tests/faulty_upstream.py), whose recipes
answer 503 to one retailer's calls alone (`for_supplier`), as when a catalog fails for one supplier. The outside
check of a multi-retailer deployment saw that retailer open the recipes' breaker for everybody: every other
retailer's cards came empty. On both stacks."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from flask import Flask

from prerender import create_app
from prerender.gateway import Resource
from tests.faulty_upstream import FaultyUpstream, for_supplier, status

from .conftest import NOPERS, RETAILER, Upstream, get_card, headers
from .test_metrics import sample

RECIPES = "/api/v1/recipes"
# Retailer A (supplier 1) fails upstream; retailer B (supplier 2) does not.
A, B = RETAILER, NOPERS


@pytest.fixture
def app(app_config: dict, proxy: FaultyUpstream) -> Flask:
    """A prerender on the fault proxy whose breakers open at half of 4 calls, and stay open for the test."""
    return create_app(
        {
            **app_config,
            "UPSTREAM_URL": proxy.url,
            "UPSTREAM_BREAKER_MINIMUM_CALLS": 4,
            "UPSTREAM_BREAKER_FAILURE_RATE": 0.5,
            "UPSTREAM_BREAKER_COOLDOWN": 60,
        }
    )


def card(app: Flask, token: str, recipe_id: str):
    return get_card(app.test_client(), hdrs=headers(token=token), recipe_id=recipe_id, store_id="1001")


def title(response) -> str:
    element = BeautifulSoup(response.get_data(as_text=True), "html.parser").find(class_="svc-recipe-card__title")
    assert element is not None, response.get_data(as_text=True)
    return element.get_text(strip=True)


def recipe_reads(proxy: FaultyUpstream, recipe_id: str) -> int:
    """The reads of a recipe the proxy passed through to coreapi."""
    return sum(1 for call in proxy.passed if call.split("?")[0] == f"GET {RECIPES}/{recipe_id}")


def test_one_retailers_failures_open_its_breaker_and_another_retailers_cards_stay_fresh(
    app: Flask, proxy: FaultyUpstream, upstream: Upstream
) -> None:
    # Both retailers' pages work: their suppliers are known (and cached) before the fault.
    for token in (A, B):
        fresh = card(app, token, "1")
        assert fresh.status_code == 200 and "X-Degraded" not in fresh.headers
    proxy.faults[RECIPES] = for_supplier(status(503), token=A)

    # Retailer A's recipe reads fail: its cards degrade (no copy of these recipes yet: empty), until its breaker
    # opens and its next card is degraded without calling the upstream at all.
    for recipe_id in ("2", "3", "4", "5"):
        failing = card(app, A, recipe_id)
        assert failing.status_code == 200 and failing.headers["X-Degraded"] == "upstream"
    asked = len(proxy.failed)
    refused = card(app, A, "6")
    assert refused.headers["X-Degraded"] == "upstream"
    assert len(proxy.failed) == asked, "A's open breaker still called the upstream"

    # Retailer B's cards are fresh: read from coreapi (never seen before, so no cache served them), not degraded.
    for recipe_id in ("2", "3", "4", "5", "6", "7"):
        fresh = card(app, B, recipe_id)
        assert fresh.status_code == 200 and "X-Degraded" not in fresh.headers, recipe_id
        assert title(fresh) == upstream.recipe(recipe_id)["title"]
        assert recipe_reads(proxy, recipe_id) >= 1
    breakers = app.extensions["prerender.upstream"].http.guards[Resource.RECIPES].breakers
    assert breakers.of("id:1").state == "open" and breakers.of("id:2").state == "closed"
    assert breakers.shared.state == "closed"

    # The node stays ready, its shared breakers closed; the open tenant is counted, without naming it.
    client = app.test_client()
    metrics = client.get("/metrics").get_data(as_text=True)
    assert sample(metrics, "prerender_circuit_breaker_tenants_open", resource="recipes") == 1
    assert sample(metrics, "prerender_circuit_breaker_state", resource="recipes") == 0
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.get_json()["status"] == "ready" and ready.get_json()["upstream"]["recipes"] == "closed"

    # And A's own breaker still refuses A: the upstream is not asked for it.
    asked = len(proxy.failed)
    assert card(app, A, "7").headers["X-Degraded"] == "upstream"
    assert len(proxy.failed) == asked


def test_a_fault_for_one_supplier_lets_the_others_calls_through(app: Flask, proxy: FaultyUpstream) -> None:
    """The proxy's `for_supplier`: the faulted retailer's calls fail, any other's reach coreapi."""
    proxy.faults[RECIPES] = for_supplier(status(503), token=A)
    assert "X-Degraded" not in card(app, B, "8").headers
    assert recipe_reads(proxy, "8") == 1 and proxy.failed == []
    assert card(app, A, "8").headers["X-Degraded"] == "upstream"
    assert proxy.failed and all(path.startswith(f"{RECIPES}/8") for path in proxy.failed)

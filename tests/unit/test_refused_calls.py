"""What customers and browsers get when prerender refuses to call the upstream (an open circuit, a full bulkhead):
a browser's JSON route answers 503 with Retry-After and nothing is applied; a fragment degrades to its documented
empty answer. The unit app's upstream is a closed port; the guards are driven directly."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from prerender.gateway import Resource, get_upstream
from tests.conftest import HEADERS


def open_circuit(app: Flask, resource: Resource) -> None:
    with app.app_context():
        breaker = get_upstream().http.guards[resource].breaker
    for _ in range(breaker.policy.minimum_calls):
        breaker.record_failure(False)
    assert breaker.state == "open"


def test_a_browser_route_whose_resource_is_refused_answers_503_with_retry_after(
    app: Flask, client: FlaskClient, shopper_headers: dict[str, str]
) -> None:
    open_circuit(app, Resource.BASKETS)
    response = client.post(
        "/v1/basket/recipes",
        json={"recipe_id": "1", "store_id": "1001", "guests": 4},
        headers=shopper_headers,
    )
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
    cooldown = int(app.config["UPSTREAM_BREAKER_COOLDOWN"])
    assert 1 <= int(response.headers["Retry-After"]) <= cooldown
    assert "not being called" in response.get_json()["detail"]


def test_a_card_whose_resource_is_refused_is_the_empty_fragment(app: Flask, client: FlaskClient) -> None:
    open_circuit(app, Resource.RECIPES)
    response = client.get("/v1/recipe-card?recipe_id=1&store_id=1001", headers=HEADERS)
    assert response.status_code == 200 and response.get_data() == b""


def test_health_and_readiness_report_the_breakers_without_failing(app: Flask, client: FlaskClient) -> None:
    open_circuit(app, Resource.RECIPES)
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.get_json()["upstream"]["recipes"] == "open"
    assert health.get_json()["upstream"]["baskets"] == "closed"
    ready = client.get("/readyz")  # the upstream is a closed port, and a breaker is open: still ready
    assert ready.status_code == 200
    assert ready.get_json()["status"] == "ready" and ready.get_json()["checks"] == {"cache": "ok", "service_key": "ok"}
    assert ready.get_json()["upstream"]["recipes"] == "open"

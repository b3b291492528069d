"""A write the upstream asks to be sent again (its 409 with `Retry-After`: the same write still in progress, or held
up by another change to the same data and not applied) reaches the browser with its `Retry-After`, which the SDK
reads as "send it again, with its key" (prerender/static/sdk/http.js). A 409 that is the write's outcome (a payment
short of the total) has none."""

from __future__ import annotations

import json

from flask import Response

from prerender import create_app

from .conftest import browser_headers

IN_PROGRESS = {
    "type": "about:blank",
    "title": "Conflict",
    "status": 409,
    "detail": "A request with this Idempotency-Key is in progress; retry it in a moment.",
}


def in_progress() -> Response:
    """coreapi's answer to a retry that found its first attempt still running (coreapi/blueprints/writes.py)."""
    return Response(
        json.dumps(IN_PROGRESS), status=409, mimetype="application/problem+json", headers={"Retry-After": "1"}
    )


def test_a_write_in_progress_upstream_passes_on_its_retry_after(app_config, proxy):
    client = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    shopper = {**browser_headers(client, user="retry-after-user"), "Idempotency-Key": "retry-after-key-1"}
    proxy.faults["/api/v1/basket/recipes"] = in_progress
    answer = client.post(
        "/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=shopper
    )
    assert answer.status_code == 409 and answer.mimetype == "application/problem+json"
    assert answer.headers["Retry-After"] == "1"
    assert answer.get_json()["detail"] == IN_PROGRESS["detail"]


def test_a_write_whose_time_ran_out_before_it_was_sent_is_503_not_applied(app_config, client):
    """The request's budget spent before the call went out (waiting for a place in the bulkhead, say): nothing
    reached the upstream, so the browser hears "not applied, try again" (503, Retry-After), not the "outcome
    unknown" of a 504. The same write then applies once, with its key."""
    shopper = browser_headers(client, user="budget-spent-user")
    keyed = {**shopper, "Idempotency-Key": "budget-spent-key-1"}
    body = {"recipe_id": "2", "guests": 4, "store_id": "1001"}
    spent = create_app({**app_config, "UPSTREAM_JSON_BUDGET": 0.0}).test_client()
    answer = spent.post("/v1/basket/recipes", json=body, headers=keyed)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1", answer.get_json()
    assert "nothing was applied" in answer.get_json()["detail"]
    assert client.get("/v1/basket?store_id=1001", headers=shopper).get_json()["recipes"] == []
    assert client.post("/v1/basket/recipes", json=body, headers=keyed).status_code == 200

"""A write the upstream asks to be sent again (its 409 with `Retry-After`: the same write still in progress, or held
up by another change to the same data and not applied) reaches the browser with its `Retry-After`, which the SDK
reads as "send it again, with its key" (prerender/static/sdk/http.js). A 409 that is the write's outcome (a payment
short of the total) has none."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Response

from prerender import create_app

from .conftest import browser_headers


def coreapi_problem(status: int, title: str, detail: str) -> dict[str, Any]:
    """A problem body as coreapi writes it (coreapi/blueprints/writes.py)."""
    return {"type": "about:blank", "title": title, "status": status, "detail": detail}


def answering(problem: dict[str, Any], retry_after: str) -> Callable[[], Response]:
    """The fault proxy's answer: `problem` with its status and a `Retry-After`."""
    body = json.dumps(problem)
    return lambda: Response(
        body, status=problem["status"], mimetype="application/problem+json", headers={"Retry-After": retry_after}
    )


# A retry that found its first attempt still running.
IN_PROGRESS = coreapi_problem(
    409, "Conflict", "A request with this Idempotency-Key is in progress; retry it in a moment."
)
# A write that found no database connection in time, or ran past its deadline and was rolled back.
BUSY = coreapi_problem(503, "Service Unavailable", "The service is busy; nothing was done: retry in a moment.")
in_progress = answering(IN_PROGRESS, "1")
busy = answering(BUSY, "2")


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


def test_a_write_the_upstream_refuses_as_busy_is_a_503_with_its_retry_after(app_config, proxy):
    """Not the 502 of an upstream that failed: the browser hears coreapi's "nothing was done" and when to try
    again; sent again with its key once coreapi has room, the write applies once."""
    client = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    shopper = browser_headers(client, user="busy-upstream-user")
    keyed = {**shopper, "Idempotency-Key": "busy-upstream-key-1"}
    body = {"recipe_id": "1", "guests": 4, "store_id": "1001"}
    proxy.faults["/api/v1/basket/recipes"] = busy
    answer = client.post("/v1/basket/recipes", json=body, headers=keyed)
    assert answer.status_code == 503 and answer.mimetype == "application/problem+json"
    assert answer.headers["Retry-After"] == "2"
    assert BUSY["detail"] in answer.get_json()["detail"]
    del proxy.faults["/api/v1/basket/recipes"]
    assert client.get("/v1/basket?store_id=1001", headers=shopper).get_json()["recipes"] == []
    for _attempt in range(2):  # the retry with its key, then a second one: applied once
        assert client.post("/v1/basket/recipes", json=body, headers=keyed).status_code == 200
    assert len(client.get("/v1/basket?store_id=1001", headers=shopper).get_json()["recipes"]) == 1


def test_a_write_whose_time_ran_out_before_it_was_sent_is_503_not_applied(app_config, client):
    """The request's budget spent before the call went out (waiting for a place in the bulkhead, say): nothing
    reached the upstream, so the browser hears "not applied, try again" (503, Retry-After), not the "outcome
    unknown" of a 504. The same write then applies once, with its key."""
    shopper = browser_headers(client, user="budget-spent-user")
    keyed = {**shopper, "Idempotency-Key": "budget-spent-key-1"}
    body = {"recipe_id": "2", "guests": 4, "store_id": "1001"}
    spent_app = create_app(app_config)
    spent_app.config["UPSTREAM_JSON_BUDGET"] = 0.0  # spent at once (no setting may say 0: refused at start)
    spent = spent_app.test_client()
    answer = spent.post("/v1/basket/recipes", json=body, headers=keyed)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1", answer.get_json()
    assert "nothing was applied" in answer.get_json()["detail"]
    assert client.get("/v1/basket?store_id=1001", headers=shopper).get_json()["recipes"] == []
    assert client.post("/v1/basket/recipes", json=body, headers=keyed).status_code == 200

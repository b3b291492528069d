"""Overload shed at the door (prerender/web/admission.py): past the worker's limit of requests in progress, a
fragment answers at once from what is cached (else empty), marked and kept by no cache; a browser's JSON route
answers 503 with Retry-After before doing anything; health checks are never shed."""

from __future__ import annotations

import logging

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client import REGISTRY

from prerender import create_app
from prerender.web.admission import EXTENSION_KEY, Admission
from tests.conftest import HEADERS


@pytest.fixture
def full(app_config: dict) -> Flask:
    """An app whose worker is always at its limit (a limit no setting may give: 0 is refused at start)."""
    app = create_app(app_config)
    app.extensions[EXTENSION_KEY].limit = 0
    return app


def card_answers(reason: str) -> float:
    """The card's degraded answers of a reason so far (this process's metric)."""
    labels = {"endpoint": "v1.recipe_card.get_card", "reason": reason}
    return REGISTRY.get_sample_value("prerender_degraded_answers_total", labels) or 0.0


def test_a_fragment_past_the_limit_is_its_degraded_answer_at_once(
    full: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    shed, upstream = card_answers("shed"), card_answers("upstream")
    with caplog.at_level(logging.INFO):
        response = full.test_client().get("/v1/recipe-card?recipe_id=1&store_id=1001", headers=HEADERS)
    assert response.status_code == 200 and response.get_data() == b""  # nothing cached: the empty card
    assert response.headers["X-Degraded"] == "shed"
    assert response.headers["Cache-Control"] == "private, no-store" and "ETag" not in response.headers
    # One count, as shed: the upstream call it had no budget for is neither an upstream failure nor an error line.
    assert (card_answers("shed"), card_answers("upstream")) == (shed + 1, upstream)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_json_route_past_the_limit_is_503_with_retry_after(full: Flask, shopper_headers: dict[str, str]) -> None:
    client = full.test_client()
    response = client.post(
        "/v1/basket/recipes", json={"recipe_id": "1", "store_id": "1001", "guests": 4}, headers=shopper_headers
    )
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert response.mimetype == "application/problem+json"


def test_health_is_never_shed(full: Flask) -> None:
    client = full.test_client()
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200


def test_requests_in_progress_are_counted_and_released(app: Flask, client: FlaskClient) -> None:
    admission: Admission = app.extensions[EXTENSION_KEY]
    client.get("/v1/recipe-card?recipe_id=1&store_id=1001", headers=HEADERS)
    client.get("/v1/nope", headers=HEADERS)
    assert admission.in_progress == 0
    assert admission.enter() and admission.in_progress == 1
    admission.leave()


def test_the_limit_is_the_limit() -> None:
    admission = Admission(limit=2)
    assert admission.enter() and admission.enter()
    assert not admission.enter()
    admission.leave()
    assert admission.enter()

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
from prerender.gateway.contention import CONTENDED_SECONDS
from prerender.metrics import DEGRADED_ANSWERS
from prerender.web.admission import EXTENSION_KEY, UNVOUCHED_KEY, Admission
from tests.clock import FakeClock
from tests.conftest import HEADERS


@pytest.fixture
def full(app_config: dict) -> Flask:
    """An app whose worker is always at its limit (a limit no setting may give: 0 is refused at start)."""
    app = create_app(app_config)
    app.extensions[EXTENSION_KEY].limit = 0
    return app


def degraded_answers(endpoint: str, reason: str) -> float:
    """A route's degraded answers of a reason so far (this process's metric)."""
    labels = {"endpoint": endpoint, "reason": reason}
    return REGISTRY.get_sample_value("prerender_degraded_answers_total", labels) or 0.0


def upstream_calls() -> float:
    """Every upstream call counted so far, whatever its outcome (this process's metric)."""
    return sum(
        sample.value
        for metric in REGISTRY.collect()
        if metric.name == "prerender_upstream_calls"
        for sample in metric.samples
        if sample.name == "prerender_upstream_calls_total"
    )


# Fragments whose rendering asks the upstream for several parts (the supplier of the token first), each with the
# supplier-token: a shed request must attempt none of them.
SHED_FRAGMENTS = [
    ("GET", "/v1/recipe-card?recipe_id=1&store_id=1001", None, "v1.recipe_card.get_card"),
    (
        "POST",
        "/v1/recipe-card/multiple?store_id=1001",
        {"contexts": [{"productIds": ["100001", "100002"], "position": 1}]},
        "v1.multiple.post_multiple",
    ),
    ("GET", "/v2/catalog?store_id=1001", None, "v2.catalog.home"),
    ("GET", "/v1/no-supplier-add-to-cart-cta?recipe_id=ext-1", None, "v1.cta.get_cta"),
]


@pytest.mark.parametrize(
    ("method", "url", "body", "endpoint"), SHED_FRAGMENTS, ids=[endpoint for *_, endpoint in SHED_FRAGMENTS]
)
def test_a_fragment_past_the_limit_is_its_degraded_answer_at_once(
    full: Flask, caplog: pytest.LogCaptureFixture, method: str, url: str, body: dict | None, endpoint: str
) -> None:
    shed, upstream, calls = degraded_answers(endpoint, "shed"), degraded_answers(endpoint, "upstream"), upstream_calls()
    headers = {**HEADERS, "supplier-token": "token-1"}
    with caplog.at_level(logging.INFO):
        response = full.test_client().open(url, method=method, json=body, headers=headers)
    assert response.status_code == 200 and response.headers["X-Degraded"] == "shed", response.get_data()
    assert response.headers["Cache-Control"] == "private, no-store" and "ETag" not in response.headers
    # One count, as shed. The calls it had no budget for were not attempted: no call counted, no failure counted,
    # no error line; the request's own line says it was shed.
    assert (degraded_answers(endpoint, "shed"), degraded_answers(endpoint, "upstream")) == (shed + 1, upstream)
    assert upstream_calls() == calls
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING], caplog.text
    (line,) = [record for record in caplog.records if record.name == "prerender.request"]
    assert line.degraded == "shed"


def test_a_fragment_past_the_limit_answers_empty_without_a_cached_copy(full: Flask) -> None:
    response = full.test_client().get("/v1/recipe-card?recipe_id=1&store_id=1001", headers=HEADERS)
    assert response.status_code == 200 and response.get_data() == b""  # nothing cached: the empty card


def test_a_json_route_past_the_limit_is_503_with_retry_after(full: Flask, shopper_headers: dict[str, str]) -> None:
    client = full.test_client()
    response = client.post(
        "/v1/basket/recipes", json={"recipe_id": "1", "store_id": "1001", "guests": 4}, headers=shopper_headers
    )
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/openapi.json"])
def test_routes_outside_the_versions_are_never_shed(full: Flask, path: str) -> None:
    # Whole, not merely 200: a probe's answer is not a degraded one, nor counted as shed (the rate to alert on).
    before = degraded_count(full, path)
    response = full.test_client().get(path)
    assert response.status_code == 200
    # (The probes' and /metrics' own policy is no-store, prerender/blueprints/health.py: not a sign of shedding.)
    assert "X-Degraded" not in response.headers
    if path == "/openapi.json":
        assert "no-store" not in response.headers.get("Cache-Control", "")
    assert degraded_count(full, path) == before


def degraded_count(app: Flask, path: str) -> float:
    """The degraded answers counted for the route of `path`, any reason."""
    endpoint = app.url_map.bind("localhost").match(path)[0]
    return sum(
        sample.value
        for metric in DEGRADED_ANSWERS.collect()
        for sample in metric.samples
        if sample.name.endswith("_total") and sample.labels.get("endpoint") == endpoint
    )


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


# --- requests no supplier vouches for ---------------------------------------------------------------------


@pytest.fixture
def unvouched_full(app_config: dict) -> Flask:
    """An app whose share for requests without a known supplier is always taken."""
    app = create_app(app_config)
    app.extensions[UNVOUCHED_KEY].limit = 0
    return app


def test_a_request_without_a_supplier_token_past_its_share_is_shed(unvouched_full: Flask) -> None:
    """Anyone may call without a supplier-token (the specification logs it): past their share such requests are
    shed as at the door, counted under their own reason, and make no upstream call."""
    endpoint = "v1.multiple.post_multiple"
    before, calls = degraded_answers(endpoint, "unvouched"), upstream_calls()
    headers = {name: value for name, value in HEADERS.items() if name != "supplier-token"}
    response = unvouched_full.test_client().post(
        "/v1/recipe-card/multiple?store_id=1001",
        json={"contexts": [{"productIds": ["100001", "100002"], "position": 1}]},
        headers=headers,
    )
    assert response.status_code == 200 and response.headers["X-Degraded"] == "shed", response.get_data()
    assert response.headers["Cache-Control"] == "private, no-store"
    assert degraded_answers(endpoint, "unvouched") == before + 1
    assert upstream_calls() == calls


def test_a_token_that_could_not_be_checked_counts_as_none(unvouched_full: Flask) -> None:
    """The unit app's upstream is a closed port: the token's lookup fails, and without a last good copy of it (a
    customer's token keeps one a day) the request is one no supplier vouches for: made-up tokens that slow the
    lookups down must not be let through for it."""
    response = unvouched_full.test_client().get(
        "/v1/recipe-card?recipe_id=1&store_id=1001", headers={**HEADERS, "supplier-token": "made-up"}
    )
    assert response.status_code == 200 and response.headers["X-Degraded"] == "shed"


def test_a_json_route_without_a_supplier_answers_its_own_refusal(unvouched_full: Flask) -> None:
    """Not a "busy, try again" 503, which would send a misconfigured customer into a retry loop."""
    response = unvouched_full.test_client().get("/v1/generate-authless-token", headers=HEADERS)
    assert response.status_code == 401 and "Retry-After" not in response.headers


def test_the_share_is_taken_during_the_request_and_released(app: Flask) -> None:
    share: Admission = app.extensions[UNVOUCHED_KEY]
    assert share.limit == app.config["MAX_UNVOUCHED_REQUESTS_IN_PROGRESS"]
    with app.test_request_context("/v1/recipe-card?recipe_id=1&store_id=1001", headers=HEADERS):
        app.preprocess_request()
        assert share.in_progress == 1
    assert share.in_progress == 0


# --- a retailer's share of the worker's places ------------------------------------------------------------------


def test_a_retailer_alone_takes_every_place_and_half_once_another_asks() -> None:
    """A deployment of one retailer keeps the whole limit; once another retailer's fragment asked (admitted or not:
    the first one finds the worker full), the first is held to half, with places free, until its own requests end."""
    clock = FakeClock()
    admission = Admission(limit=4, clock=clock)
    assert [admission.refusal("token:a") for _ in range(4)] == [None] * 4  # alone: every place
    assert admission.refusal("token:b") == "shed"  # the worker is full: shed, and noted as asking
    admission.leave("token:a")
    assert admission.refusal("token:a") == "share"  # 3 held, its share 2 now: the freed place is not its
    assert admission.refusal("token:b") is None
    for _ in range(2):
        admission.leave("token:a")
    assert admission.refusal(None) is None  # a browser's JSON route: the worker's places only
    assert admission.refusal("token:a") is None  # its second of two
    admission.leave(None)
    assert admission.refusal("token:a") == "share"  # with a place free
    assert (admission.in_progress, admission.in_progress_for("token:a")) == (3, 2)
    clock.now += CONTENDED_SECONDS  # b has not asked since: a is alone again
    assert admission.refusal("token:a") is None and admission.in_progress_for("token:a") == 3


def test_a_token_not_seen_valid_makes_the_others_share_only_when_a_full_worker_sheds_it() -> None:
    """A made-up token while places are free leaves a retailer alone (anyone may send one); a newcomer's token,
    shed by a worker the first retailer fills, makes it share: the door cannot tell the two apart without a call,
    and the newcomer's first request must not wait for the end of the first's hang."""
    admission = Admission(limit=4, clock=FakeClock())
    assert [admission.refusal("id:1") for _ in range(2)] == [None, None]
    assert admission.refusal("token:made-up", vouched=False) is None  # admitted, the retailer not contended
    assert admission.refusal("id:1") is None and admission.in_progress_for("id:1") == 3  # past half: alone still
    assert admission.refusal("token:newcomer", vouched=False) == "shed"  # the worker is full
    admission.leave("id:1")
    assert admission.refusal("id:1") == "share"  # the newcomer asked: the freed place is not the retailer's
    assert admission.refusal("token:newcomer", vouched=False) is None

"""A retailer's share of a worker's places (prerender/web/admission.py) against the live coreapi: the door counts
a fragment for the supplier its token was seen valid for; a hung retailer's fragments leave places to another's,
and made-up tokens do not hold a retailer to half of them (docs/decisions.md, "Made-up tokens no longer halve a
retailer's places"). On both stacks."""

from __future__ import annotations

from flask import Flask
from prometheus_client import REGISTRY

from prerender import create_app
from prerender.gateway import get_upstream
from prerender.gateway.tenant_breakers import tenant_key
from prerender.web.admission import EXTENSION_KEY, Admission

from .conftest import NOPERS, RETAILER, headers

CARD = "/v1/recipe-card?recipe_id=1&store_id=1001"
ENDPOINT = "v1.recipe_card.get_card"
MADE_UP = "made-up-token-" + "z" * 24


def shed_for_share() -> float:
    """The cards shed so far for their retailer's share (this process's metric)."""
    return (
        REGISTRY.get_sample_value("prerender_degraded_answers_total", {"endpoint": ENDPOINT, "reason": "share"}) or 0.0
    )


def small_worker(app_config: dict) -> tuple[Flask, Admission]:
    """A worker of four places whose tokens of both demo retailers were looked up once (seen valid)."""
    app = create_app({**app_config, "MAX_REQUESTS_IN_PROGRESS": 4})
    client = app.test_client()
    for token in (RETAILER, NOPERS):
        assert client.get(CARD, headers=headers(token=token)).status_code == 200
    with app.app_context():
        assert get_upstream().suppliers.seen_supplier_id(RETAILER) == "1"
        assert get_upstream().suppliers.seen_supplier_id(MADE_UP) is None
    return app, app.extensions[EXTENSION_KEY]


def test_a_hung_retailer_s_fragments_leave_places_to_another_s(app_config: dict) -> None:
    """With one retailer's fragments holding half of a worker's places (as hung ones do, for their whole budget),
    another retailer's fragment is served, and the first's next one is shed as `share`, marked."""
    app, admission = small_worker(app_config)
    hung = tenant_key("1", None)  # the door counts a token seen valid for its supplier
    for _ in range(2):
        assert admission.enter(hung)
    client = app.test_client()
    before = shed_for_share()
    served = client.get(CARD, headers=headers(token=NOPERS))
    assert served.status_code == 200 and served.headers.get("X-Degraded") is None  # admitted, whole
    shed = client.get(CARD, headers=headers(token=RETAILER))
    assert shed.status_code == 200 and shed.headers["X-Degraded"] == "shed"
    assert shed_for_share() == before + 1
    assert admission.in_progress == 2 and admission.in_progress_for(hung) == 2


def test_made_up_tokens_do_not_hold_a_retailer_to_half_of_the_places(app_config: dict) -> None:
    """Anyone may send a made-up token. Counted at the door as a second retailer, it held the real one to half of
    a worker's places for 30 s; now only a full worker's shedding of it does (a newcomer's token looks the same)."""
    app, admission = small_worker(app_config)
    busy = tenant_key("1", None)
    for _ in range(2):
        assert admission.enter(busy)
    client = app.test_client()
    made_up = client.get(CARD, headers=headers(token=MADE_UP))
    assert made_up.status_code == 200  # admitted at the door; the guard finds no supplier for it
    before = shed_for_share()
    served = client.get(CARD, headers=headers(token=RETAILER))
    assert served.status_code == 200 and served.headers.get("X-Degraded") is None  # its third of four places
    assert shed_for_share() == before

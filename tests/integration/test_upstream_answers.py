"""The upstream's answers to the reads, checked against the schema of what the route documents
(prerender/web/upstream_answers.py): a basket or menu of another shape is an upstream failure. The browser's JSON
reads answer it as a 502 problem, never a 200 carrying it to the SDK; the pages drawn from it (the planner's
current-menu page, the basket preview) degrade as for any upstream failure, never a 500. A well-formed answer of
the live coreapi passes whole. Faults come from a proxy in front of the live coreapi (tests/faulty_upstream.py)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask, Response

from prerender import create_app
from prerender.rendering.i18n import TextCatalog
from prerender.schemas.menus import MenuSchema, MenuSuggestionsSchema
from prerender.schemas.responses import BasketSchema
from tests.faulty_upstream import MENUS, FaultyUpstream

from .conftest import RETAILER, browser_headers, fragment_headers, headers
from .test_planner_degrades import try_again

STORE = "1001"
FR = TextCatalog(overrides_dir=None).translator("fr")

BAD_BASKETS = [
    {"store_id": STORE, "recipes": "not a list"},
    {"store_id": STORE, "recipes": [{"recipe_id": "5", "guests": "four", "lines": []}]},
    {"store_id": STORE, "recipes": [{"recipe_id": "5", "guests": 4, "lines": [{"product_id": "1", "price": "cheap"}]}]},
    {"store_id": STORE, "recipes": [], "products": [{"id": "100001", "quantity": "two"}]},
    {"store_id": STORE, "recipes": [], "total": "a lot"},
]
BAD_MENUS = [
    {"id": "m1", "guests": "many", "recipes": []},
    {"id": "m1", "guests": 4, "recipes": 5},
    {"id": "m1", "guests": 4, "store_id": STORE, "budget": "big", "recipes": []},
    {"id": "m1", "guests": 4, "recipes": [{"id": "5", "position": "first"}]},
    {"id": "m1", "guests": 4, "recipes": [{"id": "5", "products": [{"id": "1", "quantity": "x"}]}]},
]
BAD_SUGGESTIONS = [{"data": 5}, {"data": [{"type": "main"}]}, {"data": ["5"]}]


@pytest.fixture
def app(app_config: dict[str, Any], proxy: FaultyUpstream) -> Flask:
    return create_app({**app_config, "UPSTREAM_URL": proxy.url})


def answering(body: object) -> Callable[[], Response]:
    """A 200 of the upstream with this JSON body."""
    return lambda: Response(json.dumps(body), mimetype="application/json")


def shopper() -> str:
    return f"answers-{uuid.uuid4().hex[:12]}"


def is_upstream_problem(answer: Any) -> bool:
    return answer.status_code == 502 and answer.mimetype == "application/problem+json"


# --- the browser's JSON reads ------------------------------------------------------------------------------


def test_well_formed_answers_of_the_live_upstream_pass_whole(app: Flask) -> None:
    client = app.test_client()
    user = browser_headers(client, user=shopper())
    added = client.post("/v2/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=user)
    assert added.status_code == 200, added.get_json()
    basket = client.get("/v2/basket", query_string={"store_id": STORE}, headers=user)
    assert basket.status_code == 200 and BasketSchema().validate(basket.get_json()) == {}
    assert basket.get_json()["recipes"][0]["lines"], "the lines came through"
    menu = client.get("/v2/menu/current", query_string={"store_id": STORE}, headers=user)
    assert menu.status_code == 200 and MenuSchema().validate(menu.get_json()) == {}
    suggested = client.get("/v2/menu/current/suggestions", query_string={"store_id": STORE}, headers=user)
    assert suggested.status_code == 200 and MenuSuggestionsSchema().validate(suggested.get_json()) == {}
    assert suggested.get_json()["data"]


@pytest.mark.parametrize("bad", BAD_BASKETS)
def test_a_basket_of_another_shape_is_a_502_problem(app: Flask, proxy: FaultyUpstream, bad: dict) -> None:
    client = app.test_client()
    user = browser_headers(client, user=shopper())
    proxy.faults["/api/v1/basket"] = answering(bad)
    answer = client.get("/v2/basket", query_string={"store_id": STORE}, headers=user)
    assert is_upstream_problem(answer), answer.get_data(as_text=True)
    assert proxy.failed == ["/api/v1/basket"]


@pytest.mark.parametrize("bad", BAD_MENUS)
def test_a_menu_of_another_shape_is_a_502_problem(app: Flask, proxy: FaultyUpstream, bad: dict) -> None:
    client = app.test_client()
    user = browser_headers(client, user=shopper())
    proxy.faults["/api/v1/menus/current"] = answering(bad)
    answer = client.get("/v2/menu/current", query_string={"store_id": STORE}, headers=user)
    assert is_upstream_problem(answer), answer.get_data(as_text=True)


@pytest.mark.parametrize("bad", BAD_SUGGESTIONS)
def test_suggestions_of_another_shape_are_a_502_problem(app: Flask, proxy: FaultyUpstream, bad: dict) -> None:
    client = app.test_client()
    user = browser_headers(client, user=shopper())
    proxy.faults["/api/v1/menus/current/suggestions"] = answering(bad)
    answer = client.get("/v2/menu/current/suggestions", query_string={"store_id": STORE}, headers=user)
    assert is_upstream_problem(answer), answer.get_data(as_text=True)


# --- the pages drawn from them ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_MENUS)
def test_the_planner_page_of_a_menu_of_another_shape_is_the_try_again_state(
    app: Flask, proxy: FaultyUpstream, bad: dict
) -> None:
    client = app.test_client()
    hdrs = fragment_headers(None, RETAILER, shopper())
    proxy.faults[MENUS] = answering(bad)
    try_again(client.get("/v2/planner/current-menu", query_string={"store_id": STORE}, headers=hdrs))


@pytest.mark.parametrize("bad", BAD_SUGGESTIONS)
def test_suggestions_of_another_shape_leave_the_menu_and_say_the_panel_failed(
    app: Flask, proxy: FaultyUpstream, bad: dict
) -> None:
    client = app.test_client()
    hdrs = fragment_headers(None, RETAILER, shopper())
    proxy.faults["/api/v1/menus/current/suggestions"] = answering(bad)
    answer = client.get("/v2/planner/current-menu", query_string={"store_id": STORE}, headers=hdrs)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    root = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-planner")
    assert isinstance(root, Tag) and not root.has_attr("retry")
    assert root.select(".svc-planner__menu"), "the menu is drawn"
    assert FR("PLANNER_PAGE.PANEL_FAILED") in root.get_text(" ", strip=True)


@pytest.mark.parametrize("bad", BAD_BASKETS)
def test_the_basket_preview_of_a_basket_of_another_shape_says_it_failed(
    app: Flask, proxy: FaultyUpstream, bad: dict
) -> None:
    client = app.test_client()
    proxy.faults["/api/v1/basket"] = answering(bad)
    answer = client.get(
        "/v2/catalog/my-space/basket-preview", query_string={"store_id": STORE}, headers=headers(user=shopper())
    )
    assert answer.status_code == 200 and answer.headers["X-Degraded"] == "upstream", answer.get_data(as_text=True)
    root = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-catalog")
    assert isinstance(root, Tag) and root.find(attrs={"data-role": "failed"}) is not None

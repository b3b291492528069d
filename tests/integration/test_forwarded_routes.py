"""The browser routes that forward a write to the upstream (prerender/web/forwarding.py), against the real coreapi
behind a fault-injecting proxy: every declared route reaches its upstream call and answers what the upstream
answered; an answer that does not match the route's schema is a 502 problem, never passed on to the browser; a
member the schema does not declare passes through (the upstream may add some before they are documented)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask, Response

from prerender import create_app
from prerender.web.forwarding import ForwardedRoute, forwarded_routes
from tests.faulty_upstream import FaultyUpstream

from .conftest import browser_headers

STORE = "1001"


@pytest.fixture
def app(app_config: dict[str, Any], proxy: FaultyUpstream) -> Flask:
    return create_app({**app_config, "UPSTREAM_URL": proxy.url})


def answering(body: object) -> Callable[[], Response]:
    """A 200 of the upstream with this JSON body."""
    return lambda: Response(json.dumps(body), mimetype="application/json")


def basket_change(**extra: object) -> dict[str, object]:
    basket = {"store_id": STORE, "recipes": [], "products": [], "recipe_count": 0, "total": 0, "currency": "EUR"}
    return {"basket": basket, "changes": [{"id": "100001", "quantity": 1}], **extra}


# One request per forwarded route (`<blueprint>.<endpoint>`): its URL below its API version, its body, and the
# path segments its upstream call gets.
RECIPE = {"recipe_id": "5"}
PRODUCT = {"recipe_id": "5", "product_id": "{product}"}  # a product of recipe 5 in the user's menu
REQUESTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, str]]] = {
    "basket.add_recipe": ("/basket/recipes", {"recipe_id": "5", "guests": 4, "store_id": STORE}, {}),
    "basket.rescale_recipe": ("/basket/recipes/5", {"guests": 2, "store_id": STORE}, RECIPE),
    "basket.remove_recipe": (f"/basket/recipes/5?store_id={STORE}", None, RECIPE),
    "basket.set_ingredient": (
        "/basket/recipes/5/ingredients/carotte",
        {"product_id": "100040", "quantity": 1, "store_id": STORE},
        {"recipe_id": "5", "ingredient_id": "carotte"},
    ),
    "basket.reconcile": ("/basket/reconcile", {"store_id": STORE, "cart": []}, {}),
    "basket.confirm": ("/basket/confirm", {"store_id": STORE, "total": 1000, "order_id": "forwarded-order"}, {}),
    "menu.update_menu": ("/menu/current", {"guests": 3}, {}),
    "menu.add_recipe": ("/menu/current/recipes", {"recipe_id": "7", "guests": 4}, {}),
    "menu.rescale_recipe": ("/menu/current/recipes/5", {"guests": 2}, RECIPE),
    "menu.swap_recipe": ("/menu/current/recipes/5/swap", {"recipe_id": "7"}, RECIPE),
    "menu.select_product": ("/menu/current/recipes/5/products/{product}", None, PRODUCT),
    "menu.unselect_product": ("/menu/current/recipes/5/products/{product}", None, PRODUCT),
    "menu.remove_recipe": ("/menu/current/recipes/5", None, RECIPE),
}
# Every forwarded route the service serves, wherever it is declared: what add_forwarded_route recorded on the app
# (`v2.basket.add_recipe`), by `<blueprint>.<endpoint>`, with the latest API version serving it.
SERVED = forwarded_routes(create_app({"TESTING": True}))
ROUTES: dict[str, tuple[str, ForwardedRoute]] = {
    endpoint.split(".", 1)[1]: (endpoint.split(".", 1)[0], route) for endpoint, route in sorted(SERVED.items())
}


def test_every_forwarded_route_has_its_request_here() -> None:
    missing, stale = sorted(ROUTES.keys() - REQUESTS.keys()), sorted(REQUESTS.keys() - ROUTES.keys())
    assert not missing, f"add a line to REQUESTS for each forwarded route the app serves: {missing}"
    assert not stale, f"REQUESTS names routes the app no longer serves: {stale}"


def test_the_routes_sent_are_the_app_s(app: Flask) -> None:
    """The record read at collection is the one of the app under test."""
    assert forwarded_routes(app).keys() == SERVED.keys()


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_a_forwarded_route_answers_what_its_upstream_call_answered(
    app: Flask, proxy: FaultyUpstream, name: str
) -> None:
    """Against the real coreapi, for a user with recipe 5 in the basket and in the menu at the store: the route
    makes its own upstream call and answers its answer, valid for the route's schema."""
    client = app.test_client()
    user = browser_headers(client, user=f"forwarded-{name}")
    added = client.post("/v2/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=user)
    assert added.status_code == 200
    assert client.get(f"/v2/menu/current?store_id={STORE}", headers=user).status_code == 200
    in_menu = client.post("/v2/menu/current/recipes", json={"recipe_id": "5", "guests": 4}, headers=user)
    assert in_menu.status_code == 200
    product = next(r for r in in_menu.get_json()["recipes"] if r["id"] == "5")["products"][0]["id"]
    proxy.passed.clear()
    version, route = ROUTES[name]
    url, body, segments = REQUESTS[name]
    url = url.replace("{product}", product)
    segments = {key: value.replace("{product}", product) for key, value in segments.items()}
    answer = client.open(f"/{version}{url}", method=route.call.method, json=body, headers=user)
    assert answer.status_code == 200, answer.get_json()
    assert route.answer().validate(answer.get_json()) == {}
    assert proxy.passed == [f"{route.call.method} /api/v1{route.call.url_path(segments)}"]


@pytest.mark.parametrize(
    "malformed",
    [
        {"basket": "not an object", "changes": []},
        {"basket": {"recipes": []}},  # no changes
        {"basket": {"recipes": "none"}, "changes": []},
        {"basket": {"recipes": []}, "changes": [{"id": "100001"}]},  # a change without its quantity
        ["not", "an", "object"],
    ],
)
def test_a_basket_answer_that_does_not_match_its_schema_is_a_502(
    app: Flask, proxy: FaultyUpstream, malformed: object
) -> None:
    client = app.test_client()
    user = browser_headers(client, user="forwarded-malformed")
    proxy.faults["/api/v1/basket/recipes"] = answering(malformed)
    answer = client.post("/v2/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=user)
    assert answer.status_code == 502 and answer.mimetype == "application/problem+json"
    assert proxy.failed == ["/api/v1/basket/recipes"]


def test_a_menu_answer_that_does_not_match_its_schema_is_a_502(app: Flask, proxy: FaultyUpstream) -> None:
    client = app.test_client()
    user = browser_headers(client, user="forwarded-malformed-menu")
    proxy.faults["/api/v1/menus/current/recipes"] = answering({"recipes": [{"guests": "four"}]})
    answer = client.post("/v2/menu/current/recipes", json={"recipe_id": "5", "guests": 4}, headers=user)
    assert answer.status_code == 502 and answer.mimetype == "application/problem+json"


def test_a_member_the_schema_does_not_declare_passes_through(app: Flask, proxy: FaultyUpstream) -> None:
    client = app.test_client()
    user = browser_headers(client, user="forwarded-extra")
    proxy.faults["/api/v1/basket/recipes"] = answering(basket_change(loyalty_points=12))
    answer = client.post("/v2/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=user)
    assert answer.status_code == 200
    assert answer.get_json() == basket_change(loyalty_points=12)

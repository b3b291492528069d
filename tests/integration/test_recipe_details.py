"""GET /{v}/recipe-details (the drawer's content) against the real coreapi."""

from __future__ import annotations

import json
import math
import time

import pytest
from bs4 import BeautifulSoup

from prerender import create_app
from tests.conftest import closed_port

from .conftest import browser_headers, headers


def details(client, **query):
    return client.get("/v1/recipe-details", query_string=query, headers=headers())


def parsed(response):
    assert response.status_code == 200 and response.mimetype == "text/html"
    return BeautifulSoup(response.get_data(as_text=True), "html5lib").find("svc-recipe-details")


def test_shopping_tab_lists_each_ingredient_with_its_first_available_product(client, upstream):
    expected = upstream.recipe("5", store_id="1001")
    root = parsed(details(client, recipe_id="5", store_id="1001"))
    rows = root.select('[data-panel="shopping"] .svc-recipe-details__ingredient')
    assert [row["data-ingredient-id"] for row in rows] == [i["id"] for i in expected["ingredients"]]
    for row, ingredient in zip(rows, expected["ingredients"], strict=True):
        first_available = next(p for p in ingredient["products"] if p["available"])
        assert row["data-product-id"] == first_available["id"]
        others = [b["data-product-id"] for b in row.select('[data-action="choose-product"]')]
        assert others == [p["id"] for p in ingredient["products"] if p["available"] and p is not first_available]


def test_guests_scale_quantities(client, upstream):
    four = parsed(details(client, recipe_id="5", store_id="1001", guests="4"))
    eight = parsed(details(client, recipe_id="5", store_id="1001", guests="8"))
    assert (four["guests"], eight["guests"]) == ("4", "8")

    def quantity(root):
        return root.select_one(".svc-recipe-details__ingredient-quantity").get_text(strip=True)

    assert quantity(four) == upstream.recipe("5", serves=4)["ingredients"][0]["display"]
    assert quantity(eight) == upstream.recipe("5", serves=8)["ingredients"][0]["display"]
    assert quantity(four) != quantity(eight)


def test_without_a_store_the_shopping_tab_asks_for_one(client):
    root = parsed(details(client, recipe_id="5"))
    shopping = root.select_one('[data-panel="shopping"]')
    assert shopping.select_one('[data-role="choose-store"]') is not None
    assert not shopping.select(".svc-recipe-details__ingredient")
    assert root.select_one(".svc-recipe-details__add-all") is None


def test_cooking_tab_has_the_steps(client, upstream):
    expected = upstream.recipe("5")
    root = parsed(details(client, recipe_id="5"))
    steps = [s.get_text(strip=True) for s in root.select(".svc-recipe-details__step-text")]
    assert steps == [s["text"] for s in expected["steps"]]
    assert root.select_one('[data-panel="cooking"]').has_attr("hidden")


def test_the_times_read_in_hours_from_an_hour_on(client, upstream):
    """The blanquette: 30 min of preparation, 2 h of cooking, 2 h 30 in all (the card says the same)."""
    expected = upstream.recipe("5")
    assert (expected["preparation_time"], expected["cooking_time"]) == (30, 120)  # the seed's blanquette
    root = parsed(details(client, recipe_id="5"))
    meta = [item.get_text(strip=True) for item in root.select(".svc-recipe-details__meta-item")]
    assert {"2\u00a0h\u00a030", "Préparation 30\u00a0min", "Cuisson 2\u00a0h"} <= set(meta), meta
    card = BeautifulSoup(
        client.get("/v1/recipe-card?recipe_id=5", headers=headers()).get_data(as_text=True), "html5lib"
    )
    assert card.select_one(".svc-recipe-card__time").get_text(strip=True) == "2\u00a0h\u00a030"


def test_tabs_are_accessible(client):
    root = parsed(details(client, recipe_id="5", store_id="1001"))
    tabs = root.select('[role="tab"]')
    for tab in tabs:
        panel = root.find(id=tab["aria-controls"])
        assert panel["role"] == "tabpanel" and panel["aria-labelledby"] == tab["id"]
    assert [t["aria-selected"] for t in tabs] == ["true", "false"]


def test_each_replace_button_names_its_ingredient(client, upstream):
    """A page lists several "Remplacer" buttons: each one's name says which ingredient it replaces."""
    names = {i["id"]: i["name"] for i in upstream.recipe("5", store_id="1001")["ingredients"]}
    root = parsed(details(client, recipe_id="5", store_id="1001"))
    buttons = root.select('[data-panel="shopping"] .svc-recipe-details__replace')
    assert buttons
    for button in buttons:
        ingredient = button.find_parent(class_="svc-recipe-details__ingredient")["data-ingredient-id"]
        assert button.get_text(strip=True) == "Remplacer"
        assert button["aria-label"] == f"Remplacer {names[ingredient]}"
        # Described by its row's product and price (what the ingredient now is, once another product is chosen).
        row = button.find_parent(class_="svc-recipe-details__ingredient")
        described = [root.find(id=part) for part in str(button["aria-describedby"]).split()]
        assert described == [
            row.select_one(".svc-recipe-details__product-name"),
            row.select_one(".svc-recipe-details__product-price"),
        ]


def test_browser_data_matches_the_markup(client):
    root = parsed(details(client, recipe_id="5", store_id="1001"))
    data = json.loads(root.select_one("script.svc-recipe-details__data").string)
    rows = root.select('[data-panel="shopping"] .svc-recipe-details__ingredient')
    assert [i["chosen"] for i in data["ingredients"]] == [row.get("data-product-id") for row in rows]
    assert data["store_id"] == "1001" and data["recipe_id"] == "5"


def test_add_all_counts_the_chosen_products(client):
    root = parsed(details(client, recipe_id="5", store_id="1001"))
    rows = root.select('[data-panel="shopping"] .svc-recipe-details__ingredient[data-product-id]')
    assert str(len(rows)) in root.select_one(".svc-recipe-details__add-all").get_text()


def test_unavailable_ingredient_at_store_1002(client, upstream):
    recipe_id = next(
        r["id"] for r in upstream.all_recipes() if upstream.recipe(r["id"], store_id="1002")["available"] is False
    )
    root = parsed(details(client, recipe_id=recipe_id, store_id="1002"))
    assert root.select(".svc-recipe-details__ingredient--unavailable")


def test_a_browser_gets_the_same_drawer_with_its_credential(client):
    """The SDK asks for the drawer itself: the shopper's credential stands for the specification's headers."""
    query = {"recipe_id": "5", "store_id": "1001", "guests": "4"}
    from_server = client.get("/v1/recipe-details", query_string=query, headers=headers(user="drawer-user"))
    from_browser = client.get(
        "/v1/recipe-details", query_string=query, headers=browser_headers(client, user="drawer-user")
    )
    drawer = parsed(from_browser)
    assert drawer is not None and drawer == parsed(from_server)


def test_a_browser_with_an_invalid_credential_is_refused(client):
    forged = {**browser_headers(client), "authorization": "Bearer made.up.credential"}
    response = client.get("/v1/recipe-details?recipe_id=5", headers=forged)
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


@pytest.mark.parametrize(
    "query,status",
    [
        ({"recipe_id": "999999"}, 404),
        ({"recipe_id": "5", "store_id": "424242"}, 400),
        ({"recipe_id": "5", "guests": "0"}, 400),
        ({}, 400),
    ],
)
def test_errors(client, query, status):
    response = details(client, **query)
    assert response.status_code == status and response.mimetype == "application/problem+json"


def test_upstream_down_is_a_503_problem(app_config):
    app = create_app({**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}", "UPSTREAM_RETRIES": 0})
    response = app.test_client().get("/v1/recipe-details?recipe_id=5", headers=headers(token=None))
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    assert "unreachable" in response.get_json()["detail"]
    # When to try again: once the breakers would let a call through (docs/browser-api.md).
    assert response.headers["Retry-After"] == str(math.ceil(app.config["UPSTREAM_BREAKER_COOLDOWN"]))


def test_a_hung_recipe_service_gives_the_last_good_drawer_and_without_one_a_504(app_config, proxy):
    """Past the request's budget on a recipe service that does not answer (a spike), the drawer is its last good
    copy (stale-if-error, STALE_IF_ERROR_SECONDS), the same as the shopper last saw; a drawer never fetched
    before has no copy and is the 504 problem the browser shows with its retry (docs/browser-api.md)."""
    app = create_app({**app_config, "UPSTREAM_URL": proxy.url, "RECIPE_CACHE_SECONDS": 1, "NEAR_CACHE_SECONDS": 0})
    client = app.test_client()
    fresh = details(client, recipe_id="5", store_id="1001", guests="4")
    assert fresh.status_code == 200
    time.sleep(1.2)  # the fresh copy's 1 s is over: the next request asks the recipe service again
    # Then the recipe service hangs, and a request waits a second for it, as the production budget (0.8 s) would;
    # not from the start: on a loaded machine the first request on the live coreapi may take longer.
    proxy.faults["/api/v1/recipes"] = proxy.hung
    app.config.update(UPSTREAM_FRAGMENT_BUDGET=1.0, UPSTREAM_JSON_BUDGET=1.0)

    again = details(client, recipe_id="5", store_id="1001", guests="4")
    assert proxy.failed, "the recipe service was not asked again"
    assert again.status_code == 200
    assert str(parsed(again)) == str(parsed(fresh))

    never_seen = details(client, recipe_id="5", store_id="1001", guests="7")
    assert never_seen.status_code == 504 and never_seen.mimetype == "application/problem+json"

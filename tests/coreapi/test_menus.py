"""Planner menus: the current menu (created from suggestions or empty), its recipes and products,
guests, budget, store moves, merge of a logged-out visitor's menu, finalize into the basket,
idempotency keys, scoping by supplier and identity, and the planner's recipe search.

Expected products, quantities and prices are computed from the seed JSON (``seed``); recipe pricing
is compared with the recipe detail route's.
"""

from __future__ import annotations

import copy
import uuid
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from coreapi.extensions import db
from coreapi.models import Menu
from coreapi.services import menus

from .test_baskets import (
    NOPERS_TOKEN,
    RETAILER_TOKEN,
    Shopper,
    as_changes,
    basket_products,
    call,
    diff,
    expected_lines,
    line_tuples,
    ok,
    replaceable,
)
from .test_concurrency import at_once
from .test_service_key import as_service, supplier_id

MENU_FIELDS = {
    "id", "store_id", "guests", "budget", "recipes", "recipe_count", "total", "currency", "removed_recipe_ids",
}  # fmt: skip
RECIPE_FIELDS = {"id", "title", "picture_url", "type", "guests", "position", "pricing", "products"}
PRODUCT_FIELDS = {
    "id", "ingredient_id", "name", "brand", "size", "picture_url", "quantity", "unit_price", "price", "selected",
}  # fmt: skip
KEY = "Idempotency-Key"


class Planner:
    """One identity's menu calls under one supplier (the demo retailer unless told)."""

    def __init__(self, client: FlaskClient, authorization: str, supplier_token: str | None = RETAILER_TOKEN) -> None:
        self.client = client
        self.headers = {"Authorization": authorization}
        if supplier_token is not None:
            self.headers["Supplier-Token"] = supplier_token

    def with_headers(self, **headers: str) -> Planner:
        other = copy.copy(self)
        other.headers = {**self.headers, **headers}
        return other

    def get(self, query: str = "") -> TestResponse:
        return self.client.get(f"/api/v1/menus/current{query}", headers=self.headers)

    def menu(self, query: str = "") -> dict[str, Any]:
        return ok(self.get(query))

    def start(self, store_id: str | None = "1001", guests: int = 4) -> dict[str, Any]:
        """A new empty menu (from scratch) at ``store_id``."""
        store = f"&store_id={store_id}" if store_id else ""
        menu = self.menu(f"?from=scratch&guests={guests}{store}")
        assert menu["recipes"] == []
        return menu

    def patch(self, body: dict[str, Any]) -> TestResponse:
        return self.client.patch("/api/v1/menus/current", json=body, headers=self.headers)

    def add(self, recipe_id: str, guests: int | None = None) -> TestResponse:
        body: dict[str, Any] = {"recipe_id": recipe_id}
        if guests is not None:
            body["guests"] = guests
        return self.client.post("/api/v1/menus/current/recipes", json=body, headers=self.headers)

    def rescale(self, recipe_id: str, guests: Any) -> TestResponse:
        return self.client.patch(
            f"/api/v1/menus/current/recipes/{recipe_id}", json={"guests": guests}, headers=self.headers
        )

    def remove(self, recipe_id: str) -> TestResponse:
        return self.client.delete(f"/api/v1/menus/current/recipes/{recipe_id}", headers=self.headers)

    def swap(self, recipe_id: str, new_recipe_id: str) -> TestResponse:
        return self.client.post(
            f"/api/v1/menus/current/recipes/{recipe_id}/swap", json={"recipe_id": new_recipe_id}, headers=self.headers
        )

    def select(self, recipe_id: str, product_id: str) -> TestResponse:
        return self.client.put(f"/api/v1/menus/current/recipes/{recipe_id}/products/{product_id}", headers=self.headers)

    def unselect(self, recipe_id: str, product_id: str) -> TestResponse:
        return self.client.delete(
            f"/api/v1/menus/current/recipes/{recipe_id}/products/{product_id}", headers=self.headers
        )

    def finalize(self) -> TestResponse:
        return self.client.post("/api/v1/menus/current/finalize", headers=self.headers)

    def merge(self, authless_id: str, store_id: str | None = None) -> TestResponse:
        store = f"&store_id={store_id}" if store_id else ""
        return self.client.get(
            f"/api/v1/menus/merge-authless-menu?authless_id={authless_id}{store}", headers=self.headers
        )

    def suggestions(self, query: str = "") -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = ok(
            self.client.get(f"/api/v1/menus/current/suggestions{query}", headers=self.headers)
        )["data"]
        return data


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex}"


@pytest.fixture
def user(client: FlaskClient) -> Planner:
    return Planner(client, f"user_id {new_id('planner')}")


@pytest.fixture
def authless_id() -> str:
    return new_id("visitor")


@pytest.fixture
def visitor(client: FlaskClient, authless_id: str) -> Planner:
    return Planner(client, f"authless_id {authless_id}")


def recipe_ids(menu: dict[str, Any]) -> list[str]:
    return [recipe["id"] for recipe in menu["recipes"]]


def recipe_of(menu: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    (found,) = [recipe for recipe in menu["recipes"] if recipe["id"] == recipe_id]
    return found


def product_tuples(recipe: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(p["ingredient_id"], p["id"], p["quantity"]) for p in recipe["products"]]


def conflict(response: TestResponse, reason: str) -> None:
    assert response.status_code == 409, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["reason"] == reason


def not_found(response: TestResponse) -> None:
    assert response.status_code == 404, response.json
    assert response.mimetype == "application/problem+json"


def incomplete_at(seed: Any, store_id: str) -> list[str]:
    return [r for r in sorted(seed.recipes, key=int) if not seed.is_complete_at(store_id, r)]


def complete_at(seed: Any, store_id: str, recipe_type: str | None = None) -> list[str]:
    return [
        r
        for r in sorted(seed.recipes, key=int)
        if seed.is_complete_at(store_id, r) and recipe_type in (None, seed.recipes[r]["type"])
    ]


# --- headers and arguments ------------------------------------------------------------------

ROUTES = [
    ("get", "/api/v1/menus/current", None),
    ("patch", "/api/v1/menus/current", {"guests": 2}),
    ("get", "/api/v1/menus/current/suggestions", None),
    ("post", "/api/v1/menus/current/recipes", {"recipe_id": "1"}),
    ("patch", "/api/v1/menus/current/recipes/1", {"guests": 2}),
    ("delete", "/api/v1/menus/current/recipes/1", None),
    ("post", "/api/v1/menus/current/recipes/1/swap", {"recipe_id": "3"}),
    ("put", "/api/v1/menus/current/recipes/1/products/100153", None),
    ("delete", "/api/v1/menus/current/recipes/1/products/100153", None),
    ("post", "/api/v1/menus/current/finalize", None),
    ("get", "/api/v1/menus/merge-authless-menu?authless_id=a", None),
]
WRITES = [route for route in ROUTES if route[0] != "get" or "merge" in route[1]]
RETAILER = {"Supplier-Token": RETAILER_TOKEN}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_every_route_needs_a_supplier_then_an_identity(client: FlaskClient, method: str, path: str, body: Any) -> None:
    for headers in ({"Authorization": "user_id u-menu"}, {}):
        response = call(client, method, path, body, **headers)
        assert response.status_code == 401
        assert response.mimetype == "application/problem+json"
        assert "Supplier-Token" in response.json["detail"]
    unknown = call(client, method, path, body, Authorization="user_id u-menu", **{"Supplier-Token": "nope"})
    assert unknown.status_code == 401
    response = call(client, method, path, body, **RETAILER)
    assert response.status_code == 401
    assert "Authorization" in response.json["detail"]


@pytest.mark.parametrize("path", ["/api/v1/menus/current/finalize", "/api/v1/menus/merge-authless-menu?authless_id=a"])
def test_finalize_and_merge_are_for_connected_users_only(client: FlaskClient, path: str) -> None:
    method = "post" if path.endswith("finalize") else "get"
    response = call(client, method, path, None, Authorization="authless_id v-menu", **RETAILER)
    assert response.status_code == 403
    assert response.mimetype == "application/problem+json"


def test_merge_needs_the_authless_id(user: Planner) -> None:
    response = user.client.get("/api/v1/menus/merge-authless-menu", headers=user.headers)
    assert response.status_code == 400
    assert response.json["errors"] == {"query": {"authless_id": ["Missing data for required field."]}}


@pytest.mark.parametrize(
    "query", ["?guests=0", "?guests=51", "?guests=four", "?from=yesterday", "?store_id=999", "?store_id=nope"]
)
def test_bad_current_menu_arguments_are_400(user: Planner, query: str) -> None:
    response = user.get(query)
    assert response.status_code == 400
    assert list(response.json["errors"]) == ["query"]


@pytest.mark.parametrize("guests", [0, 51, "4", 2.5, None, True])
def test_guests_are_1_to_50(user: Planner, guests: Any) -> None:
    user.start()
    body = {"recipe_id": "1", "guests": guests}
    added = user.client.post("/api/v1/menus/current/recipes", json=body, headers=user.headers)
    if guests is None:  # null: the menu's guests
        ok(added)
    else:
        assert added.status_code == 400 and "guests" in added.json["errors"]["json"]
    for response in (user.rescale("1", guests), user.patch({"guests": guests})):
        assert response.status_code == 400
        assert "guests" in response.json["errors"]["json"]
    ok(user.add("1", 50))
    ok(user.rescale("1", 1))


@pytest.mark.parametrize("budget", [-1, 100000.01, "abc", "NaN", True])
def test_budget_is_0_to_100000(user: Planner, budget: Any) -> None:
    user.start()
    response = user.patch({"budget": budget})
    assert response.status_code == 400
    assert "budget" in response.json["errors"]["json"]
    assert ok(user.patch({"budget": 100000}))["budget"] == 100000.0
    assert ok(user.patch({"budget": 0}))["budget"] == 0.0
    assert ok(user.patch({"budget": 12.345}))["budget"] == 12.35


@pytest.mark.parametrize("store_id", ["999", "nope"])
def test_an_unknown_store_is_400(user: Planner, store_id: str) -> None:
    user.start()
    response = user.patch({"store_id": store_id})
    assert response.status_code == 400
    assert response.json["errors"] == {"json": {"store_id": ["Unknown store."]}}
    assert user.merge("someone", store_id=store_id).json["errors"] == {"query": {"store_id": ["Unknown store."]}}
    assert user.menu()["store_id"] == "1001"


def test_writes_without_a_menu_are_404(user: Planner) -> None:
    for response in (user.add("1"), user.patch({"guests": 2}), user.remove("1"), user.finalize()):
        not_found(response)
    assert "GET /menus/current" in user.add("1").json["detail"]


# --- the current menu ----------------------------------------------------------------------


def test_a_new_menu_is_filled_from_the_suggestions(user: Planner, seed: Any) -> None:
    menu = user.menu("?store_id=1001&guests=3")
    assert set(menu) == MENU_FIELDS
    assert menu["recipe_count"] == len(menu["recipes"]) == menus.SUGGESTED_RECIPES
    assert menu["store_id"] == "1001" and menu["guests"] == 3 and menu["budget"] is None
    assert menu["currency"] == "EUR" and menu["removed_recipe_ids"] == []
    assert [recipe["position"] for recipe in menu["recipes"]] == [1, 2, 3, 4, 5, 6]
    assert all(recipe["guests"] == 3 for recipe in menu["recipes"])
    # Main dishes first (a menu plans meals): the seed has far more than six.
    assert {seed.recipes[r]["type"] for r in recipe_ids(menu)} == {"main-dish"}
    assert len(set(recipe_ids(menu))) == 6
    # Opening it again answers the same menu (the guests of a later call count only at creation).
    assert user.menu("?guests=8") == menu
    assert user.menu("?store_id=1001&from=scratch") == menu


def test_suggestions_respect_the_completion_filter(client: FlaskClient, seed: Any) -> None:
    incomplete = set(incomplete_at(seed, "1002"))
    for _ in range(5):
        planner = Planner(client, f"authless_id {new_id('v')}")
        menu = planner.menu("?store_id=1002")
        assert len(menu["recipes"]) == 6
        assert not incomplete & set(recipe_ids(menu))


def test_a_menu_from_scratch_is_empty(user: Planner) -> None:
    menu = user.menu("?from=scratch&store_id=1001&guests=2")
    assert (menu["recipes"], menu["recipe_count"], menu["total"], menu["guests"]) == ([], 0, 0.0, 2)


def test_a_menu_without_store_has_no_products_prices_nor_budget(user: Planner) -> None:
    menu = user.menu()
    assert menu["store_id"] is None and menu["total"] is None
    assert len(menu["recipes"]) == 6
    for recipe in menu["recipes"]:
        assert recipe["pricing"] is None and recipe["products"] == []
    conflict(user.patch({"budget": 30}), "no-store")
    recipe_id = menu["recipes"][0]["id"]
    conflict(user.select(recipe_id, "100001"), "no-store")
    conflict(user.unselect(recipe_id, "100001"), "no-store")


def test_recipes_products_and_prices(user: Planner, client: FlaskClient, seed: Any) -> None:
    """Each ingredient's first available product (the basket's), in packages for the recipe's
    guests, at the store's prices; the recipe's pricing is the recipe detail's for its guests."""
    for store_id in ("1001", "1002"):
        planner = Planner(client, f"user_id {new_id('prices')}")
        planner.start(store_id, guests=2)
        chosen = complete_at(seed, store_id)[:10]
        for number, recipe_id in enumerate(chosen):
            ok(planner.add(recipe_id, 1 + number % 6))
        menu = planner.menu()
        assert recipe_ids(menu) == chosen
        total = Decimal(0)
        for recipe in menu["recipes"]:
            assert set(recipe) == RECIPE_FIELDS
            source = seed.recipes[recipe["id"]]
            assert (recipe["title"], recipe["type"]) == (source["title"], source["type"])
            assert recipe["picture_url"].endswith(f"/media/recipes/{recipe['id']}.svg")
            assert product_tuples(recipe) == expected_lines(seed, recipe["id"], store_id, recipe["guests"])
            for product in recipe["products"]:
                assert set(product) == PRODUCT_FIELDS
                assert product["selected"] is True
                price = seed.shelf_price(store_id, product["id"])
                assert product["unit_price"] == float(price)
                assert product["price"] == float(price * product["quantity"])
                assert product["name"] == seed.products[product["id"]]["name"]
                total += price * product["quantity"]
            detail = ok(client.get(f"/api/v1/recipes/{recipe['id']}?store_id={store_id}&serves={recipe['guests']}"))
            assert recipe["pricing"] == detail["pricing"]
        assert menu["total"] == float(total)


def test_english_titles(user: Planner, seed: Any) -> None:
    user.start()
    ok(user.add("1"))
    assert user.with_headers(**{"Language-Id": "en"}).menu()["recipes"][0]["title"] == seed.recipes["1"]["title_en"]


# --- recipes -------------------------------------------------------------------------------


def test_adding_recipes(user: Planner, seed: Any) -> None:
    user.start(guests=3)
    ok(user.add("3"))
    menu = ok(user.add("1", 5))
    assert [(r["id"], r["guests"], r["position"]) for r in menu["recipes"]] == [("3", 3, 1), ("1", 5, 2)]
    # Again: it stays where it is, re-scaled when guests are given.
    assert [(r["id"], r["guests"]) for r in ok(user.add("3"))["recipes"]] == [("3", 3), ("1", 5)]
    again = ok(user.add("3", 8))
    assert [(r["id"], r["guests"], r["position"]) for r in again["recipes"]] == [("3", 8, 1), ("1", 5, 2)]
    assert product_tuples(recipe_of(again, "3")) == expected_lines(seed, "3", "1001", 8)


@pytest.mark.parametrize("recipe_id", ["999999", "nope", "0"])
def test_adding_an_unknown_recipe_is_404(user: Planner, recipe_id: str) -> None:
    user.start()
    not_found(user.add(recipe_id))
    assert user.menu()["recipes"] == []


def test_a_recipe_unavailable_at_the_store_cannot_be_added(user: Planner, seed: Any) -> None:
    user.start("1002")
    recipe_id = incomplete_at(seed, "1002")[0]
    conflict(user.add(recipe_id), "unavailable-at-store")
    assert user.menu()["recipes"] == []


def test_a_menu_holds_at_most_20_recipes(user: Planner, seed: Any) -> None:
    user.start()
    ids = complete_at(seed, "1001")
    for recipe_id in ids[: menus.MAX_RECIPES]:
        ok(user.add(recipe_id))
    conflict(user.add(ids[menus.MAX_RECIPES]), "menu-full")
    assert user.menu()["recipe_count"] == menus.MAX_RECIPES
    ok(user.add(ids[0], 2))  # already in it: re-scaled, not refused


def test_removing_a_recipe(user: Planner) -> None:
    user.start()
    for recipe_id in ("1", "3", "4"):
        ok(user.add(recipe_id))
    menu = ok(user.remove("3"))
    assert [(r["id"], r["position"]) for r in menu["recipes"]] == [("1", 1), ("4", 2)]
    not_found(user.remove("3"))
    not_found(user.remove("nope"))
    assert [(r["id"], r["position"]) for r in ok(user.add("3"))["recipes"]] == [("1", 1), ("4", 2), ("3", 3)]


def test_rescaling_a_recipe(user: Planner, seed: Any) -> None:
    user.start()
    ok(user.add("1", 2))
    menu = ok(user.rescale("1", 7))
    assert recipe_of(menu, "1")["guests"] == 7
    assert product_tuples(recipe_of(menu, "1")) == expected_lines(seed, "1", "1001", 7)
    assert menu["guests"] == 4  # the menu's own guests do not change
    not_found(user.rescale("3", 2))


def test_swapping_a_recipe_keeps_its_position_and_guests(user: Planner, seed: Any) -> None:
    user.start()
    ok(user.add("1", 2))
    ok(user.add("3", 6))
    ok(user.add("4"))
    recipe, _, _, other = replaceable(seed, "1001")
    if recipe in ("1", "3", "4"):
        ok(user.select(recipe, other))
    menu = ok(user.swap("3", "6"))
    assert [(r["id"], r["guests"], r["position"]) for r in menu["recipes"]] == [("1", 2, 1), ("6", 6, 2), ("4", 4, 3)]
    assert product_tuples(recipe_of(menu, "6")) == expected_lines(seed, "6", "1001", 6)
    assert ok(user.swap("6", "6")) == menu  # with itself: nothing changes
    conflict(user.swap("6", "1"), "already-in-menu")
    not_found(user.swap("3", "7"))  # no longer in the menu
    not_found(user.swap("6", "999999"))
    assert user.menu() == menu


def test_swapping_drops_the_old_recipes_choices(user: Planner, seed: Any) -> None:
    recipe, _, _, other = replaceable(seed, "1001")
    user.start()
    ok(user.add(recipe))
    ok(user.select(recipe, other))
    replacement = next(r for r in complete_at(seed, "1001") if r != recipe)
    menu = ok(user.swap(recipe, replacement))
    assert product_tuples(recipe_of(menu, replacement)) == expected_lines(seed, replacement, "1001", 4)
    assert all(p["selected"] for p in recipe_of(menu, replacement)["products"])
    menu = ok(user.swap(replacement, recipe))
    assert product_tuples(recipe_of(menu, recipe)) == expected_lines(seed, recipe, "1001", 4)


def test_a_swap_to_a_recipe_unavailable_at_the_store_is_409(user: Planner, seed: Any) -> None:
    user.start("1002")
    available = complete_at(seed, "1002")[0]
    ok(user.add(available))
    conflict(user.swap(available, incomplete_at(seed, "1002")[0]), "unavailable-at-store")
    assert recipe_ids(user.menu()) == [available]


# --- products ------------------------------------------------------------------------------


def test_unselecting_and_selecting_a_product(user: Planner) -> None:
    user.start()
    menu = ok(user.add("1"))
    first = menu["recipes"][0]["products"][0]
    unselected = ok(user.unselect("1", first["id"]))
    (product,) = [p for p in unselected["recipes"][0]["products"] if p["id"] == first["id"]]
    assert product["selected"] is False
    assert product["price"] == first["price"]  # still shown, with its price
    assert round(menu["total"] - unselected["total"], 2) == first["price"]
    assert recipe_of(unselected, "1")["pricing"] == recipe_of(menu, "1")["pricing"]  # the recipe's cost
    assert ok(user.unselect("1", first["id"])) == unselected  # again: unchanged
    assert ok(user.select("1", first["id"])) == menu


def test_selecting_another_candidate_replaces_the_product(user: Planner, seed: Any) -> None:
    recipe, ingredient, first, other = replaceable(seed, "1001")
    user.start()
    ok(user.add(recipe))
    menu = ok(user.select(recipe, other))
    (product,) = [p for p in recipe_of(menu, recipe)["products"] if p["ingredient_id"] == ingredient]
    assert (product["id"], product["selected"]) == (other, True)
    assert product["unit_price"] == float(seed.shelf_price("1001", other))
    assert first not in [p["id"] for p in recipe_of(menu, recipe)["products"] if p["ingredient_id"] == ingredient]
    unselected = ok(user.unselect(recipe, other))
    (product,) = [p for p in recipe_of(unselected, recipe)["products"] if p["ingredient_id"] == ingredient]
    assert (product["id"], product["selected"]) == (other, False)
    # The ingredient's first product again.
    back = ok(user.select(recipe, first))
    assert product_tuples(recipe_of(back, recipe)) == expected_lines(seed, recipe, "1001", 4)


def test_a_product_of_another_recipe_is_404(user: Planner, seed: Any) -> None:
    candidates = {p for item in seed.recipes["1"]["ingredients"] for p in seed.ranked_products(item["id"])}
    elsewhere = next(p for p in sorted(seed.products) if p not in candidates)
    user.start()
    ok(user.add("1"))
    for product_id in ("999999", "nope", elsewhere):
        not_found(user.select("1", product_id))
        not_found(user.unselect("1", product_id))
    not_found(user.select("3", elsewhere))  # not in the menu


def test_an_unavailable_candidate_cannot_be_selected(user: Planner, seed: Any) -> None:
    user.start("1002")
    for recipe_id in complete_at(seed, "1002"):
        for item in seed.recipes[recipe_id]["ingredients"]:
            unavailable = [p for p in seed.ranked_products(item["id"]) if not seed.is_available("1002", p)]
            if unavailable and seed.first_available("1002", item["id"]):
                ok(user.add(recipe_id))
                conflict(user.select(recipe_id, unavailable[0]), "unavailable-at-store")
                not_found(user.unselect(recipe_id, unavailable[0]))
                return
    raise AssertionError("the seed must have a candidate unavailable at 1002")


def test_a_product_standing_for_two_ingredients(user: Planner, seed: Any) -> None:
    """Recipe 27's peppers: one product is a candidate of two of its ingredients."""
    items = [item["id"] for item in seed.recipes["27"]["ingredients"]]
    shared = {product_id: [i for i in items if product_id in seed.ranked_products(i)] for product_id in seed.products}
    product_id, ingredients = next((p, found) for p, found in shared.items() if len(found) > 1)
    user.start()
    menu = ok(user.add("27"))
    held = {p["ingredient_id"]: p["id"] for p in recipe_of(menu, "27")["products"]}
    menu = ok(user.select("27", product_id))
    chosen = {p["ingredient_id"]: p for p in recipe_of(menu, "27")["products"]}
    assert all(chosen[i]["id"] == product_id and chosen[i]["selected"] for i in ingredients)
    menu = ok(user.unselect("27", product_id))
    assert not any(p["selected"] for p in recipe_of(menu, "27")["products"] if p["ingredient_id"] in ingredients)
    assert {p["ingredient_id"]: p["id"] for p in recipe_of(menu, "27")["products"]}.keys() == held.keys()


# --- guests, budget, store -----------------------------------------------------------------


def test_the_menus_guests_apply_to_every_recipe(user: Planner, seed: Any) -> None:
    user.start()
    ok(user.add("1", 2))
    ok(user.add("3", 6))
    menu = ok(user.patch({"guests": 5}))
    assert menu["guests"] == 5
    assert [r["guests"] for r in menu["recipes"]] == [5, 5]
    assert product_tuples(recipe_of(menu, "3")) == expected_lines(seed, "3", "1001", 5)
    assert ok(user.add("4"))["recipes"][-1]["guests"] == 5


def test_budget(user: Planner) -> None:
    user.start()
    assert ok(user.patch({"budget": 60.5}))["budget"] == 60.5
    assert ok(user.patch({"guests": 3}))["budget"] == 60.5  # absent fields do not change
    assert ok(user.patch({"budget": None}))["budget"] is None
    ok(user.patch({"budget": 40}))
    menu = ok(user.patch({"store_id": "1002"}))
    assert menu["budget"] == 40.0  # kept at another store
    menu = ok(user.patch({"store_id": None}))
    assert (menu["store_id"], menu["budget"], menu["total"]) == (None, None, None)
    conflict(user.patch({"budget": 40}), "no-store")
    menu = ok(user.patch({"store_id": "1001", "budget": 25}))  # the store first, then the budget
    assert (menu["store_id"], menu["budget"]) == ("1001", 25.0)


def test_moving_to_another_store_removes_the_recipes_unavailable_there(user: Planner, seed: Any) -> None:
    incomplete = incomplete_at(seed, "1002")
    available = complete_at(seed, "1002")
    chosen = [available[0], incomplete[0], available[1], incomplete[1], available[2]]
    user.start("1001")
    for recipe_id in chosen:
        ok(user.add(recipe_id))
    menu = ok(user.patch({"store_id": "1002"}))
    assert menu["removed_recipe_ids"] == [incomplete[0], incomplete[1]]
    assert menu["store_id"] == "1002"
    assert [(r["id"], r["position"]) for r in menu["recipes"]] == [
        (available[0], 1),
        (available[1], 2),
        (available[2], 3),
    ]
    for recipe in menu["recipes"]:  # products and prices follow the store
        assert product_tuples(recipe) == expected_lines(seed, recipe["id"], "1002", 4)
        for product in recipe["products"]:
            assert product["unit_price"] == float(seed.shelf_price("1002", product["id"]))
    # Removed for good: back at 1001 they are not there again; the next answer reports nothing.
    back = ok(user.patch({"store_id": "1001"}))
    assert back["removed_recipe_ids"] == [] and recipe_ids(back) == recipe_ids(menu)
    assert ok(user.patch({"store_id": "1001"}))["removed_recipe_ids"] == []


def test_reading_the_menu_at_another_store_moves_it(user: Planner, seed: Any) -> None:
    incomplete = incomplete_at(seed, "1002")[0]
    user.start("1001")
    ok(user.add("1"))
    ok(user.add(incomplete))
    menu = user.menu("?store_id=1002")
    assert (menu["store_id"], menu["removed_recipe_ids"], recipe_ids(menu)) == ("1002", [incomplete], ["1"])
    assert user.menu()["store_id"] == "1002"
    assert user.menu("?store_id=")["store_id"] == "1002"  # no store asked: it keeps its own


def test_a_chosen_product_unavailable_at_the_new_store_falls_back(user: Planner, seed: Any) -> None:
    for recipe_id in complete_at(seed, "1002"):
        for item in seed.recipes[recipe_id]["ingredients"]:
            at_1001 = [p for p in seed.ranked_products(item["id"]) if seed.is_available("1001", p)]
            if len(at_1001) < 2 or seed.is_available("1002", at_1001[1]):
                continue
            if seed.first_available("1002", item["id"]) is None:
                continue
            user.start("1001")
            ok(user.add(recipe_id))
            ok(user.select(recipe_id, at_1001[1]))
            menu = ok(user.patch({"store_id": "1002"}))
            assert product_tuples(recipe_of(menu, recipe_id)) == expected_lines(seed, recipe_id, "1002", 4)
            back = ok(user.patch({"store_id": "1001"}))  # the choice holds where it is available
            (product,) = [p for p in recipe_of(back, recipe_id)["products"] if p["ingredient_id"] == item["id"]]
            assert product["id"] == at_1001[1]
            return
    raise AssertionError("the seed must have a second product available at 1001 only")


# --- scoping -------------------------------------------------------------------------------


def test_a_menu_belongs_to_one_identity_under_one_supplier(client: FlaskClient, user_id: str) -> None:
    mine = Planner(client, f"user_id {user_id}")
    menu = mine.start()
    ok(mine.add("1"))
    other_user = Planner(client, f"user_id {user_id}-other")
    assert other_user.menu("?from=scratch")["id"] != menu["id"]
    not_found(other_user.remove("1"))
    same_id_visitor = Planner(client, f"authless_id {user_id}")
    assert same_id_visitor.menu("?from=scratch")["recipes"] == []
    other_supplier = Planner(client, f"user_id {user_id}", NOPERS_TOKEN)
    theirs = other_supplier.menu("?from=scratch&store_id=1001")
    assert theirs["id"] != menu["id"] and theirs["recipes"] == []
    ok(other_supplier.add("3"))
    assert recipe_ids(mine.menu()) == ["1"]
    assert recipe_ids(other_supplier.menu()) == ["3"]


def test_the_service_key_reaches_the_suppliers_menu(client: FlaskClient, seed: Any, user_id: str) -> None:
    planner = Planner(client, f"user_id {user_id}")
    planner.start()
    ok(planner.add("1"))
    authorization = {"Authorization": f"user_id {user_id}"}
    service = as_service(supplier_id(seed, RETAILER_TOKEN), **authorization)
    menu = ok(client.get("/api/v1/menus/current", headers=service))
    assert menu == planner.menu()
    ok(client.post("/api/v1/menus/current/recipes", json={"recipe_id": "3"}, headers=service))
    assert recipe_ids(planner.menu()) == ["1", "3"]
    elsewhere = as_service(supplier_id(seed, NOPERS_TOKEN), **authorization)
    assert ok(client.get("/api/v1/menus/current?from=scratch", headers=elsewhere))["id"] != menu["id"]


# --- merge ---------------------------------------------------------------------------------


def test_merge_replaces_the_users_menu_with_the_visitors(user: Planner, visitor: Planner, authless_id: str) -> None:
    user.start()
    ok(user.add("1"))
    ok(user.add("3"))
    visitor.start("1002", guests=2)
    ok(visitor.add("4"))
    ok(visitor.patch({"budget": 35}))
    before = visitor.menu()

    merged = ok(user.merge(authless_id))
    assert merged == {**before, "removed_recipe_ids": []}
    assert user.menu() == merged
    # The visitor's menu is gone: reading it creates a new one.
    assert visitor.menu("?from=scratch")["id"] != before["id"]
    assert visitor.menu()["recipes"] == []


def test_merge_without_a_visitors_menu_keeps_the_users(user: Planner, authless_id: str) -> None:
    not_found(user.merge(authless_id))
    menu = user.start()
    ok(user.add("1"))
    assert recipe_ids(ok(user.merge(authless_id))) == ["1"]
    assert ok(user.merge(authless_id))["id"] == menu["id"]


def test_merge_takes_the_visitors_menu_under_the_same_supplier_only(
    client: FlaskClient, user: Planner, authless_id: str
) -> None:
    elsewhere = Planner(client, f"authless_id {authless_id}", NOPERS_TOKEN)
    elsewhere.start()
    ok(elsewhere.add("4"))
    user.start()
    ok(user.add("1"))
    assert recipe_ids(ok(user.merge(authless_id))) == ["1"]
    assert recipe_ids(elsewhere.menu()) == ["4"]


def test_merge_moves_the_menu_to_the_store_asked(user: Planner, visitor: Planner, authless_id: str, seed: Any) -> None:
    incomplete = incomplete_at(seed, "1002")[0]
    visitor.start("1001")
    ok(visitor.add(incomplete))
    ok(visitor.add("1"))
    merged = ok(user.merge(authless_id, store_id="1002"))
    assert (merged["store_id"], merged["removed_recipe_ids"], recipe_ids(merged)) == ("1002", [incomplete], ["1"])


# --- finalize ------------------------------------------------------------------------------


def basket_of(client: FlaskClient, planner: Planner, store_id: str = "1001") -> dict[str, Any]:
    return Shopper(client, planner.headers["Authorization"], store_id).basket()


def test_finalize_moves_the_selected_products_into_the_basket(client: FlaskClient, user: Planner, seed: Any) -> None:
    shopper = Shopper(client, user.headers["Authorization"])
    ok(shopper.add("3", 4))
    ok(shopper.add("4", 2))
    before = shopper.basket()

    menu = user.start(guests=2)
    ok(user.add("1"))
    ok(user.add("3", 6))
    ok(user.add("6", 3))
    unselected = user.menu()["recipes"][0]["products"][0]
    ok(user.unselect("1", unselected["id"]))
    for product in recipe_of(user.menu(), "6")["products"]:
        ok(user.unselect("6", product["id"]))  # nothing kept: recipe 6 is left out of the basket

    body = ok(user.finalize())
    assert set(body) == {"basket", "changes"}
    basket = body["basket"]
    assert basket == shopper.basket()
    # Recipe 3 was in the basket: it takes the menu's guests and products, and keeps its place.
    assert [(e["recipe_id"], e["guests"]) for e in basket["recipes"]] == [("3", 6), ("4", 2), ("1", 2)]
    assert line_tuples(basket["recipes"][0]) == expected_lines(seed, "3", "1001", 6)
    assert line_tuples(basket["recipes"][1]) == line_tuples(before["recipes"][1])
    expected_1 = [line for line in expected_lines(seed, "1", "1001", 2) if line[1] != unselected["id"]]
    assert line_tuples(basket["recipes"][2]) == expected_1
    assert body["changes"] == as_changes(diff(basket_products(basket), basket_products(before)))

    # The menu is closed: the next read creates a new one.
    not_found(user.finalize())
    new = user.menu("?from=scratch")
    assert new["id"] != menu["id"] and new["recipes"] == [] and new["store_id"] is None


def test_finalize_fills_the_basket_with_the_menus_total(client: FlaskClient, user: Planner) -> None:
    menu = user.menu("?store_id=1002")
    body = ok(user.finalize())
    assert body["basket"]["store_id"] == "1002"
    assert body["basket"]["total"] == menu["total"]
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == recipe_ids(menu)
    assert [e["guests"] for e in body["basket"]["recipes"]] == [r["guests"] for r in menu["recipes"]]
    held: Counter[str] = Counter()
    for recipe in menu["recipes"]:
        for product in recipe["products"]:
            held[product["id"]] += product["quantity"]
    assert basket_products(body["basket"]) == held
    assert body["changes"] == as_changes(held)


def test_finalize_moves_the_basket_to_the_menus_store(client: FlaskClient, user: Planner, seed: Any) -> None:
    ok(Shopper(client, user.headers["Authorization"], "1001").add("1", 4))
    user.start("1002")
    ok(user.add("3"))
    basket = ok(user.finalize())["basket"]
    assert basket["store_id"] == "1002"
    assert [e["recipe_id"] for e in basket["recipes"]] == ["1", "3"]
    assert line_tuples(basket["recipes"][1]) == expected_lines(seed, "3", "1002", 4)


def test_finalize_needs_a_store_and_a_selected_product(user: Planner) -> None:
    user.menu()  # no store
    response = user.finalize()
    conflict(response, "no-store")
    assert len(user.menu()["recipes"]) == 6  # unchanged
    ok(user.patch({"store_id": "1001"}))
    for recipe in user.menu()["recipes"][1:]:
        ok(user.remove(recipe["id"]))
    for product in user.menu()["recipes"][0]["products"]:
        ok(user.unselect(user.menu()["recipes"][0]["id"], product["id"]))
    conflict(user.finalize(), "empty")
    ok(user.remove(user.menu()["recipes"][0]["id"]))
    conflict(user.finalize(), "empty")
    assert user.menu()["recipes"] == []


def test_a_merged_menu_can_be_finalized(client: FlaskClient, user: Planner, visitor: Planner, authless_id: str) -> None:
    conflict_free = visitor.menu("?store_id=1001")
    ok(user.merge(authless_id))
    basket = ok(user.finalize())["basket"]
    assert [e["recipe_id"] for e in basket["recipes"]] == recipe_ids(conflict_free)
    assert basket_of(client, visitor)["recipes"] == []


# --- idempotency ---------------------------------------------------------------------------


def keyed(planner: Planner, key: str) -> Planner:
    return planner.with_headers(**{KEY: key})


def test_a_keyed_write_applies_once(user: Planner) -> None:
    user.start()
    key = new_id("key")
    first = keyed(user, key).add("1", 2)
    ok(user.rescale("1", 6))
    replayed = keyed(user, key).add("1", 2)
    assert (replayed.status_code, replayed.json) == (200, first.json)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert recipe_of(user.menu(), "1")["guests"] == 6  # not applied again
    reused = keyed(user, key).add("3")
    assert reused.status_code == 422
    assert reused.json["errors"] == {"headers": {KEY: ["Used for another request."]}}


def test_a_refusal_is_stored_with_its_key(user: Planner, seed: Any) -> None:
    user.start("1002")
    key = new_id("key")
    recipe_id = incomplete_at(seed, "1002")[0]
    first = keyed(user, key).add(recipe_id)
    conflict(first, "unavailable-at-store")
    ok(user.patch({"store_id": "1001"}))
    replayed = keyed(user, key).add(recipe_id)
    assert (replayed.status_code, replayed.json) == (409, first.json)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert user.menu()["recipes"] == []


def test_a_keyed_finalize_fills_the_basket_once(client: FlaskClient, user: Planner) -> None:
    user.menu("?store_id=1001")
    key = new_id("key")
    first = keyed(user, key).finalize()
    assert first.status_code == 200
    user.menu("?store_id=1001")  # a new menu, from the suggestions
    replayed = keyed(user, key).finalize()
    assert (replayed.status_code, replayed.json) == (200, first.json)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert basket_of(client, user) == first.json["basket"]
    assert len(user.menu()["recipes"]) == 6  # the new menu is not finalized


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_malformed_key_is_400(client: FlaskClient, method: str, path: str, body: Any) -> None:
    headers = {"Authorization": "user_id u-menu-key", "Supplier-Token": RETAILER_TOKEN, KEY: "with space"}
    response = call(client, method, path, body, **headers)
    assert response.status_code == 400
    assert list(response.json["errors"]["headers"]) == [KEY]


def test_keys_are_per_shopper(client: FlaskClient, user: Planner, user_id: str) -> None:
    other = Planner(client, f"user_id {user_id}")
    for planner in (user, other):
        planner.start()
        ok(keyed(planner, "shared-key").add("1"))
        assert recipe_ids(planner.menu()) == ["1"]


# --- queries and concurrency ---------------------------------------------------------------


def test_queries_do_not_grow_with_the_menu(user: Planner, seed: Any, count_queries: Any) -> None:
    user.start()
    counts = []
    for recipe_id in complete_at(seed, "1002")[:6]:
        with count_queries() as adding:
            ok(user.add(recipe_id))
        with count_queries() as reading:
            user.menu()
        with count_queries() as moving:
            ok(user.patch({"store_id": "1002" if len(counts) % 2 == 0 else "1001"}))
        counts.append((len(adding), len(reading), len(moving)))
    assert len(set(counts[1:])) == 1, counts


def test_concurrent_first_reads_create_one_menu(app: Flask) -> None:
    authorization = f"authless_id {new_id('racer')}"

    def read() -> dict[str, Any]:
        return Planner(app.test_client(), authorization).menu("?store_id=1001")

    answers = at_once([read] * 8)
    assert len({answer["id"] for answer in answers}) == 1
    assert all(answer == answers[0] for answer in answers)
    with app.app_context():
        count = db.session.scalar(
            select(func.count()).select_from(Menu).where(Menu.identity_id == authorization.split()[1])
        )
    assert count == 1


def test_concurrent_additions_are_all_kept(app: Flask, seed: Any) -> None:
    authorization = f"user_id {new_id('adder')}"
    Planner(app.test_client(), authorization).start()
    ids = complete_at(seed, "1001")[:8]

    def adding(recipe_id: str) -> Any:
        return lambda: ok(Planner(app.test_client(), authorization).add(recipe_id))

    at_once([adding(recipe_id) for recipe_id in ids])
    menu = Planner(app.test_client(), authorization).menu()
    assert sorted(recipe_ids(menu), key=int) == ids
    assert sorted(r["position"] for r in menu["recipes"]) == list(range(1, 9))


# --- suggestions for the planner -----------------------------------------------------------


def test_suggestions_leave_out_the_menus_recipes(user: Planner, seed: Any) -> None:
    menu = user.menu("?store_id=1002")
    suggested = user.suggestions("?limit=20")
    assert len(suggested) == 20
    ids = [s["id"] for s in suggested]
    assert not set(ids) & set(recipe_ids(menu))
    assert not set(ids) & set(incomplete_at(seed, "1002"))  # the menu's store
    types = [seed.recipes[r]["type"] for r in ids]
    assert types == sorted(types, key=lambda t: t != "main-dish")  # main dishes first
    assert user.suggestions("?limit=20") == suggested  # the same for the same session
    desserts = user.suggestions("?type=dessert,drink&limit=20")
    assert {seed.recipes[s["id"]]["type"] for s in desserts} <= {"dessert", "drink"}
    assert len(user.suggestions("?limit=3")) == 3
    assert set(ids) & set(incomplete_at(seed, "1002")) == set()
    at_1001 = {s["id"] for s in user.suggestions("?store_id=1001&type=dessert&limit=20")}
    assert at_1001 >= set(complete_at(seed, "1001", "dessert")) - set(recipe_ids(menu))
    for query in ("?limit=0", "?limit=21", "?type=lunch", "?store_id=999"):
        assert user.client.get(f"/api/v1/menus/current/suggestions{query}", headers=user.headers).status_code == 400


def test_suggestions_put_the_users_liked_recipes_first(user: Planner, seed: Any) -> None:
    ranked = [s["id"] for s in user.suggestions("?store_id=1001&limit=20")]
    liked = ranked[-1]
    response = user.client.put(f"/api/v1/likes/{liked}", headers=user.headers)
    assert response.status_code == 204
    assert user.suggestions("?store_id=1001&limit=6")[0]["id"] == liked
    assert liked not in [s["id"] for s in user.with_headers(Profiling="false").suggestions("?store_id=1001&limit=6")]
    assert recipe_ids(user.menu("?store_id=1001"))[0] == liked


def test_suggestions_vary_between_sessions(client: FlaskClient) -> None:
    planner = Planner(client, f"authless_id {new_id('v')}")
    orders = {
        tuple(s["id"] for s in planner.with_headers(**{"Session-Id": f"s-{n}"}).suggestions("?limit=20"))
        for n in range(4)
    }
    assert len(orders) > 1


# --- the planner's recipe search (GET /recipes) --------------------------------------------


def all_pages(client: FlaskClient, query: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        body = ok(client.get(f"/api/v1/recipes?{query}&per_page=7&page={page}"))
        found += body["data"]
        if page * 7 >= body["total"]:
            assert len(found) == body["total"]
            return found
        page += 1


def test_search_by_several_types(client: FlaskClient, seed: Any) -> None:
    ids = [r["id"] for r in all_pages(client, "type=starter,dessert")]
    assert ids == [r for r in sorted(seed.recipes, key=int) if seed.recipes[r]["type"] in ("starter", "dessert")]
    assert client.get("/api/v1/recipes?type=starter,lunch").json["errors"] == {
        "query": {"type": ["One or more of the choices you made was not in: starter, main-dish, dessert, drink."]}
    }


def test_search_leaves_out_the_recipes_asked(client: FlaskClient, seed: Any) -> None:
    mains = complete_at(seed, "1002", "main-dish")
    ids = [r["id"] for r in all_pages(client, f"type=main-dish&store_id=1002&exclude_ids={mains[0]},{mains[1]},nope")]
    assert ids == mains[2:]


def test_search_by_keyword_type_and_store(client: FlaskClient, seed: Any) -> None:
    found = all_pages(client, "q=TARTE&type=dessert&store_id=1002")
    assert found
    for summary in found:
        source = seed.recipes[summary["id"]]
        assert source["type"] == "dessert" and seed.is_complete_at("1002", summary["id"])
        text = " ".join(
            [source["title"], source.get("title_en") or "", source["description"], source.get("description_en") or ""]
        )
        assert "tart" in text.casefold()


@pytest.mark.parametrize("query", ["per_page=0", "per_page=101", "page=0", "page=abc"])
def test_search_pagination_bounds(client: FlaskClient, query: str) -> None:
    assert client.get(f"/api/v1/recipes?{query}").status_code == 400


def test_search_pages(client: FlaskClient, seed: Any) -> None:
    first = ok(client.get("/api/v1/recipes?type=main-dish&per_page=5&page=2"))
    mains = [r for r in sorted(seed.recipes, key=int) if seed.recipes[r]["type"] == "main-dish"]
    assert (first["page"], first["per_page"], first["total"]) == (2, 5, len(mains))
    assert [r["id"] for r in first["data"]] == mains[5:10]
    assert ok(client.get("/api/v1/recipes?type=main-dish&per_page=5&page=99"))["data"] == []

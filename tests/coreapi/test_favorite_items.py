"""Favorite products: a shopper's list (per supplier and identity), and what it changes: the product a
basket line and a menu get for an ingredient, the favorite first; recipe details are the same for everyone.

What the product should be is computed from the seed JSON (``seed``), never through coreapi's own code.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from .test_service_key import as_service, supplier_id

PATH = "/api/v1/favorite-items"
PROBLEM = "application/problem+json"
RETAILER_TOKEN = "demo-retailer-token"
NOPERS_TOKEN = "demo-nopers-token"  # another retailer
# Recipe 5 (blanquette): carrots have four candidates, all available at both stores; flour's third
# (100200) is not stocked at 1002.
RECIPE = "5"
CARROTS = ["100039", "100040", "100041", "100042"]
FLOUR = ["100198", "100199", "100200"]


def shopper(identity: str, token: str = RETAILER_TOKEN, kind: str = "user_id") -> dict[str, str]:
    return {"Authorization": f"{kind} {identity}", "Supplier-Token": token}


@pytest.fixture
def user(user_id: str) -> dict[str, str]:
    return shopper(user_id)


def put(client: FlaskClient, headers: dict[str, str], product_ids: Any) -> list[str]:
    response = client.put(PATH, json={"product_ids": product_ids}, headers=headers)
    assert response.status_code == 200, response.json
    stored: list[str] = response.json["product_ids"]
    assert client.get(PATH, headers=headers).json == {"product_ids": stored}
    return stored


def added_lines(client: FlaskClient, headers: dict[str, str], store_id: str = "1001") -> dict[str, str]:
    """Ingredient -> product of the lines ``POST /basket/recipes`` makes for the recipe."""
    response = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": RECIPE, "guests": 4, "store_id": store_id}, headers=headers
    )
    assert response.status_code == 200, response.json
    (entry,) = [e for e in response.json["basket"]["recipes"] if e["recipe_id"] == RECIPE]
    return {line["ingredient_id"]: line["product_id"] for line in entry["lines"]}


# --- the list ------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_every_route_needs_a_known_supplier_then_an_identity(client: FlaskClient, method: str) -> None:
    body = {"json": {"product_ids": []}} if method == "PUT" else {}
    no_supplier = client.open(PATH, method=method, headers={"Authorization": "user_id u"}, **body)
    assert no_supplier.status_code == 401 and no_supplier.mimetype == PROBLEM
    unknown = client.open(PATH, method=method, headers=shopper("u", token="nope"), **body)
    assert unknown.status_code == 401
    anonymous = client.open(PATH, method=method, headers={"Supplier-Token": RETAILER_TOKEN}, **body)
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"] == "user_id, authless_id"


def test_headers_are_checked_before_the_body(client: FlaskClient) -> None:
    response = client.put(PATH, json={"product_ids": "nope"}, headers={"Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 401


def test_a_shopper_without_favorites_reads_an_empty_list(client: FlaskClient, user: dict[str, str]) -> None:
    assert client.get(PATH, headers=user).json == {"product_ids": []}


@pytest.mark.parametrize("kind", ["user_id", "authless_id"])
def test_put_stores_the_known_products_in_the_order_given(client: FlaskClient, kind: str) -> None:
    headers = shopper(f"fav-{uuid.uuid4().hex}", kind=kind)
    given = ["100042", "100039", "100042", "999999", "not-a-product", "100198"]
    assert put(client, headers, given) == ["100042", "100039", "100198"]


def test_put_replaces_the_whole_list_and_an_empty_one_forgets_it(client: FlaskClient, user: dict[str, str]) -> None:
    put(client, user, CARROTS)
    assert put(client, user, ["100198"]) == ["100198"]
    assert put(client, user, []) == []


def test_favorites_are_per_supplier_and_identity(client: FlaskClient, user_id: str) -> None:
    put(client, shopper(user_id), ["100041"])
    assert client.get(PATH, headers=shopper(user_id, token=NOPERS_TOKEN)).json["product_ids"] == []
    assert client.get(PATH, headers=shopper(user_id, kind="authless_id")).json["product_ids"] == []
    assert client.get(PATH, headers=shopper(user_id + "-other")).json["product_ids"] == []


def test_a_service_reaches_the_supplier_s_shopper(client: FlaskClient, seed: Any, user_id: str) -> None:
    put(client, shopper(user_id), ["100041"])
    service = as_service(supplier_id(seed, RETAILER_TOKEN), Authorization=f"user_id {user_id}")
    assert client.get(PATH, headers=service).json["product_ids"] == ["100041"]


def test_at_most_500_distinct_ids(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    given = [str(100000 + n) for n in range(500)]
    assert put(client, user, given * 2) == [key for key in given if key in seed.products]
    response = client.put(PATH, json={"product_ids": [str(n) for n in range(1, 502)]}, headers=user)
    assert response.status_code == 400
    assert response.json["errors"]["json"]["product_ids"] == ["At most 500 distinct ids."]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "product_ids"),
        ({"product_ids": None}, "product_ids"),
        ({"product_ids": "100041"}, "product_ids"),
        ({"product_ids": {"id": "100041"}}, "product_ids"),
        ({"product_ids": [100041]}, "product_ids.0"),
        ({"product_ids": ["100041", ""]}, "product_ids.1"),
        ({"product_ids": ["x" * 65]}, "product_ids.0"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(
    client: FlaskClient, user: dict[str, str], body: dict[str, Any], field: str
) -> None:
    response = client.put(PATH, json=body, headers=user)
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert field in response.json["errors"]["json"]
    assert client.get(PATH, headers=user).json["product_ids"] == []


# --- what they change ----------------------------------------------------------------------


def test_a_favorite_candidate_is_the_product_added_to_the_basket(
    client: FlaskClient, seed: Any, user: dict[str, str]
) -> None:
    before = added_lines(client, shopper(f"nofav-{uuid.uuid4().hex}"))
    assert before["carotte"] == seed.first_available("1001", "carotte") == CARROTS[0]
    put(client, user, ["100168", CARROTS[2], "100001"])  # a crème fraîche, a carrot, tomatoes (not in the recipe)
    lines = added_lines(client, user)
    assert lines["carotte"] == CARROTS[2] and lines["creme-fraiche"] == "100168"
    others = ("carotte", "creme-fraiche")
    assert {k: v for k, v in lines.items() if k not in others} == {k: v for k, v in before.items() if k not in others}


def test_among_several_favorites_the_best_ranked_wins(client: FlaskClient, user: dict[str, str]) -> None:
    put(client, user, [CARROTS[3], CARROTS[1]])
    assert added_lines(client, user)["carotte"] == CARROTS[1]


def test_a_favorite_the_store_does_not_sell_is_passed_over(
    client: FlaskClient, seed: Any, user: dict[str, str]
) -> None:
    assert not seed.is_available("1002", FLOUR[2])
    put(client, user, [FLOUR[2]])
    assert added_lines(client, user, store_id="1002")["farine"] == seed.first_available("1002", "farine")


def test_adding_the_recipe_again_keeps_its_products(client: FlaskClient, user: dict[str, str]) -> None:
    assert added_lines(client, user)["carotte"] == CARROTS[0]
    put(client, user, [CARROTS[2]])
    assert added_lines(client, user)["carotte"] == CARROTS[0]  # re-scaled, not re-chosen


def test_recipe_details_are_the_same_for_every_shopper(client: FlaskClient, user: dict[str, str]) -> None:
    anonymous = client.get(f"/api/v1/recipes/{RECIPE}?store_id=1001").json
    put(client, user, [CARROTS[2]])
    assert client.get(f"/api/v1/recipes/{RECIPE}?store_id=1001", headers=user).json == anonymous


def test_a_menu_takes_the_favorite_and_finalize_puts_it_in_the_basket(
    client: FlaskClient, user: dict[str, str]
) -> None:
    put(client, user, [CARROTS[2]])
    assert client.get("/api/v1/menus/current?from=scratch&store_id=1001", headers=user).status_code == 200
    menu = client.post("/api/v1/menus/current/recipes", json={"recipe_id": RECIPE}, headers=user).json
    (recipe,) = menu["recipes"]
    assert {p["ingredient_id"]: p["id"] for p in recipe["products"]}["carotte"] == CARROTS[2]
    finalized = client.post("/api/v1/menus/current/finalize", headers=user)
    assert finalized.status_code == 200, finalized.json
    (entry,) = finalized.json["basket"]["recipes"]
    assert {line["ingredient_id"]: line["product_id"] for line in entry["lines"]}["carotte"] == CARROTS[2]


def test_the_shopper_s_own_choice_in_a_menu_beats_a_favorite(client: FlaskClient, user: dict[str, str]) -> None:
    put(client, user, [CARROTS[2]])
    client.get("/api/v1/menus/current?from=scratch&store_id=1001", headers=user)
    client.post("/api/v1/menus/current/recipes", json={"recipe_id": RECIPE}, headers=user)
    chosen = client.put(f"/api/v1/menus/current/recipes/{RECIPE}/products/{CARROTS[3]}", headers=user)
    assert chosen.status_code == 200, chosen.json
    (recipe,) = chosen.json["recipes"]
    assert {p["ingredient_id"]: p["id"] for p in recipe["products"]}["carotte"] == CARROTS[3]


def test_the_logged_out_visitor_s_favorites_join_the_user_s_at_login(client: FlaskClient, user_id: str) -> None:
    visitor_id = f"visitor-{uuid.uuid4().hex}"
    visitor, user = shopper(visitor_id, kind="authless_id"), shopper(user_id)
    put(client, user, ["100198", CARROTS[0]])
    put(client, visitor, [CARROTS[2], "100198"])
    merged = client.get(f"/api/v1/basket/merge-authless-basket?authless_id={visitor_id}&store_id=1001", headers=user)
    assert merged.status_code == 200, merged.json
    assert client.get(PATH, headers=user).json["product_ids"] == ["100198", CARROTS[0], CARROTS[2]]
    assert client.get(PATH, headers=visitor).json["product_ids"] == []

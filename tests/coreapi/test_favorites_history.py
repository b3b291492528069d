"""The shopper's space: its favorites (``GET /likes/recipes``) and the history of its confirmed baskets
(``GET /baskets/history``).

Baskets are confirmed through ``POST /basket/confirm``, as a retailer's client does; expected prices
are computed from the seed JSON (``seed``).
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from coreapi.extensions import db
from coreapi.models import Like

from .test_baskets import Shopper, expected_lines, ok
from .test_recipes import SUMMARY_FIELDS
from .test_service_key import as_service, supplier_id

FAVORITES = "/api/v1/likes/recipes"
HISTORY = "/api/v1/baskets/history"
PROBLEM = "application/problem+json"
RETAILER_TOKEN = "demo-retailer-token"
NOPERS_TOKEN = "demo-nopers-token"
PUBLISHER_TOKEN = "demo-publisher-token"


def headers_of(identity: str, token: str = RETAILER_TOKEN, kind: str = "user_id") -> dict[str, str]:
    return {"Authorization": f"{kind} {identity}", "Supplier-Token": token}


def like(client: FlaskClient, headers: dict[str, str], *recipe_ids: str) -> None:
    for recipe_id in recipe_ids:
        assert client.put(f"/api/v1/likes/{recipe_id}", headers=headers).status_code == 204


def favorites(client: FlaskClient, headers: dict[str, str], query: str = "") -> dict[str, Any]:
    response = client.get(f"{FAVORITES}{query}", headers=headers)
    assert response.status_code == 200, response.json
    return response.json


def ids(page: dict[str, Any]) -> list[str]:
    return [item["id"] for item in page["data"]]


def parsed(value: str) -> dt.datetime:
    moment = dt.datetime.fromisoformat(value)
    assert moment.utcoffset() == dt.timedelta(0), value
    return moment


# --- favorites: headers ----------------------------------------------------------------------


def test_favorites_need_a_known_supplier(client: FlaskClient) -> None:
    for headers in ({"Authorization": "user_id u-fav"}, {}):
        response = client.get(FAVORITES, headers=headers)
        assert response.status_code == 401 and response.mimetype == PROBLEM
    unknown = client.get(FAVORITES, headers=headers_of("u-fav", "nope"))
    assert unknown.status_code == 401 and unknown.json["detail"] == "Unknown Supplier-Token."


def test_favorites_are_for_connected_users_only(client: FlaskClient) -> None:
    response = client.get(FAVORITES, headers={"Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 401 and response.mimetype == PROBLEM
    response = client.get(FAVORITES, headers=headers_of("visitor", kind="authless_id"))
    assert response.status_code == 403 and response.mimetype == PROBLEM
    # Identity before arguments.
    assert client.get(f"{FAVORITES}?per_page=0", headers=headers_of("v", kind="authless_id")).status_code == 403


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("per_page=101", "per_page"),
        ("per_page=0", "per_page"),
        ("page=0", "page"),
        ("page=x", "page"),
        ("store_id=999", "store_id"),
        ("store_id=nope", "store_id"),
    ],
)
def test_bad_favorites_arguments_are_400(client: FlaskClient, user_id: str, query: str, field: str) -> None:
    response = client.get(f"{FAVORITES}?{query}", headers=headers_of(user_id))
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert list(response.json["errors"]["query"]) == [field]
    if field == "store_id":
        assert response.json["errors"]["query"]["store_id"] == ["Unknown store."]


# --- favorites: what they list ---------------------------------------------------------------


def test_no_favorites(client: FlaskClient, user_id: str) -> None:
    assert favorites(client, headers_of(user_id)) == {"data": [], "page": 1, "per_page": 20, "total": 0}


def test_favorites_are_summaries_most_recently_liked_first(client: FlaskClient, seed: Any, user_id: str) -> None:
    user = headers_of(user_id)
    a, b, c = sorted(seed.recipes, key=int)[2:5]
    like(client, user, b, a, c)
    like(client, user, b)  # again: it keeps the time it was first liked
    page = favorites(client, user)
    assert ids(page) == [c, a, b]
    assert (page["page"], page["per_page"], page["total"]) == (1, 20, 3)
    times = [parsed(item["liked_at"]) for item in page["data"]]
    assert times == sorted(times, reverse=True)
    summaries = {s["id"]: s for s in client.get("/api/v1/recipes?per_page=100").json["data"]}
    for item in page["data"]:
        assert set(item) == SUMMARY_FIELDS | {"liked_at"}
        assert {key: value for key, value in item.items() if key != "liked_at"} == summaries[item["id"]]


def test_favorites_liked_at_the_same_time_are_in_recipe_id_order(
    app: Flask, client: FlaskClient, seed: Any, user_id: str
) -> None:
    user = headers_of(user_id)
    recipe_ids = sorted(seed.recipes, key=int)[:4]
    like(client, user, *reversed(recipe_ids))
    with app.app_context():
        same = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)
        db.session.execute(update(Like).where(Like.user_id == user_id).values(created_at=same))
        db.session.commit()
    page = favorites(client, user)
    assert ids(page) == recipe_ids
    assert {item["liked_at"] for item in page["data"]} == {"2026-11-20T10:00:00+00:00"}


def test_favorites_are_paginated(client: FlaskClient, seed: Any, user_id: str) -> None:
    user = headers_of(user_id)
    recipe_ids = sorted(seed.recipes, key=int)[:5]
    like(client, user, *recipe_ids)
    pages = [favorites(client, user, f"?per_page=2&page={n}") for n in (1, 2, 3, 4)]
    assert [ids(page) for page in pages] == [recipe_ids[4:2:-1], recipe_ids[2:0:-1], recipe_ids[:1], []]
    assert {page["total"] for page in pages} == {5}
    assert favorites(client, user, "?per_page=100")["per_page"] == 100


def test_favorites_follow_the_completion_filter_at_1002(client: FlaskClient, seed: Any, user_id: str) -> None:
    user = headers_of(user_id)
    ordered = sorted(seed.recipes, key=int)
    incomplete = next(r for r in ordered if not seed.is_complete_at("1002", r))
    complete = next(r for r in ordered if seed.is_complete_at("1002", r))
    like(client, user, complete, incomplete)
    assert ids(favorites(client, user)) == [incomplete, complete]
    assert ids(favorites(client, user, "?store_id=1001")) == [incomplete, complete]
    at_1002 = favorites(client, user, "?store_id=1002")
    assert ids(at_1002) == [complete] and at_1002["total"] == 1
    assert ids(favorites(client, user, "?store_id=")) == [incomplete, complete]  # empty: no store


def test_preferences_never_apply_to_favorites(client: FlaskClient, seed: Any, user_id: str) -> None:
    user = headers_of(user_id)
    meat = next(r for r, recipe in seed.recipes.items() if "vegetarien" not in recipe["categories"])
    like(client, user, meat)
    prefs = {"diets": ["vegetarien"], "missing_equipment": ["four", "mixeur", "cocotte"]}
    assert client.put("/api/v1/preferences", json=prefs, headers=user).status_code == 200
    assert ids(favorites(client, user, "?preferences=apply")) == [meat]


def test_favorites_are_the_user_s_under_the_supplier(client: FlaskClient, seed: Any, user_id: str) -> None:
    a, b = sorted(seed.recipes, key=int)[:2]
    like(client, headers_of(user_id), a)
    like(client, headers_of(user_id, PUBLISHER_TOKEN), b)
    assert ids(favorites(client, headers_of(user_id))) == [a]
    assert ids(favorites(client, headers_of(user_id, PUBLISHER_TOKEN))) == [b]
    assert ids(favorites(client, headers_of(f"{user_id}-other"))) == []
    service = as_service(supplier_id(seed, RETAILER_TOKEN), Authorization=f"user_id {user_id}")
    assert ids(favorites(client, service)) == [a]
    assert client.delete(f"/api/v1/likes/{a}", headers=headers_of(user_id)).status_code == 204
    assert favorites(client, headers_of(user_id))["total"] == 0


def test_favorites_titles_are_localised(client: FlaskClient, seed: Any, user_id: str) -> None:
    user = headers_of(user_id)
    recipe_id = next(r for r, recipe in seed.recipes.items() if recipe["title_en"] != recipe["title"])
    like(client, user, recipe_id)
    english = favorites(client, {**user, "Language-Id": "en"})
    assert english["data"][0]["title"] == seed.recipes[recipe_id]["title_en"]


# --- history ---------------------------------------------------------------------------------


def history(shopper: Shopper, query: str = "", **headers: str) -> dict[str, Any]:
    response = shopper.client.get(f"{HISTORY}{query}", headers={**shopper.headers, **headers})
    assert response.status_code == 200, response.json
    return response.json


def confirm(shopper: Shopper, recipes: dict[str, int], order_id: str | None = None) -> str:
    """Fill the shopper's basket with ``recipes`` (id -> guests) and confirm it as a client does; its id."""
    for recipe_id, guests in recipes.items():
        ok(shopper.add(recipe_id, guests))
    confirmation = ok(shopper.confirm(order_id=order_id or f"order-{uuid.uuid4().hex}"))
    assert confirmation["confirmed"] is True
    basket_id: str = confirmation["basket_id"]
    return basket_id


def expected_price(seed: Any, recipe_id: str, store_id: str, guests: int) -> float:
    """The recipe's lines in the basket (first available products, as many packages as needed) at the
    store's shelf prices."""
    return float(
        sum(
            (
                seed.shelf_price(store_id, product_id) * quantity
                for _, product_id, quantity in expected_lines(seed, recipe_id, store_id, guests)
            ),
            Decimal(0),
        )
    )


@pytest.fixture
def buyer(client: FlaskClient, user_id: str) -> Shopper:
    return Shopper(client, f"user_id {user_id}")


def test_history_needs_a_known_supplier_then_an_identity(client: FlaskClient) -> None:
    for headers in ({"Authorization": "user_id u-history"}, {}):
        response = client.get(HISTORY, headers=headers)
        assert response.status_code == 401 and response.mimetype == PROBLEM
        assert response.json["detail"] == "This route needs a Supplier-Token header."
    unknown = client.get(HISTORY, headers=headers_of("u-history", "nope"))
    assert unknown.status_code == 401 and unknown.json["detail"] == "Unknown Supplier-Token."
    response = client.get(f"{HISTORY}?per_page=0", headers={"Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 401 and response.headers["WWW-Authenticate"] == "user_id, authless_id"


@pytest.mark.parametrize(
    ("query", "field"), [("per_page=51", "per_page"), ("per_page=0", "per_page"), ("page=0", "page")]
)
def test_bad_history_arguments_are_400(client: FlaskClient, query: str, field: str) -> None:
    response = client.get(f"{HISTORY}?{query}", headers=headers_of("u-history"))
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert list(response.json["errors"]["query"]) == [field]


def test_no_history(buyer: Shopper) -> None:
    ok(buyer.add("1", 4))  # an open basket is no history
    assert history(buyer) == {"data": [], "page": 1, "per_page": 10, "total": 0}


def test_history_lists_confirmed_baskets_newest_first(buyer: Shopper, seed: Any) -> None:
    first = confirm(buyer, {"1": 4})
    buyer.store_id = "1002"
    second = confirm(buyer, {"5": 2, "3": 6})
    buyer.store_id = "1001"
    third = confirm(buyer, {"8": 4})
    ok(buyer.add("2", 4))  # the open basket, not listed

    page = history(buyer)
    assert [item["id"] for item in page["data"]] == [third, second, first]
    assert (page["page"], page["per_page"], page["total"]) == (1, 10, 3)
    times = [parsed(item["confirmed_at"]) for item in page["data"]]
    assert times == sorted(times, reverse=True)

    middle = page["data"][1]
    assert set(middle) == {"id", "confirmed_at", "store_id", "total", "currency", "recipe_count", "recipes"}
    assert (middle["store_id"], middle["currency"], middle["recipe_count"]) == ("1002", "EUR", 2)
    assert [r["recipe_id"] for r in middle["recipes"]] == ["5", "3"]  # the order they were added
    for item, guests in zip(middle["recipes"], (2, 6), strict=True):
        recipe = seed.recipes[item["recipe_id"]]
        assert item == {
            "recipe_id": item["recipe_id"],
            "title": recipe["title"],
            "picture_url": f"http://localhost/media/recipes/{item['recipe_id']}.svg",
            "guests": guests,
            "total_time": recipe["preparation_time"] + recipe["cooking_time"],
            "difficulty": recipe["difficulty"],
            "price": expected_price(seed, item["recipe_id"], "1002", guests),
        }
    # The confirmed total: the basket's own at its store, the sum of its recipes' lines.
    for item in page["data"]:
        assert item["total"] == pytest.approx(sum(r["price"] for r in item["recipes"]))


def test_history_totals_are_the_confirmed_ones(buyer: Shopper) -> None:
    ok(buyer.add("4", 4))
    expected = buyer.basket()["total"]
    ok(buyer.confirm(total=expected + 20))  # the retailer cart held more: the basket's own total is kept
    (item,) = history(buyer)["data"]
    assert item["total"] == expected


def test_history_is_paginated(buyer: Shopper) -> None:
    confirmed = [confirm(buyer, {recipe_id: 4}) for recipe_id in ("1", "2", "3")]
    pages = [history(buyer, f"?per_page=2&page={n}") for n in (1, 2, 3)]
    assert [[item["id"] for item in page["data"]] for page in pages] == [
        confirmed[:0:-1],
        confirmed[:1],
        [],
    ]
    assert history(buyer, "?per_page=50")["per_page"] == 50


def test_history_belongs_to_the_shopper_under_the_supplier(client: FlaskClient, seed: Any) -> None:
    identity = f"shared-{uuid.uuid4().hex}"
    retailer = Shopper(client, f"user_id {identity}")
    publisher = Shopper(client, f"user_id {identity}", supplier_token=PUBLISHER_TOKEN)
    visitor = Shopper(client, f"authless_id {identity}")
    mine = confirm(retailer, {"1": 4})
    theirs = confirm(publisher, {"2": 4})
    visitors = confirm(visitor, {"3": 4})
    assert [item["id"] for item in history(retailer)["data"]] == [mine]
    assert [item["id"] for item in history(publisher)["data"]] == [theirs]
    assert [item["id"] for item in history(visitor)["data"]] == [visitors]  # authless shoppers have one too
    service = client.get(
        HISTORY, headers=as_service(supplier_id(seed, RETAILER_TOKEN), Authorization=f"user_id {identity}")
    )
    assert [item["id"] for item in service.json["data"]] == [mine]


def test_a_first_login_carries_the_visitors_history_to_the_user(client: FlaskClient) -> None:
    """`merge-authless-basket` at login: the visitor's confirmed baskets join the user's history (newest first, as
    ever), under the calling supplier only; an order the user already holds stays the visitor's."""
    identity = uuid.uuid4().hex
    user = Shopper(client, f"user_id u-{identity}")
    visitor = Shopper(client, f"authless_id v-{identity}")
    elsewhere = Shopper(client, f"authless_id v-{identity}", supplier_token=PUBLISHER_TOKEN)
    users = confirm(user, {"1": 4}, order_id=f"order-{identity}-shared")
    first = confirm(visitor, {"2": 4})
    shared = confirm(visitor, {"3": 4}, order_id=f"order-{identity}-shared")
    second = confirm(visitor, {"4": 2})
    publishers = confirm(elsewhere, {"5": 4})
    ok(visitor.add("6", 4))  # the open basket: its entries move as before

    merged = ok(user.merge(f"v-{identity}"))
    assert [recipe["recipe_id"] for recipe in merged["basket"]["recipes"]] == ["6"]
    assert [item["id"] for item in history(user)["data"]] == [second, first, users]
    assert [item["id"] for item in history(visitor)["data"]] == [shared]
    assert [item["id"] for item in history(elsewhere)["data"]] == [publishers]
    # Merging again moves nothing more.
    ok(user.merge(f"v-{identity}"))
    assert [item["id"] for item in history(user)["data"]] == [second, first, users]


def test_history_titles_are_localised(buyer: Shopper, seed: Any) -> None:
    confirm(buyer, {"9": 4})
    (item,) = history(buyer, **{"Language-Id": "en"})["data"]
    assert item["recipes"][0]["title"] == seed.recipes["9"]["title_en"]


def test_history_costs_a_fixed_number_of_queries(buyer: Shopper, count_queries: Any) -> None:
    confirm(buyer, {"1": 4})
    with count_queries() as one:
        history(buyer)
    confirm(buyer, {"2": 4, "3": 4})
    buyer.store_id = "1002"
    confirm(buyer, {"5": 4})
    with count_queries() as three:
        assert history(buyer)["total"] == 3
    assert len(three) == len(one)

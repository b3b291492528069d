"""flask --app coreapi retire-recipe [--restore] (coreapi/services/retirement.py): a retired recipe leaves every
list, suggestion and lookup, and the open baskets and menus that held it; the orders keep it; a write naming it is
refused as for an unknown recipe; it can be offered again. On both backends, on a database of this module's own
(the session's seeded one is shared by every other test, which count the catalog's recipes)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from coreapi.extensions import db
from coreapi.models import AwaitedProduct, Basket, BasketEntry, MenuRecipe, Recipe

from .test_baskets import Shopper, ok
from .test_favorites_history import confirm, history

RETIRED = "5"  # blanquette de veau (coreapi/seed/data/recipes.json)
VEAL = "veau-blanquette"
KEPT = "1"
RETAILER = {"Supplier-Token": "demo-retailer-token"}


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def shopper(client: FlaskClient, kind: str = "user_id") -> Shopper:
    return Shopper(client, f"{kind} retire-{uuid.uuid4().hex[:12]}")


def retire(app: Flask, *args: str) -> str:
    result = app.test_cli_runner().invoke(args=["retire-recipe", *args])
    assert result.exit_code == 0, result.output
    return str(result.output)


def restored(app: Flask) -> None:
    """The recipe offered again at the end of a test (the module's database is shared by its tests)."""
    app.test_cli_runner().invoke(args=["retire-recipe", RETIRED, "--restore"])


def listed(client: FlaskClient, **query: str) -> list[str]:
    response = client.get("/api/v1/recipes", query_string={"per_page": "100", **query}, headers=RETAILER)
    assert response.status_code == 200, response.json
    return [recipe["id"] for recipe in response.json["data"]]


def veal_products(client: FlaskClient) -> list[str]:
    detail = client.get(f"/api/v1/recipes/{RETIRED}?store_id=1001", headers=RETAILER).json
    (veal,) = [item for item in detail["ingredients"] if item["id"] == VEAL]
    return [product["id"] for product in veal["products"]]


def menu_suggestions(client: FlaskClient, planner: Shopper) -> list[str]:
    response = client.get("/api/v1/menus/current/suggestions?limit=20&type=main-dish", headers=planner.headers)
    assert response.status_code == 200, response.json
    return [recipe["id"] for recipe in response.json["data"]]


def open_entries(app: Flask, recipe_id: str) -> int:
    """The entries of the recipe in open baskets (orders keep theirs)."""
    with app.app_context():
        statement = (
            select(func.count())
            .select_from(BasketEntry)
            .join(Basket, Basket.id == BasketEntry.basket_id)
            .where(BasketEntry.recipe_id == int(recipe_id), Basket.status == "open")
        )
        return db.session.scalar(statement) or 0


def count(app: Flask, model: Any, **where: Any) -> int:
    with app.app_context():
        conditions = [getattr(model, name) == value for name, value in where.items()]
        return db.session.scalar(select(func.count()).select_from(model).where(*conditions)) or 0


def test_a_retired_recipe_leaves_every_list_suggestion_and_lookup(own_app: Flask, client: FlaskClient) -> None:
    fan = shopper(client)
    assert client.put(f"/api/v1/likes/{RETIRED}", headers=fan.headers).status_code in (200, 204)
    products = veal_products(client)
    external_id = client.get(f"/api/v1/recipes/{RETIRED}", headers=RETAILER).json["external_id"]
    assert RETIRED in listed(client, q="blanquette")
    assert RETIRED in listed(client, store_id="1001", type="main-dish")
    shelf = {"contexts": [{"key": "0", "surrounding_product_ids": products, "current_product_ids": []}]}
    assert client.post("/api/v1/suggestions", json=shelf, headers={"Session-Id": "s"}).json["data"][0]["recipe_id"]
    # A planner whose menu suggestions (20 of the 26 main dishes, drawn per shopper) hold it.
    planner = next(p for p in (shopper(client) for _ in range(50)) if RETIRED in menu_suggestions(client, p))

    output = retire(own_app, RETIRED)
    try:
        assert output.startswith(f"Recipe {RETIRED} (Blanquette de veau) retired since ")
        assert RETIRED not in listed(client, q="blanquette")
        assert RETIRED not in listed(client, store_id="1001", type="main-dish")
        assert RETIRED not in listed(client)
        assert client.get(f"/api/v1/recipes/{RETIRED}", headers=RETAILER).status_code == 404
        batch = client.get(f"/api/v1/recipes/batch?ids={RETIRED},{KEPT}", headers=RETAILER)
        assert [recipe["id"] for recipe in batch.json["data"]] == [KEPT]
        assert client.get(f"/api/v1/recipes/by-external-id/{external_id}", headers=RETAILER).status_code == 404
        for answer in client.post("/api/v1/suggestions", json=shelf, headers={"Session-Id": "s"}).json["data"]:
            assert answer["recipe_id"] != RETIRED
        assert RETIRED not in menu_suggestions(client, planner)
        # The favorites leave it; a like of it is refused as of an unknown recipe, an unlike still done.
        liked = client.get("/api/v1/likes/recipes", headers=fan.headers).json["data"]
        assert RETIRED not in [recipe["id"] for recipe in liked]
        assert client.put(f"/api/v1/likes/{RETIRED}", headers=shopper(client).headers).status_code == 404
        assert client.delete(f"/api/v1/likes/{RETIRED}", headers=fan.headers).status_code in (200, 204)
    finally:
        restored(own_app)
    assert RETIRED in listed(client, q="blanquette")
    assert client.get(f"/api/v1/recipes/{RETIRED}", headers=RETAILER).status_code == 200


def test_retiring_takes_it_out_of_open_baskets_and_menus_and_the_orders_keep_it(
    own_app: Flask, client: FlaskClient
) -> None:
    holder, buyer, planner = shopper(client), shopper(client), shopper(client, "authless_id")
    ok(holder.add(RETIRED, 4))
    ok(holder.add(KEPT, 2))
    holder.shown()  # the cart showed the basket: rows the retirement takes out with the entry
    order = confirm(buyer, {RETIRED: 4})
    assert client.get("/api/v1/menus/current?from=scratch&store_id=1001", headers=planner.headers).status_code == 200
    for recipe_id in (RETIRED, KEPT):
        added = client.post("/api/v1/menus/current/recipes", json={"recipe_id": recipe_id}, headers=planner.headers)
        assert added.status_code == 200, added.json
    basket_before = holder.basket()
    veal = veal_products(client)[0]

    output = retire(own_app, RETIRED)
    try:
        assert "taken out of 1 open basket(s) and 1 menu(s)" in output, output
        basket = holder.basket()
        assert [recipe["recipe_id"] for recipe in basket["recipes"]] == [KEPT]
        assert basket["total"] < basket_before["total"]
        assert count(own_app, AwaitedProduct, recipe_id=int(RETIRED)) == 0
        menu = client.get("/api/v1/menus/current?store_id=1001", headers=planner.headers).json
        assert [recipe["id"] for recipe in menu["recipes"]] == [KEPT]
        # The order keeps it, under its title.
        (past,) = [item for item in history(buyer)["data"] if item["id"] == order]
        assert [recipe["title"] for recipe in past["recipes"]] == ["Blanquette de veau"]
        # A write naming it is refused as for an unknown recipe, in a basket and in a menu.
        refused = holder.add(RETIRED, 4)
        assert refused.status_code == 404, refused.json
        assert holder.set_line(RETIRED, VEAL, veal, 1).status_code == 404
        again = client.post("/api/v1/menus/current/recipes", json={"recipe_id": RETIRED}, headers=planner.headers)
        assert again.status_code == 404, again.json
    finally:
        restored(own_app)
    # Offered again, it does not come back where it was.
    assert [recipe["recipe_id"] for recipe in holder.basket()["recipes"]] == [KEPT]


def test_retiring_again_sweeps_again_and_keeps_the_first_time(own_app: Flask, client: FlaskClient) -> None:
    first = retire(own_app, RETIRED)
    try:
        # A basket entry of it written anyway (an add that committed with the retirement): the next run takes it out.
        holder = shopper(client)
        ok(holder.add(KEPT, 2))
        with own_app.app_context():
            entry = db.session.scalars(select(BasketEntry).where(BasketEntry.recipe_id == int(KEPT))).first()
            assert entry is not None
            db.session.add(BasketEntry(basket_id=entry.basket_id, recipe_id=int(RETIRED), guests=4, position=99))
            db.session.commit()
        second = retire(own_app, RETIRED)
        assert second.split(": taken")[0] == first.split(": taken")[0]  # retired since the first time
        assert "taken out of 1 open basket(s) and 0 menu(s)" in second, second
        assert [recipe["recipe_id"] for recipe in holder.basket()["recipes"]] == [KEPT]
        assert open_entries(own_app, RETIRED) == 0
        assert count(own_app, MenuRecipe, recipe_id=int(RETIRED)) == 0
    finally:
        result = own_app.test_cli_runner().invoke(args=["retire-recipe", RETIRED, "--restore"])
    assert result.exit_code == 0 and result.output.strip() == f"Recipe {RETIRED} is offered again."
    again = own_app.test_cli_runner().invoke(args=["retire-recipe", RETIRED, "--restore"])
    assert again.exit_code == 0 and again.output.strip() == f"Recipe {RETIRED} was not retired; nothing to do."
    with own_app.app_context():
        assert db.session.get(Recipe, int(RETIRED)).retired_at is None  # type: ignore[union-attr]


@pytest.mark.parametrize("recipe_id", ["424242", "abc", "0"])
def test_an_unknown_recipe_is_refused(own_app: Flask, recipe_id: str) -> None:
    result = own_app.test_cli_runner().invoke(args=["retire-recipe", recipe_id])
    assert result.exit_code == 1
    assert f"No recipe {recipe_id!r}." in result.output

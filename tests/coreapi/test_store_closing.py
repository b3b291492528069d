"""flask --app coreapi close-store [--reopen] (coreapi/services/store_closing.py): a closed store leaves the store
lists and every request naming it is refused as for an unknown store; the open baskets and menus at it move to
their shopper's next store with what that store sells; the orders keep it; it can be opened again. On both
backends, on a database of this module's own (the session's seeded one is shared by every other test, which
list the stores)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from coreapi.extensions import db
from coreapi.models import Basket, Store

from .test_baskets import Shopper, ok
from .test_favorites_history import confirm, history

CLOSED = "1002"  # Demo Market Lyon Part-Dieu (coreapi/seed/data/stores.json)
OPEN = "1001"
RETAILER = {"Supplier-Token": "demo-retailer-token"}


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


@pytest.fixture
def closed(own_app: Flask) -> Iterator[str]:
    """Store 1002 closed for the test, open again after it (the module's database is shared by its tests); the
    command's output."""
    output = run(own_app, "close-store", CLOSED)
    yield output
    run(own_app, "close-store", CLOSED, "--reopen")


def run(app: Flask, *args: str) -> str:
    result = app.test_cli_runner().invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


def shopper(client: FlaskClient, store_id: str = CLOSED) -> Shopper:
    return Shopper(client, f"user_id close-{uuid.uuid4().hex[:12]}", store_id=store_id)


def store_ids(client: FlaskClient) -> list[str]:
    response = client.get("/api/v1/stores", headers=RETAILER)
    assert response.status_code == 200, response.json
    return [store["id"] for store in response.json["data"]]


def test_a_closed_store_leaves_the_lists_and_every_request_naming_it_is_refused(
    own_app: Flask, client: FlaskClient
) -> None:
    assert store_ids(client) == [OPEN, CLOSED]
    output = run(own_app, "close-store", CLOSED)
    try:
        assert output.startswith(f"Store {CLOSED} (Demo Market Lyon Part-Dieu) closed since "), output
        assert store_ids(client) == [OPEN]
        assert client.get(f"/api/v1/stores/{CLOSED}", headers=RETAILER).status_code == 404
        # Every request naming it: a 400 naming store_id, as for an unknown store.
        buyer = shopper(client)
        for response in (
            client.get(f"/api/v1/recipes/1?store_id={CLOSED}", headers=RETAILER),
            client.get(f"/api/v1/recipes?store_id={CLOSED}", headers=RETAILER),
            client.get(f"/api/v1/basket?store_id={CLOSED}", headers=buyer.headers),
            buyer.add("1", 4),
            client.get(f"/api/v1/menus/current?store_id={CLOSED}", headers=buyer.headers),
        ):
            assert response.status_code == 400, response.json
            assert "store_id" in str(response.json), response.json
        assert client.get(f"/api/v1/recipes/1?store_id={OPEN}", headers=RETAILER).status_code == 200
    finally:
        reopened = run(own_app, "close-store", CLOSED, "--reopen")
    assert reopened.strip() == f"Store {CLOSED} is open again."
    assert store_ids(client) == [OPEN, CLOSED]
    assert client.get(f"/api/v1/recipes/1?store_id={CLOSED}", headers=RETAILER).status_code == 200


def test_the_baskets_and_menus_at_a_closed_store_move_to_the_shoppers_next_store_and_the_orders_keep_it(
    own_app: Flask, client: FlaskClient
) -> None:
    holder, buyer, planner = shopper(client), shopper(client), shopper(client)
    ok(holder.add("1", 4))
    ok(holder.add("3", 2))
    order = confirm(buyer, {"1": 4})
    menu = client.get(f"/api/v1/menus/current?from=scratch&store_id={CLOSED}", headers=planner.headers)
    assert menu.status_code == 200, menu.json
    added = client.post("/api/v1/menus/current/recipes", json={"recipe_id": "1"}, headers=planner.headers)
    assert added.status_code == 200, added.json

    output = run(own_app, "close-store", CLOSED)
    try:
        assert "1 open basket(s) and 1 menu(s) are still at it" in output, output
        # The basket moves with its recipes to the store the shopper's page names next, priced there.
        basket = holder.basket(OPEN)
        assert basket["store_id"] == OPEN
        assert [recipe["recipe_id"] for recipe in basket["recipes"]] == ["1", "3"]
        assert basket["total"] > 0
        # The menu too.
        moved = client.get(f"/api/v1/menus/current?store_id={OPEN}", headers=planner.headers)
        assert moved.status_code == 200, moved.json
        assert moved.json["store_id"] == OPEN and [recipe["id"] for recipe in moved.json["recipes"]] == ["1"]
        # The order keeps the closed store.
        (past,) = [item for item in history(buyer)["data"] if item["id"] == order]
        assert past["store_id"] == CLOSED
    finally:
        run(own_app, "close-store", CLOSED, "--reopen")


def test_a_merge_without_a_store_does_not_move_the_basket_to_a_closed_store(client: FlaskClient, closed: str) -> None:
    """The visitor's basket still at the closed store, the user's at an open one: a merge naming no store keeps the
    open one (a request naming the closed store is refused)."""
    visitor_id = f"close-visitor-{uuid.uuid4().hex[:12]}"
    user = shopper(client, OPEN)
    ok(user.add("3", 4))
    ok(Shopper(client, f"authless_id {visitor_id}", store_id=OPEN).add("1", 4))
    with client.application.app_context():  # as if made at the store before it closed
        db.session.execute(update(Basket).where(Basket.identity_id == visitor_id).values(store_id=int(CLOSED)))
        db.session.commit()
    merged = ok(user.merge_without_store(visitor_id))["basket"]
    assert merged["store_id"] == OPEN
    assert [recipe["recipe_id"] for recipe in merged["recipes"]] == ["3", "1"]


def test_closing_again_keeps_the_first_time(own_app: Flask, closed: str) -> None:
    again = run(own_app, "close-store", CLOSED)
    assert again.split(": ")[0] == closed.split(": ")[0]  # closed since the first time
    with own_app.app_context():
        assert db.session.get(Store, int(CLOSED)).closed_at is not None  # type: ignore[union-attr]
    reopened = run(own_app, "close-store", CLOSED, "--reopen")
    assert reopened.strip() == f"Store {CLOSED} is open again."
    assert run(own_app, "close-store", CLOSED, "--reopen").strip() == f"Store {CLOSED} was open; nothing to do."
    run(own_app, "close-store", CLOSED)  # the fixture opens it again


@pytest.mark.parametrize("store_id", ["424242", "abc", "0"])
def test_an_unknown_store_is_refused(own_app: Flask, store_id: str) -> None:
    result = own_app.test_cli_runner().invoke(args=["close-store", store_id])
    assert result.exit_code == 1
    assert f"No store {store_id!r}." in result.output

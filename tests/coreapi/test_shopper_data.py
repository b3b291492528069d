"""flask --app coreapi export-shopper and forget-shopper (coreapi/services/shopper_data.py): a shopper's right of
access and right to erasure. The export lists exactly the shopper's rows; forgetting deletes them all in one
transaction, keeps its orders without the shopper, touches no other shopper (another id at the same supplier, the
same id at another supplier, the same id of the other kind), and again removes nothing. On both backends, on a
database of this module's own (the tests compare whole tables before and after)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, select
from sqlalchemy.orm import DeclarativeBase

from coreapi.extensions import db
from coreapi.models import (
    AwaitedProduct,
    Basket,
    BasketEntry,
    BasketLine,
    BasketTransfer,
    Event,
    FavoriteItems,
    IdempotencyKey,
    Like,
    Menu,
    MenuChoice,
    MenuRecipe,
    Preferences,
    ShownProduct,
)
from coreapi.schemas.fields import PUBLIC_ID_KEY
from coreapi.services.public_ids import BASKET, public_id
from coreapi.services.shopper_data import FORGOTTEN_PREFIX

from .test_baskets import RETAILER_TOKEN, Shopper, basket_products, ok
from .test_favorites_history import history

PUBLISHER_TOKEN = "demo-publisher-token"  # supplier 3, affiliated to the demo retailer (supplier 1)
SUPPLIER_OF = {RETAILER_TOKEN: "1", PUBLISHER_TOKEN: "3"}
# Every table that holds a shopper's rows, or rows hanging from them (coreapi/models.py).
TABLES: tuple[type[DeclarativeBase], ...] = (
    Like,
    Basket,
    BasketEntry,
    BasketLine,
    AwaitedProduct,
    ShownProduct,
    BasketTransfer,
    Menu,
    MenuRecipe,
    MenuChoice,
    Preferences,
    FavoriteItems,
    IdempotencyKey,
    Event,
)


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


@dataclass(frozen=True)
class Activity:
    """What a shopper did through the API, as its answers said."""

    shopper: Shopper
    supplier_id: str
    kind: str
    id: str
    order_id: str | None
    session_id: str
    event_ids: list[str]


def active(client: FlaskClient, kind: str, shopper_id: str, token: str = RETAILER_TOKEN) -> Activity:
    """A shopper who used everything that stores something: an order (a retailer's shopper) or a basket transfer
    (a publisher's), an open basket with packages awaited and shown, a keyed write, a like (a connected user), a
    menu with a product unselected, preferences, favorite products and events."""
    shopper = Shopper(client, f"{kind} {shopper_id}", supplier_token=token)
    order_id = None
    if token == RETAILER_TOKEN:
        ok(shopper.add("2", 2))
        order_id = f"order-{uuid.uuid4().hex}"
        assert ok(shopper.confirm(order_id=order_id))["confirmed"] is True
    ok(shopper.add("1", 4))
    ok(shopper.reconcile(dict(basket_products(shopper.basket())), {"by": "browser-1", "at": 1_000.5}))
    ok(shopper.add("3", 2))  # its packages are awaited
    ok(shopper.with_headers({"Idempotency-Key": f"key-{uuid.uuid4().hex}"}).rescale("3", 3))
    if token == PUBLISHER_TOKEN:
        created = client.post("/api/v1/basket/transfers", json={"store_id": "1001"}, headers=shopper.headers)
        assert created.status_code == 201, created.json
    if kind == "user_id":
        assert client.put("/api/v1/likes/2", headers=shopper.headers).status_code == 204
    ok(client.get("/api/v1/menus/current?from=scratch&store_id=1001", headers=shopper.headers))
    menu = ok(client.post("/api/v1/menus/current/recipes", json={"recipe_id": "4"}, headers=shopper.headers))
    product_id = menu["recipes"][0]["products"][0]["id"]
    ok(client.delete(f"/api/v1/menus/current/recipes/4/products/{product_id}", headers=shopper.headers))
    ok(client.put("/api/v1/preferences", json={"diets": ["vegetarien"], "guests": 2}, headers=shopper.headers))
    ok(client.put("/api/v1/favorite-items", json={"product_ids": ["100041", "100199"]}, headers=shopper.headers))
    session_id = f"session-{uuid.uuid4().hex}"
    event_ids = [f"event-{uuid.uuid4().hex}" for _ in range(2)]
    events = [{"id": event_id, "name": "recipe.show", "props": {"recipe_id": "1"}} for event_id in event_ids]
    sent = client.post("/api/v1/events", json={"events": events}, headers={**shopper.headers, "Session-Id": session_id})
    assert sent.status_code == 202, sent.json
    return Activity(shopper, SUPPLIER_OF[token], kind, shopper_id, order_id, session_id, event_ids)


def neighbours(client: FlaskClient, of: Activity) -> list[Activity]:
    """The shoppers that must keep everything when ``of`` is forgotten: another id at its supplier, its id at the
    other supplier, its id of the other kind."""
    other_token = PUBLISHER_TOKEN if of.supplier_id == "1" else RETAILER_TOKEN
    token = RETAILER_TOKEN if of.supplier_id == "1" else PUBLISHER_TOKEN
    other_kind = "authless_id" if of.kind == "user_id" else "user_id"
    return [
        active(client, of.kind, f"other-{uuid.uuid4().hex}", token),
        active(client, of.kind, of.id, other_token),
        active(client, other_kind, of.id, token),
    ]


def run(app: Flask, *args: str) -> str:
    result = app.test_cli_runner().invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


def export(app: Flask, of: Activity) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        run(app, "export-shopper", "--supplier-id", of.supplier_id, f"--{of.kind.replace('_', '-')}", of.id)
    )
    return document


def forget(app: Flask, of: Activity) -> str:
    return run(app, "forget-shopper", "--supplier-id", of.supplier_id, f"--{of.kind.replace('_', '-')}", of.id)


def plain(value: Any) -> Any:
    """A value comparable in a set: JSON columns as their text, times as ISO strings."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    return value.isoformat() if hasattr(value, "isoformat") else value


def tables(app: Flask) -> dict[str, list[dict[str, Any]]]:
    """Every row of TABLES, by table, as dictionaries of plain values, in a fixed order."""
    with app.app_context():
        snapshot = {}
        for model in TABLES:
            table = model.__table__
            rows = db.session.execute(select(table)).mappings()
            snapshot[table.name] = sorted(({k: plain(v) for k, v in row.items()} for row in rows), key=repr)
        return snapshot


def without(before: dict[str, list[dict[str, Any]]], of: Activity) -> dict[str, list[dict[str, Any]]]:
    """What the tables must hold once ``of`` is forgotten, computed from their rows before: the shopper's rows and
    the rows hanging from them gone, its orders kept (their entries and lines too) under an identity of their own."""
    supplier_id = int(of.supplier_id)

    def mine(row: dict[str, Any]) -> bool:
        return (row["supplier_id"], row["identity_kind"], row["identity_id"]) == (supplier_id, of.kind, of.id)

    baskets = {row["id"] for row in before["baskets"] if mine(row)}
    open_baskets = {row["id"] for row in before["baskets"] if mine(row) and row["status"] == "open"}
    open_entries = {row["id"] for row in before["basket_entries"] if row["basket_id"] in open_baskets}
    menus = {row["id"] for row in before["menus"] if mine(row)}
    menu_recipes = {row["id"] for row in before["menu_recipes"] if row["menu_id"] in menus}
    orders = [
        {**row, "identity_kind": "user_id", "identity_id": f"{FORGOTTEN_PREFIX}{row['id']}"}
        for row in before["baskets"]
        if mine(row) and row["status"] == "confirmed"
    ]
    after = {
        "likes": [
            row
            for row in before["likes"]
            if (row["supplier_id"], of.kind, row["user_id"]) != (supplier_id, "user_id", of.id)
        ],
        "baskets": [row for row in before["baskets"] if not mine(row)] + orders,
        "basket_entries": [row for row in before["basket_entries"] if row["id"] not in open_entries],
        "basket_lines": [row for row in before["basket_lines"] if row["entry_id"] not in open_entries],
        "basket_awaited_products": [
            row for row in before["basket_awaited_products"] if row["basket_id"] not in baskets
        ],
        "basket_shown_products": [row for row in before["basket_shown_products"] if row["basket_id"] not in baskets],
        "menus": [row for row in before["menus"] if row["id"] not in menus],
        "menu_recipes": [row for row in before["menu_recipes"] if row["id"] not in menu_recipes],
        "menu_choices": [row for row in before["menu_choices"] if row["menu_recipe_id"] not in menu_recipes],
    }
    for name in ("basket_transfers", "preferences", "favorite_items", "idempotency_keys", "events"):
        after[name] = [row for row in before[name] if not mine(row)]
    return {name: sorted(rows, key=repr) for name, rows in after.items()}


def count(rows: list[dict[str, Any]], of: Activity) -> int:
    supplier_id = int(of.supplier_id)
    return sum(
        (row["supplier_id"], row["identity_kind"], row["identity_id"]) == (supplier_id, of.kind, of.id) for row in rows
    )


# --- export-shopper ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["user_id", "authless_id"])
def test_the_export_lists_exactly_the_shopper_s_rows(own_app: Flask, client: FlaskClient, kind: str) -> None:
    shopper = active(client, kind, f"export-{uuid.uuid4().hex}")
    others = neighbours(client, shopper)
    snapshot = tables(own_app)
    document = export(own_app, shopper)

    assert document["supplier_id"] == "1" and document["identity"] == {"kind": kind, "id": shopper.id}
    # The baskets: the order, then the open basket, each with what it holds, as the database holds it.
    mine = sorted(
        (row for row in snapshot["baskets"] if count([row], shopper)), key=lambda row: (row["created_at"], row["id"])
    )
    assert [basket["id"] for basket in document["baskets"]] == [shown(own_app, BASKET, row["id"]) for row in mine]
    order, basket = document["baskets"]
    assert (order["status"], order["order_id"], basket["status"]) == ("confirmed", shopper.order_id, "open")
    assert [entry["recipe_id"] for entry in order["entries"]] == ["2"]
    assert [(entry["recipe_id"], entry["guests"]) for entry in basket["entries"]] == [("1", 4), ("3", 3)]
    for listed in (order, basket):
        entry_ids = {
            row["id"] for row in snapshot["basket_entries"] if shown(own_app, BASKET, row["basket_id"]) == listed["id"]
        }
        assert len(listed["entries"]) == len(entry_ids)
        assert sum(len(entry["lines"]) for entry in listed["entries"]) == len(
            [row for row in snapshot["basket_lines"] if row["entry_id"] in entry_ids]
        )
    assert order["awaited_products"] == [] and order["shown_products"] == []  # a confirmation forgets them
    assert {row["recipe_id"] for row in basket["awaited_products"]} == {"3"}
    assert {row["recipe_id"] for row in basket["shown_products"]} == {"1"}
    assert {row["reporter"] for row in basket["shown_products"]} == {"browser 1"}  # not its key, a digest of a number
    assert len(basket["shown_products"]) == len(
        [row for row in snapshot["basket_shown_products"] if shown(own_app, BASKET, row["basket_id"]) == basket["id"]]
    )
    # The rest: each as the shopper stored it, and only the shopper's.
    (menu,) = document["menus"]
    assert [
        (recipe["recipe_id"], [choice["selected"] for choice in recipe["choices"]]) for recipe in menu["recipes"]
    ] == [("4", [False])]
    assert document["likes"] == (
        [{"recipe_id": "2", "liked_at": document["likes"][0]["liked_at"]}] if kind == "user_id" else []
    )
    assert document["preferences"]["diets"] == ["vegetarien"] and document["preferences"]["guests"] == 2
    assert document["favorite_items"]["product_ids"] == ["100041", "100199"]
    assert document["basket_transfers"] == []
    assert [(item["id"], item["session_id"]) for item in document["events"]] == [
        (event_id, shopper.session_id) for event_id in shopper.event_ids
    ]
    assert document["idempotency_outcomes"]["count"] == 1 == count(snapshot["idempotency_keys"], shopper)
    assert document["idempotency_outcomes"]["kept_until"] is not None
    assert document["names"]["recipes"]["4"] == "Quiche lorraine"
    assert {"100041", "100199"} <= set(document["names"]["products"])
    # Each neighbour has the same kinds of rows, and none of them is in the shopper's document.
    for other in others:
        theirs = export(own_app, other)
        assert not {basket["id"] for basket in theirs["baskets"]} & {basket["id"] for basket in document["baskets"]}
        assert not {menu["id"] for menu in theirs["menus"]} & {menu["id"] for menu in document["menus"]}
        assert not {item["id"] for item in theirs["events"]} & {item["id"] for item in document["events"]}


def test_the_export_lists_the_transfers_the_shopper_made(own_app: Flask, client: FlaskClient) -> None:
    reader = active(client, "authless_id", f"reader-{uuid.uuid4().hex}", PUBLISHER_TOKEN)
    (transfer,) = export(own_app, reader)["basket_transfers"]
    assert (transfer["target_supplier_id"], transfer["store_id"]) == ("1", "1001")
    assert transfer["redeemed_at"] is None and transfer["revoked_at"] is None
    assert "token_hash" not in transfer
    # The retailer's shopper with the same id made none.
    same_id = Activity(reader.shopper, "1", reader.kind, reader.id, None, "", [])
    assert export(own_app, same_id)["basket_transfers"] == []


def test_a_shopper_coreapi_holds_nothing_of_is_an_empty_document(own_app: Flask) -> None:
    nobody = f"nobody-{uuid.uuid4().hex}"
    document = json.loads(run(own_app, "export-shopper", "--supplier-id", "1", "--user-id", nobody))
    assert document == {
        "supplier_id": "1",
        "identity": {"kind": "user_id", "id": nobody},
        "likes": [],
        "baskets": [],
        "menus": [],
        "preferences": None,
        "favorite_items": None,
        "basket_transfers": [],
        "idempotency_outcomes": {"count": 0, "kept_until": None},
        "events": [],
        "names": {"recipes": {}, "products": {}},
    }


# --- forget-shopper ------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "token"), [("user_id", RETAILER_TOKEN), ("authless_id", PUBLISHER_TOKEN)])
def test_forgetting_deletes_the_shopper_s_rows_and_nothing_else_then_nothing(
    own_app: Flask, client: FlaskClient, kind: str, token: str
) -> None:
    shopper = active(client, kind, f"forget-{uuid.uuid4().hex}", token)
    neighbours(client, shopper)
    before = tables(own_app)
    assert count(before["baskets"], shopper) and count(before["events"], shopper)

    output = forget(own_app, shopper)

    assert tables(own_app) == without(before, shopper)
    assert output.startswith(f"Forgot the shopper at supplier {shopper.supplier_id} ("), output
    assert "  events: 2 deleted\n" in output and "  menus: 1 deleted\n" in output
    assert ("  likes: 1 deleted\n" in output) == (kind == "user_id")
    assert ("  basket transfers: 1 deleted\n" in output) == (token == PUBLISHER_TOKEN)
    assert ("orders: 1 kept for the retailer's accounts" in output) == (token == RETAILER_TOKEN)
    # The shopper's own reads find nothing: no history, an empty basket, no preferences.
    assert history(shopper.shopper)["data"] == []
    assert shopper.shopper.basket()["recipes"] == []
    assert export(own_app, shopper)["baskets"] == []

    # Again: nothing to do, nothing changed.
    after = tables(own_app)
    again = forget(own_app, shopper)
    assert again.startswith(f"Nothing of this shopper at supplier {shopper.supplier_id} ("), again
    assert again.strip().endswith("; nothing to do.") and len(again.splitlines()) == 1
    assert tables(own_app) == after


def test_a_forgotten_shopper_s_order_stays_whole_without_the_shopper(own_app: Flask, client: FlaskClient) -> None:
    shopper = active(client, "user_id", f"order-{uuid.uuid4().hex}")
    forget(own_app, shopper)
    with own_app.app_context():
        kept = db.session.scalar(select(Basket).where(Basket.order_id == shopper.order_id))
        assert kept is not None
        number = kept.id
        assert (kept.status, kept.order_id, kept.store_id) == ("confirmed", shopper.order_id, 1001)
        assert (kept.identity_kind, kept.identity_id) == ("user_id", f"{FORGOTTEN_PREFIX}{number}")
        assert [entry.recipe_id for entry in kept.entries] == [2] and kept.entries[0].lines
    # No request can name that identity: an id with a space is refused.
    response = client.get(
        "/api/v1/baskets/history",
        headers={**shopper.shopper.headers, "Authorization": f"user_id {FORGOTTEN_PREFIX}{number}"},
    )
    assert response.status_code == 400, response.json


def test_forgetting_is_all_or_nothing(own_app: Flask, client: FlaskClient) -> None:
    """A step that fails (here the last one, the events) leaves every row of the shopper where it was."""
    shopper = active(client, "user_id", f"atomic-{uuid.uuid4().hex}")
    before = tables(own_app)

    def fail_on_events(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("DELETE FROM EVENTS"):
            raise RuntimeError("the database failed the events' delete")

    with own_app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", fail_on_events)
    try:
        result = own_app.test_cli_runner().invoke(
            args=["forget-shopper", "--supplier-id", "1", "--user-id", shopper.id]
        )
    finally:
        event.remove(engine, "before_cursor_execute", fail_on_events)
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError), result.output
    assert tables(own_app) == before
    assert "events: 2 deleted" in forget(own_app, shopper)


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["export-shopper", "forget-shopper"])
@pytest.mark.parametrize("supplier_id", ["424242", "abc", "0"])
def test_an_unknown_supplier_is_refused(own_app: Flask, command: str, supplier_id: str) -> None:
    result = own_app.test_cli_runner().invoke(args=[command, "--supplier-id", supplier_id, "--user-id", "someone"])
    assert result.exit_code == 1
    assert f"No supplier {supplier_id!r}." in result.output


@pytest.mark.parametrize("command", ["export-shopper", "forget-shopper"])
@pytest.mark.parametrize(
    "identity",
    [[], ["--user-id", "someone", "--authless-id", "someone"]],
    ids=["neither", "both"],
)
def test_one_identity_exactly_is_needed(own_app: Flask, command: str, identity: list[str]) -> None:
    before = tables(own_app)
    result = own_app.test_cli_runner().invoke(args=[command, "--supplier-id", "1", *identity])
    assert result.exit_code == 2
    assert "Give either --user-id or --authless-id (one of them)." in result.output
    assert tables(own_app) == before


@pytest.mark.parametrize("value", ["two words", "x" * 201])
def test_an_id_no_request_could_carry_is_refused(own_app: Flask, value: str) -> None:
    result = own_app.test_cli_runner().invoke(args=["forget-shopper", "--supplier-id", "1", "--user-id", value])
    assert result.exit_code == 2
    assert "an id is 1 to 200 characters without spaces" in result.output


def test_the_export_on_stdout_is_json_alone_whatever_coreapi_logs(tmp_path: Any) -> None:
    """`flask --app coreapi export-shopper ... > shopper.json` as an operator types it, in a process of its own and
    without a pseudonym key (whose warning is logged at start): stdout holds the document, the log lines go to
    stderr."""
    env = {**os.environ, "COREAPI_DATABASE_URL": f"sqlite:///{tmp_path / 'coreapi.sqlite'}"}
    env.pop("COREAPI_LOG_PSEUDONYM_KEY", None)
    flask = [sys.executable, "-m", "flask", "--app", "coreapi"]
    subprocess.run([*flask, "init-db"], env=env, check=True, capture_output=True, timeout=120)
    done = subprocess.run(
        [*flask, "export-shopper", "--supplier-id", "1", "--user-id", "nobody-yet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["identity"] == {"kind": "user_id", "id": "nobody-yet"} and document["baskets"] == []
    assert "COREAPI_LOG_PSEUDONYM_KEY is not set" in done.stderr


def test_the_export_names_each_basket_and_menu_by_the_id_the_shopper_was_shown(
    own_app: Flask, client: FlaskClient
) -> None:
    """A shopper quotes the order id its history showed (coreapi/services/public_ids.py); the row numbers, which
    count every supplier's rows, are in no export (it reaches the retailer)."""
    shopper = active(client, "user_id", f"shown-{uuid.uuid4().hex}")
    shown_orders = [order["id"] for order in history(shopper.shopper)["data"]]
    shown_menu = ok(client.get("/api/v1/menus/current?store_id=1001", headers=shopper.shopper.headers))["id"]
    document = export(own_app, shopper)
    assert [row["id"] for row in document["baskets"] if row["status"] == "confirmed"] == shown_orders
    assert [row["id"] for row in document["menus"]] == [shown_menu]
    with own_app.app_context():
        numbers = {str(number) for number in db.session.scalars(select(Basket.id))}
        numbers |= {str(number) for number in db.session.scalars(select(Menu.id))}
    assert not numbers & {row["id"] for row in [*document["baskets"], *document["menus"]]}


def shown(app: Flask, kind: str, number: Any) -> str:
    """The public id of row ``number`` of ``kind`` in ``app``'s database."""
    with app.app_context():
        key = app.extensions[PUBLIC_ID_KEY].get(db.session)
    return public_id(key, kind, int(number))

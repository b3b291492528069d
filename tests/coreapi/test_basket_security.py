"""The basket as an attacker tries it: another supplier's token, someone else's anonymous basket,
a made-up total.

Each test is the attacker's request first, then what must hold: a basket belongs to a
(supplier, identity) pair like a like does, merging takes only the calling supplier's anonymous
basket, and a confirmation stores the basket's own total.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from coreapi.extensions import db
from coreapi.models import Basket, Supplier

from .test_baskets import (
    NOPERS_TOKEN,
    RETAILER_TOKEN,
    Shopper,
    basket_products,
    entry,
    expected_lines,
    ok,
    products_of,
)


def supplier_id(app: Flask, token: str) -> int:
    with app.app_context():
        found: int = db.session.scalar(select(Supplier.id).where(Supplier.token == token))
        return found


def baskets_of(app: Flask, identity_id: str, *where: Any) -> list[tuple[int, str, Decimal | None]]:
    """(supplier id, status, total) of the identity's baskets, oldest first."""
    with app.app_context():
        rows = db.session.execute(
            select(Basket.supplier_id, Basket.status, Basket.total)
            .where(Basket.identity_id == identity_id, *where)
            .order_by(Basket.id)
        )
        return [tuple(row) for row in rows]  # type: ignore[misc]


@pytest.fixture
def identity() -> str:
    return f"shopper-{uuid.uuid4().hex}"


# --- (2) a basket belongs to a supplier's shopper ------------------------------------------


@pytest.mark.parametrize("kind", ["user_id", "authless_id"])
def test_another_suppliers_token_neither_reads_nor_changes_the_basket(
    client: FlaskClient, seed, identity: str, kind: str
) -> None:
    mine = Shopper(client, f"{kind} {identity}")
    ok(mine.add("1", 4))
    ok(mine.add("2", 2))
    before = mine.basket()
    intruder = Shopper(client, f"{kind} {identity}", supplier_token=NOPERS_TOKEN)

    assert intruder.basket()["recipes"] == []
    # Every write of the intruder is about its own (empty) basket: 404 where the recipe is not in it.
    assert intruder.rescale("1", 8).status_code == 404
    assert intruder.remove("2").status_code == 404
    assert ok(intruder.reconcile({}))["basket"]["recipes"] == []
    assert ok(intruder.confirm(total=0)) == {"confirmed": False, "reason": "empty"}
    assert ok(intruder.set_line("1", "thon", "100153", 0))["basket"]["recipes"] == []
    assert mine.basket() == before

    # What the intruder adds lands in a basket of its own.
    ok(intruder.add("3", 4))
    assert [e["recipe_id"] for e in intruder.basket()["recipes"]] == ["3"]
    assert mine.basket() == before
    retailer, nopers = supplier_id(client.application, RETAILER_TOKEN), supplier_id(client.application, NOPERS_TOKEN)
    assert sorted(baskets_of(client.application, identity)) == sorted(
        [(retailer, "open", None), (nopers, "open", None)]
    )


def test_without_or_with_an_unknown_token_the_basket_is_out_of_reach(client: FlaskClient, identity: str) -> None:
    mine = Shopper(client, f"authless_id {identity}")
    ok(mine.add("1", 4))
    before = mine.basket()
    for token in (None, "unknown-token"):
        intruder = Shopper(client, f"authless_id {identity}", supplier_token=token)
        for response in (
            intruder.client.get("/api/v1/basket?store_id=1001", headers=intruder.headers),
            intruder.add("2", 4),
            intruder.remove("1"),
            intruder.reconcile({}),
            intruder.confirm(total=before["total"]),
        ):
            assert response.status_code == 401, response.json
            assert response.mimetype == "application/problem+json"
    assert mine.basket() == before


def test_the_same_identity_has_one_open_basket_per_supplier(app: Flask, identity: str) -> None:
    """Each supplier's basket is confirmed and started again on its own; order ids are per supplier."""
    retailer = Shopper(app.test_client(), f"user_id {identity}")
    nopers = Shopper(app.test_client(), f"user_id {identity}", supplier_token=NOPERS_TOKEN)
    ok(retailer.add("1", 4))
    ok(nopers.add("2", 4))
    assert ok(retailer.confirm(order_id="same-order"))["confirmed"] is True
    assert [e["recipe_id"] for e in nopers.basket()["recipes"]] == ["2"]
    assert ok(nopers.confirm(order_id="same-order"))["confirmed"] is True
    statuses = sorted(status for _, status, _ in baskets_of(app, identity))
    assert statuses == ["confirmed", "confirmed"]


# --- (3) merging takes only the calling supplier's anonymous basket --------------------------


def test_merge_takes_only_the_calling_suppliers_authless_basket(client: FlaskClient, seed, identity: str) -> None:
    authless_id = f"visitor-{uuid.uuid4().hex}"
    visitor = Shopper(client, f"authless_id {authless_id}")
    ok(visitor.add("1", 4))
    before = visitor.basket()

    # A user of another supplier names the visitor's id: nothing moves.
    stranger = Shopper(client, f"user_id {identity}", supplier_token=NOPERS_TOKEN)
    body = ok(stranger.merge(authless_id))
    assert body["basket"]["recipes"] == [] and body["changes"] == []
    assert visitor.basket() == before

    # The same supplier's user does merge it.
    member = Shopper(client, f"user_id {identity}")
    body = ok(member.merge(authless_id))
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == ["1"]
    assert basket_products(body["basket"]) == products_of(expected_lines(seed, "1", "1001", 4))
    assert visitor.basket()["recipes"] == []
    assert stranger.basket()["recipes"] == []


def test_merge_leaves_the_visitors_basket_under_another_supplier(client: FlaskClient, identity: str) -> None:
    authless_id = f"visitor-{uuid.uuid4().hex}"
    at_retailer = Shopper(client, f"authless_id {authless_id}")
    at_nopers = Shopper(client, f"authless_id {authless_id}", supplier_token=NOPERS_TOKEN)
    ok(at_retailer.add("1", 4))
    ok(at_nopers.add("2", 4))
    ok(Shopper(client, f"user_id {identity}").merge(authless_id))
    assert at_retailer.basket()["recipes"] == []
    assert [e["recipe_id"] for e in at_nopers.basket()["recipes"]] == ["2"]


# --- (5) a confirmation stores the basket's own total ----------------------------------------


def test_confirm_with_a_made_up_total_is_409_and_changes_nothing(app: Flask, identity: str) -> None:
    shopper = Shopper(app.test_client(), f"user_id {identity}")
    ok(shopper.add("1", 4))
    before = shopper.basket()
    assert before["total"] > 0

    response = shopper.confirm(total=0, order_id="order-cheap")
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    expected = f"{Decimal(str(before['total'])):.2f}"
    assert response.json["errors"] == {"json": {"total": [f"Expected {expected}."]}}
    assert response.json["expected_total"] == before["total"]
    assert shopper.basket() == before
    assert baskets_of(app, identity) == [(supplier_id(app, RETAILER_TOKEN), "open", None)]
    # The order id was not used up by the refusal.
    assert ok(shopper.confirm(order_id="order-cheap"))["confirmed"] is True


@pytest.mark.parametrize(
    ("offset", "accepted"), [("0.01", True), ("-0.01", True), ("25.00", True), ("-0.02", False), ("-5.00", False)]
)
def test_the_total_may_exceed_the_baskets_not_fall_short_and_the_stored_total_is_the_baskets(
    app: Flask, identity: str, offset: str, accepted: bool
) -> None:
    shopper = Shopper(app.test_client(), f"user_id {identity}")
    total = Decimal(str(ok(shopper.add("2", 4))["basket"]["total"]))
    response = shopper.confirm(total=float(total + Decimal(offset)))
    if accepted:
        assert ok(response)["confirmed"] is True
        assert baskets_of(app, identity) == [(supplier_id(app, RETAILER_TOKEN), "confirmed", total)]
    else:
        assert response.status_code == 409
        assert baskets_of(app, identity) == [(supplier_id(app, RETAILER_TOKEN), "open", None)]


def test_the_expected_total_is_the_one_at_the_confirming_store(app: Flask, seed, identity: str) -> None:
    """A basket confirmed at another store than its own is priced there (like GET /basket)."""
    unavailable = set(seed.stores["1002"]["unavailable_product_ids"])
    recipe_id = next(
        r for r in sorted(seed.recipes, key=int) if products_of(expected_lines(seed, r, "1001", 4)).keys() & unavailable
    )
    shopper = Shopper(app.test_client(), f"authless_id {identity}")
    at_1001 = ok(shopper.add(recipe_id, 4))["basket"]["total"]
    at_1002 = Shopper(app.test_client(), f"authless_id {identity}", store_id="1002")
    expected = sum(
        seed.shelf_price("1002", line["product_id"]) * line["quantity"]
        for line in entry(shopper.basket(), recipe_id)["lines"]
        if line["product_id"] not in unavailable
    )
    assert float(expected) < at_1001  # some of its products are not sold at 1002
    assert at_1002.confirm(total=float(expected) - 0.5).status_code == 409
    assert ok(at_1002.confirm(total=at_1001))["confirmed"] is True  # the cart's total may hold more
    assert baskets_of(app, identity, Basket.status == "confirmed")[0][2] == expected


def test_an_empty_basket_is_empty_whatever_the_total(client: FlaskClient, identity: str) -> None:
    visitor = Shopper(client, f"authless_id {identity}")
    assert ok(visitor.confirm(total=99.99)) == {"confirmed": False, "reason": "empty"}


def test_an_order_already_confirmed_stays_already_confirmed_whatever_the_total(
    client: FlaskClient, identity: str
) -> None:
    user = Shopper(client, f"user_id {identity}")
    ok(user.add("1", 4))
    assert ok(user.confirm(order_id="order-once"))["confirmed"] is True
    ok(user.add("2", 4))
    for total in (0, 12345.67):
        assert ok(user.confirm(total=total, order_id="order-once")) == {
            "confirmed": False,
            "reason": "already-confirmed",
        }


def test_the_confirmed_total_counts_no_unavailable_line(app: Flask, seed) -> None:
    """The total is GET /basket's: the sum of the available lines' prices."""
    identity = f"buyer-{uuid.uuid4().hex}"
    shopper = Shopper(app.test_client(), f"user_id {identity}")
    ok(shopper.add("1", 4))
    ok(shopper.add("3", 2))
    total = shopper.basket()["total"]
    assert ok(shopper.confirm(total=total))["confirmed"] is True
    with app.app_context():
        stored = db.session.scalar(select(func.sum(Basket.total)).where(Basket.identity_id == identity))
    assert stored == Decimal(str(total))

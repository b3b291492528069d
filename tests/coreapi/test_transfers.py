"""Basket transfers: a publisher's shopper hands its basket over to the affiliated retailer through a
one-time token; the retailer's shopper redeems it.

Seeded: the publisher (``demo-publisher-token``, supplier 3) is affiliated to the demo retailer
(``demo-retailer-token``, supplier 1); the other retailer (``demo-nopers-token``) has no affiliation.
Expected baskets are computed from the seed JSON (``seed``) and from the source basket's own answers.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update
from werkzeug.test import TestResponse

from coreapi import create_app
from coreapi.extensions import db
from coreapi.models import Basket, BasketTransfer, IdempotencyKey
from coreapi.services import baskets, transfers

from .conftest import SERVICE_KEY, make_app, migrate_and_seed
from .test_baskets import (
    NOPERS_TOKEN,
    RETAILER_TOKEN,
    Shopper,
    as_changes,
    basket_products,
    diff,
    expected_lines,
    line_tuples,
    ok,
    products_of,
    replaceable,
)
from .test_concurrency import at_once, meet_before

PUBLISHER_TOKEN = "demo-publisher-token"
TRANSFER_FIELDS = {"token", "expires_at", "store_id", "target_supplier_id", "recipe_count"}
SOURCE = {"source_supplier_id": "3", "source_supplier_name": "Le Magazine Cuisine"}
NO_SUCH_TRANSFER = "No such basket transfer."


# --- the shoppers and their calls ----------------------------------------------------------


def reader(client: FlaskClient, kind: str = "authless_id", store_id: str = "1001") -> Shopper:
    """A shopper of the publisher (a reader of its recipes)."""
    return Shopper(client, f"{kind} reader-{uuid.uuid4().hex}", store_id, supplier_token=PUBLISHER_TOKEN)


def customer(
    client: FlaskClient, kind: str = "authless_id", store_id: str = "1001", token: str = RETAILER_TOKEN
) -> Shopper:
    """A shopper of the demo retailer (or of the supplier of ``token``)."""
    return Shopper(client, f"{kind} customer-{uuid.uuid4().hex}", store_id, supplier_token=token)


def hand_over(shopper: Shopper, store_id: str | None = None) -> TestResponse:
    body = {"store_id": store_id or shopper.store_id}
    return shopper.client.post("/api/v1/basket/transfers", json=body, headers=shopper.headers)


def redeem(shopper: Shopper, token: str) -> TestResponse:
    body = {"token": token, "store_id": shopper.store_id}
    return shopper.client.post("/api/v1/basket/transfers/redeem", json=body, headers=shopper.headers)


def created(response: TestResponse) -> dict[str, Any]:
    assert response.status_code == 201, response.json
    assert response.mimetype == "application/json"
    return response.json


def new_token(shopper: Shopper, store_id: str | None = None) -> str:
    token: str = created(hand_over(shopper, store_id))["token"]
    return token


def problem(response: TestResponse, status: int, reason: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json.get("reason") == reason
    return response.json


def own_basket(shopper: Shopper) -> dict[str, Any]:
    """The shopper's basket where it is (``GET /basket`` without store: it does not move it)."""
    return ok(shopper.client.get("/api/v1/basket", headers=shopper.headers))


def contents(basket: dict[str, Any]) -> list[tuple[str, int, list[tuple[str, str, int]]]]:
    """Each entry's recipe, guests and lines (ingredient, product, packages), in basket order."""
    return [(e["recipe_id"], e["guests"], line_tuples(e)) for e in basket["recipes"]]


def assert_priced_at(seed: Any, basket: dict[str, Any], store_id: str) -> None:
    """Every line at the store's shelf price, or unavailable there; the total of the available ones."""
    assert basket["store_id"] == store_id
    total = Decimal(0)
    for recipe in basket["recipes"]:
        for line in recipe["lines"]:
            if not seed.is_available(store_id, line["product_id"]):
                assert (line["available"], line["unit_price"], line["price"]) == (False, None, None)
                continue
            price = seed.shelf_price(store_id, line["product_id"])
            expected = (True, float(price), float(price * line["quantity"]))
            assert (line["available"], line["unit_price"], line["price"]) == expected
            total += price * line["quantity"]
    assert basket["total"] == float(total)


def transfer_rows(app: Flask, shopper: Shopper) -> list[BasketTransfer]:
    """The shopper's transfers, oldest first (detached rows)."""
    kind, identity = shopper.headers["Authorization"].split()
    with app.app_context():
        rows = db.session.scalars(
            select(BasketTransfer)
            .where(BasketTransfer.identity_kind == kind, BasketTransfer.identity_id == identity)
            .order_by(BasketTransfer.id)
        ).all()
        db.session.expunge_all()
        return list(rows)


def expire(app: Flask, token: str, ago: dt.timedelta = dt.timedelta(seconds=1)) -> None:
    with app.app_context():
        db.session.execute(
            update(BasketTransfer)
            .where(BasketTransfer.token_hash == transfers.token_hash(token))
            .values(expires_at=dt.datetime.now(dt.UTC) - ago)
        )
        db.session.commit()


def unavailable_at_1002(seed: Any) -> str:
    """A recipe whose lines at 1001 hold a product that store 1002 does not have."""
    unavailable = set(seed.stores["1002"]["unavailable_product_ids"])
    return next(
        r for r in sorted(seed.recipes, key=int) if products_of(expected_lines(seed, r, "1001", 4)).keys() & unavailable
    )


@pytest.fixture
def source(client: FlaskClient) -> Shopper:
    """A reader with a basket of two recipes at 1001."""
    shopper = reader(client)
    ok(shopper.add("1", 4))
    ok(shopper.add("2", 2))
    return shopper


# --- creating a transfer -------------------------------------------------------------------


def test_a_transfer_answers_a_one_time_token_of_which_only_the_hash_is_stored(app: Flask, source: Shopper) -> None:
    before = dt.datetime.now(dt.UTC)
    body = created(hand_over(source))
    after = dt.datetime.now(dt.UTC)
    assert set(body) == TRANSFER_FIELDS
    assert (body["store_id"], body["target_supplier_id"], body["recipe_count"]) == ("1001", "1", 2)
    token = body["token"]
    assert isinstance(token, str) and len(token) >= 43
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    expires_at = dt.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert expires_at.utcoffset() == dt.timedelta(0)
    assert before + dt.timedelta(seconds=900) <= expires_at <= after + dt.timedelta(seconds=900)

    (row,) = transfer_rows(app, source)
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {str(getattr(row, column.key)) for column in BasketTransfer.__table__.columns}
    assert (row.supplier_id, row.target_supplier_id, row.store_id) == (3, 1, 1001)
    assert row.redeemed_at is None and row.revoked_at is None
    # A token per transfer.
    assert new_token(source) != token


def test_a_transfer_moves_the_basket_to_its_store(source: Shopper, seed) -> None:
    ok(source.add("3", 4, store_id="1002"))
    assert own_basket(source)["store_id"] == "1002"
    assert created(hand_over(source, "1001"))["recipe_count"] == 3
    assert_priced_at(seed, own_basket(source), "1001")


def test_the_lifetime_is_configured(app: Flask, source: Shopper, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(app.config, "TRANSFER_TTL_SECONDS", 60)
    body = created(hand_over(source))
    expires_at = dt.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert abs(expires_at - dt.datetime.now(dt.UTC) - dt.timedelta(seconds=60)) < dt.timedelta(seconds=5)


def test_the_lifetime_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COREAPI_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite'}")
    assert create_app().config["TRANSFER_TTL_SECONDS"] == 900
    monkeypatch.setenv("COREAPI_TRANSFER_TTL_SECONDS", "120")
    assert create_app().config["TRANSFER_TTL_SECONDS"] == 120


@pytest.mark.parametrize("store_id", ["999", "nope", ""])
def test_an_unknown_store_is_400_before_anything_else(client: FlaskClient, store_id: str) -> None:
    """Even for a supplier without affiliate, and a shopper without basket."""
    for shopper in (reader(client), customer(client)):
        body = {"store_id": store_id}
        response = client.post("/api/v1/basket/transfers", json=body, headers=shopper.headers)
        assert response.status_code == 400
        expected = ["Unknown store."] if store_id else ["Missing data for required field."]
        assert response.json["errors"] == {"json": {"store_id": expected}}


def test_a_supplier_without_affiliate_is_409_no_affiliate(client: FlaskClient) -> None:
    for token in (RETAILER_TOKEN, NOPERS_TOKEN):
        shopper = customer(client, token=token)
        body = problem(hand_over(shopper), 409, "no-affiliate")
        assert body["title"] == "Conflict"
        ok(shopper.add("1", 4))
        problem(hand_over(shopper), 409, "no-affiliate")
        problem(hand_over(shopper, "1002"), 409, "no-affiliate")
        assert own_basket(shopper)["store_id"] == "1001"  # refused: not moved either


def test_an_empty_basket_is_409_empty(app: Flask, client: FlaskClient) -> None:
    shopper = reader(client, store_id="1002")
    problem(hand_over(shopper), 409, "empty")  # no basket at all
    ok(shopper.add("1", 4))
    ok(shopper.remove("1"))
    problem(hand_over(shopper, "1001"), 409, "empty")  # a basket without entries
    assert own_basket(shopper)["store_id"] == "1002"  # refused: not moved
    assert transfer_rows(app, shopper) == []


def test_a_refused_transfer_changes_nothing(app: Flask, source: Shopper) -> None:
    """The earlier transfer is not revoked by a refused one: it still redeems (an empty basket now)."""
    token = new_token(source)
    ok(source.remove("1"))
    ok(source.remove("2"))
    problem(hand_over(source), 409, "empty")
    (row,) = transfer_rows(app, source)
    assert row.revoked_at is None
    body = ok(redeem(customer(source.client), token))
    assert body["changes"] == [] and body["transfer"] == {**SOURCE, "recipe_count": 0}
    assert body["basket"]["recipes"] == [] and body["basket"]["store_id"] == "1001"


def test_a_service_hands_over_for_the_publisher(client: FlaskClient) -> None:
    service = {"X-Service-Key": SERVICE_KEY, "Supplier-Id": "3"}
    shopper = Shopper(client, f"authless_id reader-{uuid.uuid4().hex}", supplier_token=None).with_headers(service)
    ok(shopper.add("1", 4))
    body = created(hand_over(shopper))
    assert body["target_supplier_id"] == "1"
    retailer = Shopper(client, f"user_id customer-{uuid.uuid4().hex}", supplier_token=None).with_headers(
        {"X-Service-Key": SERVICE_KEY, "Supplier-Id": "1"}
    )
    assert ok(redeem(retailer, body["token"]))["transfer"] == {**SOURCE, "recipe_count": 1}


# --- redeeming -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["authless_id", "user_id"])
def test_redeem_moves_the_entries_with_their_guests_and_lines_repriced_at_the_store(
    app: Flask, client: FlaskClient, seed, kind: str
) -> None:
    """The publisher's visitor hands over two recipes (one re-scaled, one with a product and a
    quantity chosen by hand and a line removed); the retailer's visitor, or user, gets them at 1002."""
    shopper = reader(client)
    first = unavailable_at_1002(seed)
    second, ingredient_id, _, other = replaceable(seed, "1001")
    assert first != second
    ok(shopper.add(first, 4))
    ok(shopper.rescale(first, 6))
    ok(shopper.add(second, 2))
    ok(shopper.set_line(second, ingredient_id, other, 3))
    removed = next(line for line in expected_lines(seed, second, "1001", 2) if line[0] != ingredient_id)
    ok(shopper.set_line(second, removed[0], removed[1], 0))
    handed = own_basket(shopper)
    assert len(contents(handed)) == 2
    token = new_token(shopper)

    redeemer = customer(client, kind, store_id="1002")
    response = redeem(redeemer, token)
    body = ok(response)
    assert set(body) == {"basket", "changes", "transfer"}
    assert body["transfer"] == {**SOURCE, "recipe_count": 2}
    assert contents(body["basket"]) == contents(handed)
    assert_priced_at(seed, body["basket"], "1002")
    assert body["changes"] == as_changes(basket_products(handed))
    assert own_basket(redeemer) == body["basket"]
    assert body["basket"]["recipe_count"] == 2

    # The source basket is emptied, and stays open (at its store).
    emptied = own_basket(shopper)
    assert (emptied["recipes"], emptied["products"], emptied["store_id"]) == ([], [], "1001")
    identity = shopper.headers["Authorization"].split()[1]
    with app.app_context():
        statuses = db.session.scalars(select(Basket.status).where(Basket.identity_id == identity)).all()
    assert statuses == ["open"]
    (row,) = transfer_rows(app, shopper)
    assert row.redeemed_at is not None and row.revoked_at is None
    # The moved entries count as the most recently added.
    assert ok(redeemer.add("3", 4))["basket"]["recipes"][-1]["recipe_id"] == "3"


def test_the_transferred_recipes_are_the_shoppers_own_until_the_merge_at_login(client: FlaskClient) -> None:
    """The retailer's logged-out visitor holds the transferred recipes as recipes (not only their products): its
    basket lists them with their guests and lines, its cart's report (the products) keeps them, the merge at
    login hands them to the user, who can remove one as a recipe (its products leave the cart)."""
    shopper = reader(client)
    ok(shopper.add("4", 6))
    handed = own_basket(shopper)
    visitor_id = f"customer-{uuid.uuid4().hex}"
    visitor = Shopper(client, f"authless_id {visitor_id}", "1001", supplier_token=RETAILER_TOKEN)
    ok(redeem(visitor, new_token(shopper)))
    assert contents(visitor.basket()) == contents(handed)
    assert contents(ok(visitor.reconcile(basket_products(handed)))["basket"]) == contents(handed)

    user = customer(client, "user_id")
    ok(user.add("3", 2))
    merged = ok(user.merge(visitor_id))["basket"]
    assert [(e["recipe_id"], e["guests"]) for e in merged["recipes"]] == [("3", 2), ("4", 6)]
    assert contents(merged)[1] == contents(handed)[0]
    removed = ok(user.remove("4"))
    assert [e["recipe_id"] for e in removed["basket"]["recipes"]] == ["3"]
    assert removed["changes"] == as_changes({p: -q for p, q in basket_products(handed).items()})


def test_a_recipe_both_baskets_hold_takes_the_transferred_entry(client: FlaskClient, seed, source: Shopper) -> None:
    """As a merge of an authless basket: the transferred entry replaces the retailer's, and the moved
    entries come after the others."""
    redeemer = customer(client, "user_id")
    ok(redeemer.add("1", 2))
    ok(redeemer.add("3", 4))
    before = basket_products(own_basket(redeemer))
    ok(source.rescale("1", 6))
    body = ok(redeem(redeemer, new_token(source)))
    assert [(e["recipe_id"], e["guests"]) for e in body["basket"]["recipes"]] == [("3", 4), ("1", 6), ("2", 2)]
    expected: Counter[str] = Counter()
    for recipe_id, guests in (("3", 4), ("1", 6), ("2", 2)):
        expected += products_of(expected_lines(seed, recipe_id, "1001", guests))
    assert basket_products(body["basket"]) == expected
    assert body["changes"] == as_changes(diff(expected, before))
    assert body["transfer"]["recipe_count"] == 2


def test_a_source_basket_emptied_meanwhile_redeems_nothing(client: FlaskClient, source: Shopper) -> None:
    token = new_token(source)
    ok(source.remove("1"))
    ok(source.remove("2"))
    redeemer = customer(client, store_id="1002")
    ok(redeemer.add("4", 4, store_id="1001"))
    had = own_basket(redeemer)
    body = ok(redeem(redeemer, token))
    assert body["changes"] == [] and body["transfer"] == {**SOURCE, "recipe_count": 0}
    assert contents(body["basket"]) == contents(had)
    assert body["basket"]["store_id"] == "1002"  # moved to the store asked, as a GET with store_id


def test_a_token_redeems_once(client: FlaskClient, source: Shopper) -> None:
    token = new_token(source)
    redeemer = customer(client)
    ok(redeem(redeemer, token))
    after = own_basket(redeemer)
    ok(source.add("4", 4))  # the source basket holds something again: still not redeemed twice
    for other in (redeemer, customer(client, "user_id")):
        body = problem(redeem(other, token), 410, "redeemed")
        assert body["title"] == "Gone"
    assert own_basket(redeemer) == after
    assert [e["recipe_id"] for e in own_basket(source)["recipes"]] == ["4"]


def test_an_expired_token_is_410_expired(app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    shopper = reader(client)
    ok(shopper.add("1", 4))
    monkeypatch.setitem(app.config, "TRANSFER_TTL_SECONDS", 0.05)
    token = new_token(shopper)
    threading.Event().wait(0.1)
    redeemer = customer(client)
    problem(redeem(redeemer, token), 410, "expired")
    assert own_basket(redeemer)["recipes"] == []
    assert [e["recipe_id"] for e in own_basket(shopper)["recipes"]] == ["1"]

    monkeypatch.undo()
    token = new_token(shopper)
    expire(app, token)
    problem(redeem(redeemer, token), 410, "expired")
    assert [e["recipe_id"] for e in own_basket(shopper)["recipes"]] == ["1"]


def test_a_newer_transfer_revokes_the_earlier_one(app: Flask, client: FlaskClient, source: Shopper) -> None:
    first = new_token(source)
    second = new_token(source)
    redeemer = customer(client)
    problem(redeem(redeemer, first), 410, "expired")  # revoked counts as expired
    assert own_basket(redeemer)["recipes"] == []
    assert ok(redeem(redeemer, second))["transfer"]["recipe_count"] == 2
    rows = transfer_rows(app, source)
    assert [(row.revoked_at is not None, row.redeemed_at is not None) for row in rows] == [(True, False), (False, True)]
    # A redeemed transfer is not revoked by the next one; at most one pending per shopper.
    ok(source.add("3", 4))
    new_token(source)
    new_token(source)
    rows = transfer_rows(app, source)
    assert [(row.revoked_at is not None, row.redeemed_at is not None) for row in rows] == [
        (True, False), (False, True), (True, False), (False, False),
    ]  # fmt: skip


def test_transfers_are_per_shopper(app: Flask, client: FlaskClient, source: Shopper) -> None:
    """Another reader's transfer revokes nothing of this one's."""
    token = new_token(source)
    other = reader(client)
    ok(other.add("3", 4))
    new_token(other)
    assert ok(redeem(customer(client), token))["transfer"]["recipe_count"] == 2


def test_another_suppliers_token_is_404(app: Flask, client: FlaskClient, source: Shopper) -> None:
    """Another retailer, the publisher itself: the same 404 as an unknown token, and the token is
    not spent (the right retailer still redeems it)."""
    token = new_token(source)
    for intruder in (customer(client, token=NOPERS_TOKEN), reader(client), reader(client, "user_id")):
        body = problem(redeem(intruder, token), 404)
        assert body["detail"] == NO_SUCH_TRANSFER
        assert own_basket(intruder)["recipes"] == []
    assert len(own_basket(source)["recipes"]) == 2
    assert ok(redeem(customer(client), token))["transfer"]["recipe_count"] == 2
    # Redeemed, expired or revoked: still 404 for another supplier (it never says which).
    expired = new_token(reader_with_basket(client))
    expire(app, expired)
    for gone in (token, expired):
        assert problem(redeem(customer(client, token=NOPERS_TOKEN), gone), 404)["detail"] == NO_SUCH_TRANSFER


def reader_with_basket(client: FlaskClient) -> Shopper:
    shopper = reader(client)
    ok(shopper.add("5", 4))
    return shopper


@pytest.mark.parametrize("token", ["nope", "x" * 200, "aUVEEjBux4vj0dCLkGafhrLeAkecLHPmjlzZevfL968"])
def test_an_unknown_token_is_404(client: FlaskClient, token: str) -> None:
    assert problem(redeem(customer(client), token), 404)["detail"] == NO_SUCH_TRANSFER


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "token"),
        ({"token": ""}, "token"),
        ({"token": 5}, "token"),
        ({"token": "x" * 201}, "token"),
        ({"token": "t", "store_id": "9"}, "store_id"),
    ],
)
def test_redeem_validation_is_400(client: FlaskClient, body: dict[str, Any], field: str) -> None:
    shopper = customer(client)
    path = "/api/v1/basket/transfers/redeem"
    response = client.post(path, json={"store_id": "1001", **body}, headers=shopper.headers)
    assert response.status_code == 400
    assert list(response.json["errors"]["json"]) == [field]


def test_an_unknown_store_comes_before_the_token(client: FlaskClient, source: Shopper) -> None:
    token = new_token(source)
    redeemer = customer(client, store_id="999")
    response = redeem(redeemer, token)
    assert response.status_code == 400
    assert response.json["errors"] == {"json": {"store_id": ["Unknown store."]}}
    assert ok(redeem(customer(client), token))["transfer"]["recipe_count"] == 2


# --- Idempotency-Key -----------------------------------------------------------------------


def keyed(shopper: Shopper, key: str) -> Shopper:
    return shopper.with_headers({"Idempotency-Key": key})


def test_a_keyed_transfer_replays_its_token_without_a_new_transfer(app: Flask, source: Shopper) -> None:
    key = f"key-{uuid.uuid4().hex}"
    first = hand_over(keyed(source, key))
    body = created(first)
    for _ in range(2):
        again = hand_over(keyed(source, key))
        assert (again.status_code, again.json) == (201, body)
        assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    (row,) = transfer_rows(app, source)
    assert row.revoked_at is None  # the replays revoked nothing
    assert ok(redeem(customer(source.client), body["token"]))["transfer"]["recipe_count"] == 2
    # The stored outcome answers the same even once the transfer is redeemed.
    assert hand_over(keyed(source, key)).json == body


def test_a_keyed_refusal_is_stored_too(client: FlaskClient) -> None:
    shopper = reader(client)
    key = f"key-{uuid.uuid4().hex}"
    refused = hand_over(keyed(shopper, key))
    problem(refused, 409, "empty")
    ok(shopper.add("1", 4))
    again = hand_over(keyed(shopper, key))
    assert (again.status_code, again.json) == (409, refused.json)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert created(hand_over(keyed(shopper, f"key-{uuid.uuid4().hex}")))["recipe_count"] == 1


def test_a_keyed_redeem_replays_its_answer(app: Flask, client: FlaskClient, source: Shopper) -> None:
    token = new_token(source)
    redeemer = customer(client, "user_id")
    key = f"key-{uuid.uuid4().hex}"
    first = redeem(keyed(redeemer, key), token)
    body = ok(first)
    ok(redeemer.add("3", 4))
    again = redeem(keyed(redeemer, key), token)
    assert (again.status_code, again.json) == (200, body)
    assert again.headers["Idempotent-Replayed"] == "true"
    # Without the key, the token is spent.
    problem(redeem(redeemer, token), 410, "redeemed")
    # Another key for the same redeem: a new request, answered as the token is now.
    problem(redeem(keyed(redeemer, f"key-{uuid.uuid4().hex}"), token), 410, "redeemed")
    identity = redeemer.headers["Authorization"].split()[1]
    with app.app_context():
        stored = db.session.scalar(
            select(func.count()).select_from(IdempotencyKey).where(IdempotencyKey.identity_id == identity)
        )
    assert stored == 2


# --- concurrency ---------------------------------------------------------------------------

REDEEMERS = 30


@pytest.fixture(scope="module")
def crowded_app(backend: Any) -> Iterator[Flask]:
    """The seeded application with a connection for each of REDEEMERS requests at once (the default
    pool holds 15: the others would wait for one while the first ones wait for them)."""
    app = migrate_and_seed(make_app(backend, {"pool_size": REDEEMERS + 2, "max_overflow": 0}))
    yield app
    with app.app_context():
        db.engine.dispose()


def test_concurrent_redeems_of_one_token_apply_once(crowded_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Thirty shoppers of the retailer redeem one token at once, each having found it pending: one
    gets the entries, the others 410 redeemed."""
    app = crowded_app
    shopper = reader(app.test_client())
    ok(shopper.add("1", 4))
    ok(shopper.add("2", 2))
    handed = own_basket(shopper)
    token = new_token(shopper)
    redeemers = [customer(app.test_client(), ("authless_id", "user_id")[n % 2]) for n in range(REDEEMERS)]
    meet_before(monkeypatch, baskets, "_lock_open_basket", REDEEMERS)
    answers = at_once([lambda r=r: redeem(r, token) for r in redeemers])
    monkeypatch.undo()

    statuses = Counter(answer.status_code for answer in answers)
    assert statuses == {200: 1, 410: REDEEMERS - 1}, [(a.status_code, a.json) for a in answers if a.status_code >= 500]
    assert {answer.json["reason"] for answer in answers if answer.status_code == 410} == {"redeemed"}
    (winner,) = [r for r, answer in zip(redeemers, answers, strict=True) if answer.status_code == 200]
    assert contents(own_basket(winner)) == contents(handed)
    assert all(own_basket(r)["recipes"] == [] for r in redeemers if r is not winner)
    assert own_basket(shopper)["recipes"] == []


def test_concurrent_transfers_and_redeems_never_deadlock(crowded_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """New transfers (revoking the pending one) and redeems of it at once: every request answers
    (no deadlock, no 500), at most one redeem applies, and the shopper ends with one pending transfer
    at most."""
    app = crowded_app
    shopper = reader(app.test_client())
    ok(shopper.add("1", 4))
    token = new_token(shopper)
    parties = 8
    meet_before(monkeypatch, baskets, "_lock_open_basket", parties)
    calls = [lambda: redeem(customer(app.test_client()), token) for _ in range(parties // 2)]
    same_reader = shopper.headers["Authorization"]
    calls += [
        lambda: hand_over(Shopper(app.test_client(), same_reader, supplier_token=PUBLISHER_TOKEN))
        for _ in range(parties // 2)
    ]
    answers = at_once(calls)
    monkeypatch.undo()

    redeems, creations = answers[: parties // 2], answers[parties // 2 :]
    assert {a.status_code for a in redeems} <= {200, 410}, [a.json for a in redeems]
    assert sum(a.status_code == 200 for a in redeems) <= 1
    assert {a.status_code for a in creations} <= {201, 409}, [a.json for a in creations]
    assert all(a.json["reason"] == "empty" for a in creations if a.status_code == 409)
    rows = transfer_rows(app, shopper)
    assert sum(row.redeemed_at is None and row.revoked_at is None for row in rows) <= 1

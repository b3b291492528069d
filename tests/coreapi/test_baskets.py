"""Baskets: recipe entries, product lines, changes for the retailer cart, reconcile, confirm, merge.

Expected quantities and prices are computed from the seed JSON alone (``seed``), never through
coreapi's own code.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import threading
import uuid
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update
from werkzeug.test import TestResponse

from coreapi.extensions import db
from coreapi.models import AwaitedProduct, Basket, ShownProduct
from coreapi.services import baskets, cart_waits

BASKET_FIELDS = {"store_id", "recipes", "products", "recipe_count", "total", "currency"}
ENTRY_FIELDS = {"recipe_id", "guests", "title", "picture_url", "lines"}
LINE_FIELDS = {
    "ingredient_id", "product_id", "quantity", "name", "brand", "size", "picture_url",
    "unit_price", "price", "available",
}  # fmt: skip


# --- expectations from the seed ------------------------------------------------------------


def packages(seed, recipe_id: str, ingredient_id: str, product_id: str, guests: int) -> int:
    """ceil(needed / size), on exact fractions of the seed's numbers."""
    recipe = seed.recipes[recipe_id]
    (item,) = [i for i in recipe["ingredients"] if i["id"] == ingredient_id]
    needed = Fraction(str(item["quantity"])) * guests / recipe["guests"]
    return math.ceil(needed / Fraction(str(seed.products[product_id]["size_value"])))


Lines = list[tuple[str, str, int]]  # (ingredient, product, packages)


def expected_lines(seed, recipe_id: str, store_id: str, guests: int) -> Lines:
    """``(ingredient, product, packages)`` per ingredient with an available product, in order."""
    lines = []
    for item in seed.recipes[recipe_id]["ingredients"]:
        product_id = seed.first_available(store_id, item["id"])
        if product_id is not None:
            lines.append((item["id"], product_id, packages(seed, recipe_id, item["id"], product_id, guests)))
    return lines


def products_of(lines: Lines) -> Counter[str]:
    held: Counter[str] = Counter()
    for _, product_id, quantity in lines:
        held[product_id] += quantity
    return held


def as_changes(diff: Counter[str] | dict[str, int]) -> list[dict[str, Any]]:
    return [
        {"id": product_id, "quantity": quantity}
        for product_id, quantity in sorted(diff.items(), key=lambda item: int(item[0]))
        if quantity != 0
    ]


def basket_products(basket: dict[str, Any]) -> Counter[str]:
    return Counter({p["id"]: p["quantity"] for p in basket["products"]})


def line_tuples(entry: dict[str, Any]) -> Lines:
    return [(ln["ingredient_id"], ln["product_id"], ln["quantity"]) for ln in entry["lines"]]


def entry(basket: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    (found,) = [e for e in basket["recipes"] if e["recipe_id"] == recipe_id]
    return found


def diff(after: Counter[str], before: Counter[str]) -> dict[str, int]:
    return {key: after[key] - before[key] for key in after.keys() | before.keys()}


def recipe_sharing_products(seed, store_id: str) -> tuple[str, str, str]:
    """Two recipes whose lines share a product at the store, and that product."""
    ids = sorted(seed.recipes, key=int)
    for index, first in enumerate(ids):
        mine = products_of(expected_lines(seed, first, store_id, 4))
        for second in ids[index + 1 :]:
            theirs = products_of(expected_lines(seed, second, store_id, 4))
            shared = sorted(mine.keys() & theirs.keys(), key=int)
            if shared and len(theirs) > 1:
                return first, second, shared[0]
    raise AssertionError("the seed must have two recipes sharing a product")


def replaceable(seed, store_id: str) -> tuple[str, str, str, str]:
    """A recipe, an ingredient of it, its first available product and another available one."""
    for recipe_id in sorted(seed.recipes, key=int):
        for item in seed.recipes[recipe_id]["ingredients"]:
            available = [p for p in seed.ranked_products(item["id"]) if seed.is_available(store_id, p)]
            if len(available) >= 2:
                return recipe_id, item["id"], available[0], available[1]
    raise AssertionError("the seed must have an ingredient with two available products")


# --- a shopper: one identity's calls -------------------------------------------------------


RETAILER_TOKEN = "demo-retailer-token"
NOPERS_TOKEN = "demo-nopers-token"  # another retailer


class Shopper:
    """One identity's calls under one supplier (the demo retailer unless told)."""

    def __init__(
        self,
        client: FlaskClient,
        authorization: str,
        store_id: str = "1001",
        supplier_token: str | None = RETAILER_TOKEN,
    ) -> None:
        self.client = client
        self.headers = {"Authorization": authorization}
        if supplier_token is not None:
            self.headers["Supplier-Token"] = supplier_token
        self.store_id = store_id

    def with_headers(self, headers: dict[str, str]) -> Shopper:
        """The same shopper sending ``headers`` too (``Idempotency-Key``...)."""
        other = copy.copy(self)
        other.headers = {**self.headers, **headers}
        return other

    def basket(self, store_id: str | None = None, **headers: str) -> dict[str, Any]:
        response = self.client.get(
            f"/api/v1/basket?store_id={store_id or self.store_id}",
            headers={**self.headers, **headers},
        )
        assert response.status_code == 200, response.json
        return response.json

    def add(
        self, recipe_id: str, guests: int, store_id: str | None = None, lines: list[dict[str, Any]] | None = None
    ) -> TestResponse:
        body: dict[str, Any] = {"recipe_id": recipe_id, "guests": guests, "store_id": store_id or self.store_id}
        if lines is not None:
            body["lines"] = lines
        return self.client.post("/api/v1/basket/recipes", json=body, headers=self.headers)

    def rescale(self, recipe_id: str, guests: int) -> TestResponse:
        return self.client.patch(
            f"/api/v1/basket/recipes/{recipe_id}",
            json={"guests": guests, "store_id": self.store_id},
            headers=self.headers,
        )

    def remove(self, recipe_id: str) -> TestResponse:
        return self.client.delete(f"/api/v1/basket/recipes/{recipe_id}?store_id={self.store_id}", headers=self.headers)

    def set_line(
        self, recipe_id: str, ingredient_id: str, product_id: str, quantity: int, guests: int | None = None
    ) -> TestResponse:
        body = {"product_id": product_id, "quantity": quantity, "store_id": self.store_id}
        return self.client.put(
            f"/api/v1/basket/recipes/{recipe_id}/ingredients/{ingredient_id}",
            json=body if guests is None else {**body, "guests": guests},
            headers=self.headers,
        )

    def shown(self) -> dict[str, Any]:
        """The retailer cart reported as holding the whole basket (it followed every change): the basket."""
        return ok(self.reconcile(dict(basket_products(self.basket()))))["basket"]

    def reconcile(self, cart: dict[str, int], reported: dict[str, Any] | None = None) -> TestResponse:
        """The retailer cart reported, by the browser and at the time ``reported`` says when given."""
        body: dict[str, Any] = {
            "store_id": self.store_id,
            "cart": [{"id": product_id, "quantity": q} for product_id, q in cart.items()],
        }
        if reported is not None:
            body["reported"] = reported
        return self.client.post("/api/v1/basket/reconcile", json=body, headers=self.headers)

    def confirm(
        self, total: float | None = None, order_id: str | None = None, cart: dict[str, int] | None = None
    ) -> TestResponse:
        """Confirm with ``total``, by default the basket's own total (what the user paid), and the paid ``cart``
        when given."""
        if total is None:
            total = self.basket()["total"]
        body: dict[str, Any] = {"store_id": self.store_id, "total": total}
        if order_id is not None:
            body["order_id"] = order_id
        if cart is not None:
            body["cart"] = [{"id": product_id, "quantity": q} for product_id, q in cart.items()]
        return self.client.post("/api/v1/basket/confirm", json=body, headers=self.headers)

    def merge(self, authless_id: str, store_id: str | None = None) -> TestResponse:
        """The merge at ``store_id`` (the shopper's store by default; "" sends it empty)."""
        store_id = self.store_id if store_id is None else store_id
        return self.client.get(
            f"/api/v1/basket/merge-authless-basket?authless_id={authless_id}&store_id={store_id}",
            headers=self.headers,
        )

    def merge_without_store(self, authless_id: str) -> TestResponse:
        return self.client.get(f"/api/v1/basket/merge-authless-basket?authless_id={authless_id}", headers=self.headers)


def ok(response: TestResponse) -> dict[str, Any]:
    assert response.status_code == 200, response.json
    return response.json


@pytest.fixture
def authless_id() -> str:
    return f"visitor-{uuid.uuid4().hex}"


@pytest.fixture
def visitor(client: FlaskClient, authless_id: str) -> Shopper:
    return Shopper(client, f"authless_id {authless_id}")


@pytest.fixture
def user(client: FlaskClient, user_id: str) -> Shopper:
    return Shopper(client, f"user_id {user_id}")


# --- identity and arguments ----------------------------------------------------------------

ROUTES = [
    ("get", "/api/v1/basket?store_id=1001", None),
    ("post", "/api/v1/basket/recipes", {"recipe_id": "1", "guests": 4, "store_id": "1001"}),
    ("patch", "/api/v1/basket/recipes/1", {"guests": 4, "store_id": "1001"}),
    ("delete", "/api/v1/basket/recipes/1?store_id=1001", None),
    (
        "put",
        "/api/v1/basket/recipes/1/ingredients/thon",
        {"product_id": "100153", "quantity": 1, "store_id": "1001"},
    ),
    ("post", "/api/v1/basket/reconcile", {"store_id": "1001", "cart": []}),
    ("post", "/api/v1/basket/confirm", {"store_id": "1001", "total": 1}),
    ("get", "/api/v1/basket/merge-authless-basket?authless_id=a&store_id=1001", None),
    ("post", "/api/v1/basket/transfers", {"store_id": "1001"}),
    ("post", "/api/v1/basket/transfers/redeem", {"token": "t", "store_id": "1001"}),
]
SHOW = ("get", "/api/v1/basket?store_id=1001", None)
MERGE = ("get", "/api/v1/basket/merge-authless-basket?authless_id=a&store_id=1001", None)
# store_id is optional on GET /basket and on the merge (test_merge_without_a_store...).
STORE_REQUIRED = [route for route in ROUTES if route not in (SHOW, MERGE)]


def call(client: FlaskClient, method: str, path: str, body: Any, **headers: str) -> TestResponse:
    kwargs: dict[str, Any] = {"headers": headers}
    if body is not None:
        kwargs["json"] = body
    return getattr(client, method)(path, **kwargs)


def without_store(path: str, body: Any) -> tuple[str, Any, str]:
    """The route's call without ``store_id``, and where the store is read from."""
    if body is None:
        path = path.replace("store_id=1001", "").replace("?&", "?").rstrip("?&")
        return path, None, "query"
    return path, {k: v for k, v in body.items() if k != "store_id"}, "json"


def with_store(path: str, body: Any, store_id: str) -> tuple[str, Any]:
    if body is None:
        return path.replace("store_id=1001", f"store_id={store_id}"), None
    return path, {**body, "store_id": store_id}


RETAILER = {"Supplier-Token": RETAILER_TOKEN}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_every_route_needs_an_identity(client: FlaskClient, method: str, path: str, body: Any) -> None:
    response = call(client, method, path, body, **RETAILER)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"
    assert "Authorization" in response.json["detail"]
    # Identity first: a call without store is 401 too, not 400.
    assert call(client, method, *without_store(path, body)[:2], **RETAILER).status_code == 401


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_every_route_needs_a_known_supplier_token(client: FlaskClient, method: str, path: str, body: Any) -> None:
    """A basket belongs to a supplier's shopper: no Supplier-Token, no basket (before anything else)."""
    for headers in ({"Authorization": "user_id u-token"}, {}):
        response = call(client, method, path, body, **headers)
        assert response.status_code == 401
        assert response.mimetype == "application/problem+json"
        assert "Supplier-Token" in response.json["detail"]
        assert call(client, method, *without_store(path, body)[:2], **headers).status_code == 401
    unknown = call(client, method, path, body, Authorization="user_id u-token", **{"Supplier-Token": "nope"})
    assert unknown.status_code == 401
    assert "Supplier-Token" in unknown.json["detail"]


@pytest.mark.parametrize(("method", "path", "body"), STORE_REQUIRED)
def test_store_id_is_required(client: FlaskClient, method: str, path: str, body: Any) -> None:
    path, body, location = without_store(path, body)
    response = call(client, method, path, body, Authorization="user_id u-store", **RETAILER)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert response.json["errors"] == {location: {"store_id": ["Missing data for required field."]}}


@pytest.mark.parametrize(
    ("method", "path", "body", "store_id"),
    [
        (*route, store_id)
        for route in ROUTES
        for store_id in ("999", "nope", "")
        if route in STORE_REQUIRED or store_id  # an empty one is no store on GET /basket and the merge (below)
    ],
)
def test_unknown_or_empty_store_is_400(client: FlaskClient, method: str, path: str, body: Any, store_id: str) -> None:
    location = "query" if body is None else "json"
    response = call(client, method, *with_store(path, body, store_id), Authorization="user_id u-store", **RETAILER)
    assert response.status_code == 400
    expected = ["Unknown store."] if store_id else ["Missing data for required field."]
    assert response.json["errors"] == {location: {"store_id": expected}}


def test_merge_is_for_connected_users_only(client: FlaskClient) -> None:
    path = "/api/v1/basket/merge-authless-basket"
    assert client.get(path, headers=RETAILER).status_code == 401
    response = client.get(path, headers={"Authorization": "authless_id v-1", **RETAILER})
    assert response.status_code == 403
    assert response.mimetype == "application/problem+json"
    response = client.get(f"{path}?store_id=1001", headers={"Authorization": "user_id u-1", **RETAILER})
    assert response.status_code == 400
    missing = ["Missing data for required field."]
    assert response.json["errors"] == {"query": {"authless_id": missing}}


@pytest.mark.parametrize("guests", [0, 51, "4", 2.5, None, True])
def test_guests_are_1_to_50(visitor: Shopper, guests: Any) -> None:
    response = visitor.add("1", guests)
    assert response.status_code == 400
    assert "guests" in response.json["errors"]["json"]
    ok(visitor.add("1", 4))
    assert "guests" in visitor.rescale("1", guests).json["errors"]["json"]


@pytest.mark.parametrize("quantity", [-1, 100, "1", 1.5])
def test_line_quantity_is_0_to_99(visitor: Shopper, quantity: Any) -> None:
    response = visitor.set_line("1", "thon", "100153", quantity)
    assert response.status_code == 400
    assert "quantity" in response.json["errors"]["json"]


def test_too_long_identity_is_400(client: FlaskClient) -> None:
    response = client.get("/api/v1/basket?store_id=1001", headers={"Authorization": "user_id " + "u" * 201, **RETAILER})
    assert response.status_code == 400
    assert "Authorization" in response.json["errors"]["headers"]


# --- reading -------------------------------------------------------------------------------


def test_an_identity_without_basket_has_an_empty_one(visitor: Shopper) -> None:
    assert visitor.basket() == {
        "store_id": "1001", "recipes": [], "products": [], "recipe_count": 0, "total": 0.0,
        "currency": "EUR",
    }  # fmt: skip


EMPTY_AT_NO_STORE = {
    "store_id": None, "recipes": [], "products": [], "recipe_count": 0, "total": 0.0, "currency": "EUR",
}  # fmt: skip


def own_store_basket(shopper: Shopper, query: str = "") -> dict[str, Any]:
    """``GET /basket`` without a store (``query``: ``?store_id=``, empty, if given)."""
    response = shopper.client.get(f"/api/v1/basket{query}", headers=shopper.headers)
    assert response.status_code == 200, response.json
    return response.json


@pytest.mark.parametrize("kind", ["user_id", "authless_id"])
def test_without_a_store_a_shopper_without_basket_has_an_empty_one_at_no_store(
    app: Flask, client: FlaskClient, kind: str
) -> None:
    identity = f"nobody-{uuid.uuid4().hex}"
    shopper = Shopper(client, f"{kind} {identity}")
    for query in ("", "?store_id=", "?store_id=%20"):
        assert own_store_basket(shopper, query) == EMPTY_AT_NO_STORE
    with app.app_context():  # nothing was created
        assert db.session.scalar(select(func.count()).select_from(Basket).where(Basket.identity_id == identity)) == 0


def test_without_a_store_the_basket_answers_at_its_own_store_without_moving(
    visitor: Shopper, seed, count_queries: Any
) -> None:
    """The publisher's page asks whether a recipe is in the basket without knowing any store: the
    basket is answered where it is, priced there, and stays there."""
    at_1002 = Shopper(visitor.client, visitor.headers["Authorization"], store_id="1002")
    ok(at_1002.add("1", 4))
    ok(at_1002.add("2", 2))
    expected = at_1002.basket()
    assert expected["store_id"] == "1002"
    with count_queries() as reading:
        assert own_store_basket(visitor) == expected
    assert not [statement for statement in reading if not statement.lstrip().upper().startswith("SELECT")]
    assert own_store_basket(visitor, "?store_id=") == expected
    # Its own store still: a write elsewhere moves it, as always, and a read without store follows it.
    ok(visitor.add("3", 4))
    moved = own_store_basket(visitor)
    assert moved["store_id"] == "1001" and moved == visitor.basket()
    assert [e["recipe_id"] for e in moved["recipes"]] == ["1", "2", "3"]


def test_without_a_store_an_emptied_basket_keeps_its_store(visitor: Shopper) -> None:
    ok(visitor.add("1", 4))
    ok(visitor.remove("1"))
    assert own_store_basket(visitor) == {**EMPTY_AT_NO_STORE, "store_id": "1001"}


def test_without_a_store_the_basket_is_the_shoppers_own(client: FlaskClient, visitor: Shopper) -> None:
    """Another supplier's basket of the same identity is not answered."""
    ok(visitor.add("1", 4))
    other_supplier = Shopper(client, visitor.headers["Authorization"], supplier_token=NOPERS_TOKEN)
    assert own_store_basket(other_supplier) == EMPTY_AT_NO_STORE
    assert own_store_basket(visitor)["recipe_count"] == 1


def test_answer_fields(visitor: Shopper, seed) -> None:
    body = ok(visitor.add("1", 4))
    assert set(body) == {"basket", "changes"}
    basket = body["basket"]
    assert set(basket) == BASKET_FIELDS and basket == visitor.basket()
    (recipe,) = basket["recipes"]
    assert set(recipe) == ENTRY_FIELDS
    assert recipe["title"] == seed.recipes["1"]["title"]
    assert recipe["picture_url"].endswith("/media/recipes/1.svg")
    for line in recipe["lines"]:
        assert set(line) == LINE_FIELDS
        product = seed.products[line["product_id"]]
        assert (line["name"], line["brand"]) == (product["name"], product["brand"])
        assert line["picture_url"].endswith(f"/media/products/{line['product_id']}.svg")
        assert isinstance(line["quantity"], int)
    english = visitor.basket(**{"Language-Id": "en"})
    assert english["recipes"][0]["title"] == seed.recipes["1"]["title_en"]


# --- adding --------------------------------------------------------------------------------


@pytest.mark.parametrize("store_id", ["1001", "1002"])
def test_adding_every_recipe(client: FlaskClient, seed, store_id: str) -> None:
    """First available product per ingredient, ceil(needed / size) packages, prices at the store.

    Every recipe of the seed, ten to a basket, each for its own number of guests.
    """
    ids = sorted(seed.recipes, key=int)
    for start in range(0, len(ids), 10):
        shopper = Shopper(client, f"authless_id every-{uuid.uuid4().hex}", store_id)
        held: Counter[str] = Counter()
        for number, recipe_id in enumerate(ids[start : start + 10], start=start):
            guests = 1 + number % 7
            lines = expected_lines(seed, recipe_id, store_id, guests)
            body = ok(shopper.add(recipe_id, guests))
            assert body["changes"] == as_changes(products_of(lines)), recipe_id
            held += products_of(lines)
            added = entry(body["basket"], recipe_id)
            assert added["guests"] == guests
            assert line_tuples(added) == lines, recipe_id

        basket = shopper.basket()
        assert [e["recipe_id"] for e in basket["recipes"]] == ids[start : start + 10]
        assert basket["recipe_count"] == len(basket["recipes"])
        assert basket_products(basket) == held
        assert [p["id"] for p in basket["products"]] == sorted(held, key=int)
        total = Decimal(0)
        for recipe in basket["recipes"]:
            for line in recipe["lines"]:
                price = seed.shelf_price(store_id, line["product_id"])
                assert line["available"] is True
                assert line["unit_price"] == float(price)
                assert line["price"] == float(price * line["quantity"])
                total += price * line["quantity"]
        assert basket["total"] == float(total)


def test_adding_a_recipe_again_rescales_it(visitor: Shopper, seed) -> None:
    ok(visitor.add("1", 2))
    body = ok(visitor.add("1", 8))
    assert body["basket"]["recipe_count"] == 1
    before = products_of(expected_lines(seed, "1", "1001", 2))
    after = products_of(expected_lines(seed, "1", "1001", 8))
    assert body["changes"] == as_changes(diff(after, before))
    assert all(change["quantity"] > 0 for change in body["changes"])
    assert line_tuples(entry(body["basket"], "1")) == expected_lines(seed, "1", "1001", 8)


@pytest.mark.parametrize("recipe_id", ["999999", "nope"])
def test_adding_an_unknown_recipe_is_404(visitor: Shopper, recipe_id: str) -> None:
    response = visitor.add(recipe_id, 4)
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert visitor.basket()["recipes"] == []


# --- re-scaling and removing ---------------------------------------------------------------


def test_rescaling_changes_signs(visitor: Shopper, seed) -> None:
    ok(visitor.add("1", 4))
    up = ok(visitor.rescale("1", 12))
    four = products_of(expected_lines(seed, "1", "1001", 4))
    twelve = products_of(expected_lines(seed, "1", "1001", 12))
    assert up["changes"] == as_changes(diff(twelve, four))
    assert up["changes"] and all(c["quantity"] > 0 for c in up["changes"])
    down = ok(visitor.rescale("1", 1))
    one = products_of(expected_lines(seed, "1", "1001", 1))
    assert down["changes"] == as_changes(diff(one, twelve))
    assert down["changes"] and all(c["quantity"] < 0 for c in down["changes"])
    assert entry(down["basket"], "1")["guests"] == 1
    assert ok(visitor.rescale("1", 1))["changes"] == []


def test_the_guests_the_entry_has_keep_the_quantities_the_shopper_set(visitor: Shopper, seed) -> None:
    """Adding the recipe again or re-scaling it for the guests it has (the SDK's rollback of an "add all" of a recipe
    the basket held) changes nothing: a line the shopper set stays as set."""
    recipe_id, ingredient_id, _, other = replaceable(seed, "1001")
    ok(visitor.add(recipe_id, 4))
    ok(visitor.set_line(recipe_id, ingredient_id, other, 7))
    held = visitor.basket()
    for again in (lambda: visitor.add(recipe_id, 4), lambda: visitor.rescale(recipe_id, 4)):
        body = ok(again())
        assert body["changes"] == []
        assert entry(body["basket"], recipe_id) == entry(held, recipe_id)
    body = ok(visitor.rescale(recipe_id, 5))
    (line,) = [item for item in entry(body["basket"], recipe_id)["lines"] if item["ingredient_id"] == ingredient_id]
    assert line["quantity"] == packages(seed, recipe_id, ingredient_id, other, 5)


def test_rescaling_keeps_the_chosen_products(visitor: Shopper, seed) -> None:
    recipe_id, ingredient_id, _, other = replaceable(seed, "1001")
    ok(visitor.add(recipe_id, 4))
    ok(visitor.set_line(recipe_id, ingredient_id, other, 1))
    body = ok(visitor.rescale(recipe_id, 10))
    (line,) = [item for item in entry(body["basket"], recipe_id)["lines"]
               if item["ingredient_id"] == ingredient_id]  # fmt: skip
    assert line["product_id"] == other
    assert line["quantity"] == packages(seed, recipe_id, ingredient_id, other, 10)


def test_rescaling_or_removing_a_recipe_not_in_the_basket_is_404(visitor: Shopper) -> None:
    ok(visitor.add("1", 4))
    for response in (visitor.rescale("2", 4), visitor.remove("2"),
                     visitor.rescale("999999", 4), visitor.remove("x")):  # fmt: skip
        assert response.status_code == 404
        assert response.mimetype == "application/problem+json"


def test_removing_a_recipe(visitor: Shopper, seed) -> None:
    first, second, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(first, 4))
    ok(visitor.add(second, 4))
    body = ok(visitor.remove(second))
    removed = products_of(expected_lines(seed, second, "1001", 4))
    assert body["changes"] == as_changes({k: -v for k, v in removed.items()})
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == [first]
    kept = products_of(expected_lines(seed, first, "1001", 4))
    assert basket_products(body["basket"]) == kept and kept[shared] > 0
    assert visitor.remove(second).status_code == 404


# --- one ingredient's line -----------------------------------------------------------------


def test_replacing_a_product_is_a_removal_and_an_addition(visitor: Shopper, seed) -> None:
    recipe_id, ingredient_id, first, other = replaceable(seed, "1001")
    ok(visitor.add(recipe_id, 4))
    had = packages(seed, recipe_id, ingredient_id, first, 4)
    body = ok(visitor.set_line(recipe_id, ingredient_id, other, 3))
    expected = [{"id": first, "quantity": -had}, {"id": other, "quantity": 3}]
    assert body["changes"] == sorted(expected, key=lambda change: int(change["id"]))
    lines = {item["ingredient_id"]: item for item in entry(body["basket"], recipe_id)["lines"]}
    assert (lines[ingredient_id]["product_id"], lines[ingredient_id]["quantity"]) == (other, 3)
    # Same product, new quantity: only the difference.
    assert ok(visitor.set_line(recipe_id, ingredient_id, other, 5))["changes"] == [{"id": other, "quantity": 2}]


def test_quantity_zero_removes_the_line_then_the_entry(visitor: Shopper, seed) -> None:
    lines = expected_lines(seed, "1", "1001", 4)
    ok(visitor.add("1", 4))
    ok(visitor.add("2", 4))
    for index, (ingredient_id, product_id, quantity) in enumerate(lines):
        body = ok(visitor.set_line("1", ingredient_id, product_id, 0))
        assert body["changes"] == [{"id": product_id, "quantity": -quantity}]
        recipes = [e["recipe_id"] for e in body["basket"]["recipes"]]
        if index < len(lines) - 1:
            assert recipes == ["1", "2"]
            assert len(entry(body["basket"], "1")["lines"]) == len(lines) - index - 1
        else:  # its last line gone, the entry goes too
            assert recipes == ["2"]
    assert ok(visitor.set_line("1", lines[0][0], lines[0][1], 0))["changes"] == []


def test_setting_a_line_adds_the_recipe_with_this_line_only(visitor: Shopper, seed) -> None:
    recipe_id, ingredient_id, _, other = replaceable(seed, "1001")
    body = ok(visitor.set_line(recipe_id, ingredient_id, other, 2))
    assert body["changes"] == [{"id": other, "quantity": 2}]
    added = entry(body["basket"], recipe_id)
    assert added["guests"] == seed.recipes[recipe_id]["guests"]
    assert line_tuples(added) == [(ingredient_id, other, 2)]


def test_a_line_with_guests_adds_the_recipe_for_them_and_an_entry_held_keeps_its_own(visitor: Shopper, seed) -> None:
    recipe_id, ingredient_id, _, other = replaceable(seed, "1001")
    guests = seed.recipes[recipe_id]["guests"] + 1
    added = entry(ok(visitor.set_line(recipe_id, ingredient_id, other, 2, guests=guests))["basket"], recipe_id)
    assert added["guests"] == guests and line_tuples(added) == [(ingredient_id, other, 2)]
    # Another device's write, made for other guests, changes the line only: the entry keeps what it holds.
    kept = entry(ok(visitor.set_line(recipe_id, ingredient_id, other, 3, guests=guests + 5))["basket"], recipe_id)
    assert kept["guests"] == guests and line_tuples(kept) == [(ingredient_id, other, 3)]


def test_quantity_zero_on_a_recipe_not_in_the_basket_changes_nothing(visitor: Shopper) -> None:
    body = ok(visitor.set_line("1", "thon", "100153", 0))
    assert body["changes"] == [] and body["basket"]["recipes"] == []


def test_a_product_that_is_not_a_candidate_is_400(visitor: Shopper, seed) -> None:
    ok(visitor.add("1", 4))
    not_candidate = next(p for p in seed.products if p not in seed.ranked_products("thon"))
    for product_id in (not_candidate, "999999", "x"):
        response = visitor.set_line("1", "thon", product_id, 1)
        assert response.status_code == 400
        assert list(response.json["errors"]) == ["json"]
        assert list(response.json["errors"]["json"]) == ["product_id"]
    assert line_tuples(visitor.basket()["recipes"][0]) == expected_lines(seed, "1", "1001", 4)


def test_an_ingredient_or_recipe_that_does_not_exist_is_404(visitor: Shopper, seed) -> None:
    not_in_recipe = next(i for i in seed.ingredients if i not in {x["id"] for x in seed.recipes["1"]["ingredients"]})
    for recipe_id, ingredient_id in (("1", not_in_recipe), ("1", "nope"), ("999999", "thon")):
        response = visitor.set_line(recipe_id, ingredient_id, "100153", 1)
        assert response.status_code == 404
        assert response.mimetype == "application/problem+json"


# --- a recipe added with the shopper's choices ("add all" in one write) ---------------------


def choices_case(seed, store_id: str) -> tuple[str, str, str, str, str]:
    """A recipe with an ingredient that has another available product, and another ingredient to leave out."""
    recipe_id, swapped, first, other = replaceable(seed, store_id)
    left_out = next(i for i, _, _ in expected_lines(seed, recipe_id, store_id, 4) if i != swapped)
    return recipe_id, swapped, first, other, left_out


def test_adding_a_recipe_with_choices_applies_them_in_one_write(visitor: Shopper, seed) -> None:
    recipe_id, swapped, _, other, left_out = choices_case(seed, "1001")
    default = next(p for i, p, _ in expected_lines(seed, recipe_id, "1001", 4) if i == left_out)
    lines = [
        {"ingredient_id": swapped, "product_id": other},
        {"ingredient_id": left_out, "product_id": default, "quantity": 0},
    ]
    body = ok(visitor.add(recipe_id, 4, lines=lines))
    wanted = [
        (ingredient_id, other if ingredient_id == swapped else product_id,
         packages(seed, recipe_id, swapped, other, 4) if ingredient_id == swapped else quantity)
        for ingredient_id, product_id, quantity in expected_lines(seed, recipe_id, "1001", 4)
        if ingredient_id != left_out
    ]  # fmt: skip
    assert line_tuples(entry(body["basket"], recipe_id)) == wanted
    # The retailer cart gets the chosen products only: nothing of the defaults replaced or left out.
    assert body["changes"] == as_changes(products_of(wanted))
    assert line_tuples(entry(visitor.basket(), recipe_id)) == wanted


def test_a_chosen_quantity_is_kept(visitor: Shopper, seed) -> None:
    recipe_id, swapped, _, other, _ = choices_case(seed, "1001")
    body = ok(visitor.add(recipe_id, 4, lines=[{"ingredient_id": swapped, "product_id": other, "quantity": 7}]))
    lines = {ingredient_id: (p, q) for ingredient_id, p, q in line_tuples(entry(body["basket"], recipe_id))}
    assert lines[swapped] == (other, 7)


def test_choices_on_a_recipe_in_the_basket_follow_its_rescaling(visitor: Shopper, seed) -> None:
    recipe_id, swapped, first, other, _ = choices_case(seed, "1001")
    ok(visitor.add(recipe_id, 4))
    body = ok(visitor.add(recipe_id, 6, lines=[{"ingredient_id": swapped, "product_id": other}]))
    found = entry(body["basket"], recipe_id)
    assert found["guests"] == 6
    lines = {ingredient_id: (p, q) for ingredient_id, p, q in line_tuples(found)}
    assert lines[swapped] == (other, packages(seed, recipe_id, swapped, other, 6))
    assert {"id": first, "quantity": -packages(seed, recipe_id, swapped, first, 4)} in body["changes"]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"ingredient_id": "SWAPPED", "product_id": "999999"}, "lines.1.product_id"),
        ({"ingredient_id": "SWAPPED", "product_id": "NOT_CANDIDATE"}, "lines.1.product_id"),
        ({"ingredient_id": "nope", "product_id": "OTHER"}, "lines.1.ingredient_id"),
        ({"ingredient_id": "SWAPPED", "product_id": "OTHER", "quantity": -1}, "lines.1.quantity"),
        ({"ingredient_id": "SWAPPED", "product_id": "OTHER", "quantity": 100}, "lines.1.quantity"),
        ({"ingredient_id": "SWAPPED", "product_id": "OTHER", "quantity": "2"}, "lines.1.quantity"),
        ({"ingredient_id": "SWAPPED", "product_id": ""}, "lines.1.product_id"),
        ({"product_id": "OTHER"}, "lines.1.ingredient_id"),
        ({"ingredient_id": "LEFT_OUT", "product_id": "DEFAULT"}, "lines"),  # a second line for one ingredient
    ],
)
def test_a_bad_choice_is_400_naming_it_and_changes_nothing(
    visitor: Shopper, seed, line: dict[str, Any], field: str
) -> None:
    recipe_id, swapped, _, other, left_out = choices_case(seed, "1001")
    not_candidate = next(p for p in seed.products if p not in seed.ranked_products(swapped))
    default = next(p for i, p, _ in expected_lines(seed, recipe_id, "1001", 4) if i == left_out)
    names = {
        "SWAPPED": swapped, "OTHER": other, "NOT_CANDIDATE": not_candidate, "LEFT_OUT": left_out, "DEFAULT": default,
    }  # fmt: skip
    bad = {key: names.get(value, value) if isinstance(value, str) else value for key, value in line.items()}
    ok(visitor.add("2", 4))
    before = visitor.basket()
    # A valid first choice and a bad second one: the recipe is not added, not even with the first.
    response = visitor.add(recipe_id, 4, lines=[{"ingredient_id": left_out, "product_id": default, "quantity": 0}, bad])
    assert response.status_code == 400, response.json
    assert response.mimetype == "application/problem+json"
    assert field in response.json["errors"]["json"], response.json
    assert visitor.basket() == before


def test_too_many_choices_are_400(visitor: Shopper, seed) -> None:
    recipe_id, swapped, _, other, _ = choices_case(seed, "1001")
    lines = [{"ingredient_id": f"{swapped}-{n}", "product_id": other} for n in range(101)]
    response = visitor.add(recipe_id, 4, lines=lines)
    assert response.status_code == 400
    assert "lines" in response.json["errors"]["json"]


def test_a_recipe_added_with_choices_is_retried_once(visitor: Shopper, seed) -> None:
    recipe_id, swapped, _, other, _ = choices_case(seed, "1001")
    keyed = visitor.with_headers({"Idempotency-Key": str(uuid.uuid4())})
    lines = [{"ingredient_id": swapped, "product_id": other}]
    first = keyed.add(recipe_id, 4, lines=lines)
    assert first.status_code == 200
    # Meanwhile the shopper sets the chosen line by hand: the retry must not apply the choice again.
    ok(visitor.set_line(recipe_id, swapped, other, 9))
    after = visitor.basket()
    replayed = keyed.add(recipe_id, 4, lines=lines)
    assert replayed.status_code == 200
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert replayed.json == first.json
    assert visitor.basket() == after
    # The same key with other choices is another request: refused, nothing applied.
    other_choice = keyed.add(recipe_id, 4, lines=[{"ingredient_id": swapped, "product_id": other, "quantity": 1}])
    assert other_choice.status_code == 422
    assert other_choice.json["title"] == "Unprocessable Content"  # RFC 9110's phrase (RFC 9457, section 4.2.1)
    assert visitor.basket() == after


def test_a_refused_choice_is_stored_with_its_key(visitor: Shopper, seed) -> None:
    recipe_id, swapped, *_ = choices_case(seed, "1001")
    keyed = visitor.with_headers({"Idempotency-Key": str(uuid.uuid4())})
    lines = [{"ingredient_id": swapped, "product_id": "999999"}]
    first = keyed.add(recipe_id, 4, lines=lines)
    assert first.status_code == 400
    replayed = keyed.add(recipe_id, 4, lines=lines)
    assert replayed.status_code == 400
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert visitor.basket()["recipes"] == []


# --- reconcile -----------------------------------------------------------------------------


def test_reconcile_reduces_the_newest_entries_first(visitor: Shopper, seed) -> None:
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    ok(visitor.add(newer, 4))
    old_lines = expected_lines(seed, older, "1001", 4)
    new_lines = expected_lines(seed, newer, "1001", 4)
    basket = visitor.shown()
    held = basket_products(basket)
    in_old, in_new = products_of(old_lines)[shared], products_of(new_lines)[shared]

    # One package less of the shared product: taken from the newer entry.
    cart = {**held, shared: held[shared] - 1, "999999": 3, "x": 1}
    body = ok(visitor.reconcile(cart))
    assert body["changes"] == []
    assert basket_products(body["basket"]) == held - Counter({shared: 1})
    old_entry, new_entry = entry(body["basket"], older), entry(body["basket"], newer)
    assert line_tuples(old_entry) == old_lines
    assert products_of(line_tuples(new_entry))[shared] == in_new - 1

    # More than the newer entry holds: the newer one loses its line, the older one the rest.
    cart[shared] = in_old - 1
    body = ok(visitor.reconcile(cart))
    assert shared not in products_of(line_tuples(entry(body["basket"], newer)))
    assert products_of(line_tuples(entry(body["basket"], older)))[shared] == in_old - 1
    assert basket_products(body["basket"])[shared] == in_old - 1


def test_reconcile_removes_entries_left_without_lines(visitor: Shopper, seed) -> None:
    older, newer, _ = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    ok(visitor.add(newer, 4))
    visitor.shown()
    old_products = products_of(expected_lines(seed, older, "1001", 4))
    # A cart holding just what the older recipe needs (the shared product included).
    cart = dict(old_products)
    body = ok(visitor.reconcile(cart))
    assert body["changes"] == []
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == [older]
    assert basket_products(body["basket"]) == old_products
    body = ok(visitor.reconcile({}))
    assert body["basket"]["recipes"] == [] and body["basket"]["products"] == []


def test_reconcile_without_a_basket_answers_it_empty_and_makes_no_row(app: Flask, visitor: Shopper, seed) -> None:
    # Every visitor's first page reconciles its cart: a shopper who never wrote costs no row.
    recipe_id, _, _ = recipe_sharing_products(seed, "1001")
    products = products_of(expected_lines(seed, recipe_id, "1001", 4))

    def rows() -> int:
        with app.app_context():
            return db.session.scalar(select(func.count()).where(Basket.identity_id == identity_of(visitor))) or 0

    for cart in ({}, dict(products)):
        body = ok(visitor.reconcile(cart))
        assert body["changes"] == []
        assert body["basket"]["recipes"] == [] and body["basket"]["products"] == []
        assert body["basket"]["store_id"] == "1001"
    assert rows() == 0
    # Its first write makes the basket, which a later reconcile finds.
    ok(visitor.add(recipe_id, 4))
    body = ok(visitor.reconcile(dict(products)))
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == [recipe_id]
    assert rows() == 1


def identity_of(shopper: Shopper) -> str:
    """The identity id the shopper's requests carry."""
    return shopper.headers["Authorization"].split()[1]


def open_basket_of(shopper: Shopper) -> Any:
    """The id of the shopper's open basket, as a subquery."""
    return (
        select(Basket.id).where(Basket.identity_id == identity_of(shopper), Basket.status == "open").scalar_subquery()
    )


def awaited(app: Flask, shopper: Shopper) -> dict[int, int]:
    """The packages of each product the shopper's open basket awaits of the cart, all its recipes together
    (coreapi.services.cart_waits)."""
    with app.app_context():
        query = select(AwaitedProduct.product_id, func.sum(AwaitedProduct.quantity)).group_by(AwaitedProduct.product_id)
        rows = db.session.execute(query.where(AwaitedProduct.basket_id == open_basket_of(shopper))).all()
        return {product_id: int(quantity) for product_id, quantity in rows}


def set_back(app: Flask, shopper: Shopper, moment: Any, by: dt.timedelta) -> None:
    """The time ``moment`` (a column of a table of the basket's rows) of every row of the shopper's open basket is
    ``by`` and a second ago."""
    with app.app_context():
        long_ago = dt.datetime.now(dt.UTC) - by - dt.timedelta(seconds=1)
        rows = moment.class_
        db.session.execute(update(rows).where(rows.basket_id == open_basket_of(shopper)).values({moment: long_ago}))
        db.session.commit()


def age_awaited(app: Flask, shopper: Shopper) -> None:
    """What the shopper's basket awaits was asked a second longer ago than ``CATCH_UP``."""
    set_back(app, shopper, AwaitedProduct.asked_at, cart_waits.CATCH_UP)


def two_tabs_added(visitor: Shopper, seed) -> tuple[Counter[str], Counter[str], dict[str, Any]]:
    """Recipes 1 and 2 added at once (two tabs): each one's products, and the basket holding both."""
    ok(visitor.add("1", 4))
    ok(visitor.add("2", 4))
    first = products_of(expected_lines(seed, "1", "1001", 4))
    second = products_of(expected_lines(seed, "2", "1001", 4))
    return first, second, visitor.basket()


def test_a_cart_reported_before_a_recipe_s_products_reached_it_keeps_the_recipe(visitor: Shopper, seed) -> None:
    """Two tabs add a recipe each at once; one reports the cart its retailer gave back, which shows its own
    recipe's products and not yet the other's: the other recipe stays (its products are on their way). Once a
    cart showed them, a cart without them takes the recipe out, as the shopper's removal in the cart."""
    first_products, second_products, both = two_tabs_added(visitor, seed)

    body = ok(visitor.reconcile(dict(second_products)))
    assert body["basket"] == both and body["changes"] == []

    shown = ok(visitor.reconcile(dict(first_products + second_products)))
    assert shown["basket"] == both
    body = ok(visitor.reconcile(dict(second_products)))
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == ["2"]


def test_what_a_cart_showed_of_a_change_is_awaited_no_more(visitor: Shopper, seed) -> None:
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    held = basket_products(visitor.shown())
    ok(visitor.add(newer, 4))
    both = visitor.basket()
    more = basket_products(both)[shared] - held[shared]  # the newer recipe's packages of the shared product
    # The cart shows one of them, nothing else of the newer recipe: the rest is on its way, the basket stays.
    assert ok(visitor.reconcile(dict(held + Counter({shared: 1}))))["basket"] == both
    # The shown one leaves the cart again: it goes, from the newer entry; the others are still awaited.
    body = ok(visitor.reconcile(dict(held)))
    assert basket_products(body["basket"])[shared] == held[shared] + more - 1
    assert products_of(line_tuples(entry(body["basket"], newer)))[shared] == more - 1
    assert entry(body["basket"], older) == entry(both, older)


def test_what_a_cart_has_not_shown_in_time_is_followed_again(visitor: Shopper, app: Flask) -> None:
    """The page that asked the cart to add them was closed before it handed them over: once ``CATCH_UP`` has
    passed, a cart without them takes the recipe out."""
    ok(visitor.add("1", 4))
    assert ok(visitor.reconcile({}))["basket"]["recipes"] != []
    age_awaited(app, visitor)
    assert ok(visitor.reconcile({}))["basket"]["recipes"] == []
    assert awaited(app, visitor) == {}


def test_what_a_recipe_awaits_is_never_more_than_it_holds(visitor: Shopper, app: Flask, seed) -> None:
    """The SDK's rollback of a change the retailer refused is such a write: the cart is awaited for nothing."""
    ok(visitor.add("1", 4))
    asked = {int(product): quantity for product, quantity in products_of(expected_lines(seed, "1", "1001", 4)).items()}
    assert awaited(app, visitor) == asked
    ok(visitor.rescale("1", 2))
    assert awaited(app, visitor) == {int(p["id"]): p["quantity"] for p in visitor.basket()["products"]}
    ok(visitor.remove("1"))
    assert awaited(app, visitor) == {}


def test_another_tab_lowering_a_shown_product_leaves_what_is_awaited_of_it(visitor: Shopper, seed) -> None:
    """Tab A adds a recipe sharing a product with one the cart shows; tab B removes that one at the same moment
    and reports its cart (its removal applied, A's products not there yet): A's recipe keeps its lines."""
    older, newer, _ = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    visitor.shown()
    ok(visitor.add(newer, 4))
    ok(visitor.remove(older))
    newer_only = visitor.basket()
    assert ok(visitor.reconcile({}))["basket"] == newer_only


def test_a_recipe_taken_back_leaves_the_others_to_follow_the_cart_at_once(visitor: Shopper, seed) -> None:
    """The SDK's rollback of a refused addition (a recipe sharing a product with one the cart shows): what the cart
    then lacks of the shown recipe's products is taken out at once, not left as awaited."""
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    held = basket_products(visitor.shown())
    ok(visitor.add(newer, 4))
    ok(visitor.remove(newer))
    cart = dict(held)
    del cart[shared]  # the shopper took it out of the cart
    body = ok(visitor.reconcile(cart))
    assert shared not in basket_products(body["basket"])


def test_what_the_cart_lacks_is_taken_from_the_recipes_that_await_nothing(visitor: Shopper, seed) -> None:
    """The older recipe's shared product, shown, leaves the cart while the newer recipe's is on its way: the older
    recipe loses it, not the newer (which a reconcile takes from first otherwise)."""
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    held = basket_products(visitor.shown())
    ok(visitor.add(newer, 4))
    newer_lines = line_tuples(entry(visitor.basket(), newer))
    cart = dict(held)
    del cart[shared]
    body = ok(visitor.reconcile(cart))
    assert line_tuples(entry(body["basket"], newer)) == newer_lines
    assert shared not in products_of(line_tuples(entry(body["basket"], older)))


def test_a_later_write_of_a_product_does_not_bring_back_what_waited_too_long(
    visitor: Shopper, app: Flask, seed
) -> None:
    """A tab closed before handing its recipe over, more than CATCH_UP ago; a recipe sharing a product is added:
    what the old recipe awaited stays expired (the new one awaits its own packages), and the old recipe's other
    products leave the basket with the first cart that lacks them."""
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    age_awaited(app, visitor)
    ok(visitor.add(newer, 4))
    with app.app_context():
        rows = db.session.execute(
            select(AwaitedProduct.recipe_id, AwaitedProduct.quantity, AwaitedProduct.asked_at).where(
                AwaitedProduct.basket_id == open_basket_of(visitor), AwaitedProduct.product_id == int(shared)
            )
        ).all()
    asked = {str(recipe_id): (quantity, asked_at) for recipe_id, quantity, asked_at in rows}
    newer_products = products_of(expected_lines(seed, newer, "1001", 4))
    assert asked[newer][0] == newer_products[shared]
    older_asked = asked[older][1].replace(tzinfo=asked[older][1].tzinfo or dt.UTC)
    assert dt.datetime.now(dt.UTC) - older_asked > cart_waits.CATCH_UP, "not renewed by the newer recipe's write"
    body = ok(visitor.reconcile(dict(newer_products)))
    older_only = products_of(expected_lines(seed, older, "1001", 4)).keys() - newer_products.keys()
    assert not older_only & basket_products(body["basket"]).keys()


def test_a_merged_visitor_basket_awaits_nothing_and_the_user_s_awaits_what_it_got(
    visitor: Shopper, user: Shopper, authless_id: str, app: Flask
) -> None:
    ok(visitor.add("1", 4))
    asked = awaited(app, visitor)
    assert asked
    ok(user.merge(authless_id))
    assert awaited(app, visitor) == {}
    assert awaited(app, user) == asked


def test_reconcile_validation(visitor: Shopper) -> None:
    response = visitor.client.post(
        "/api/v1/basket/reconcile",
        json={"store_id": "1001", "cart": [{"id": "1", "quantity": -1}, {"quantity": 1}]},
        headers=visitor.headers,
    )
    assert response.status_code == 400
    assert set(response.json["errors"]["json"]) == {"cart.0.quantity", "cart.1.id"}


# --- reconciles crossing on their way (coreapi.services.cart_waits, ShownProduct) -----------


def shown_by_browsers(app: Flask, shopper: Shopper) -> dict[int, int]:
    """The packages of each product whose wait a browser's reported cart ended, kept for that browser's older
    carts, all recipes and browsers together."""
    with app.app_context():
        query = select(ShownProduct.product_id, func.sum(ShownProduct.quantity)).group_by(ShownProduct.product_id)
        rows = db.session.execute(query.where(ShownProduct.basket_id == open_basket_of(shopper))).all()
        return {product_id: int(quantity) for product_id, quantity in rows}


def reporters(app: Flask, shopper: Shopper) -> set[str]:
    with app.app_context():
        query = select(ShownProduct.reporter).where(ShownProduct.basket_id == open_basket_of(shopper))
        return set(db.session.scalars(query))


def test_an_older_cart_of_the_browser_arriving_last_leaves_what_the_newer_one_showed(visitor: Shopper, seed) -> None:
    """Two tabs of one browser add a recipe each at once. Tab B's cart (both recipes' products: it ends their
    wait) reaches the service before tab A's, reported earlier (A's products only): A's crossed on its way and
    leaves B's products to the cart; B's recipe stays. The same browser's next cart is followed as ever."""
    first_products, second_products, both = two_tabs_added(visitor, seed)

    newer = ok(visitor.reconcile(dict(first_products + second_products), {"by": "browser-1", "at": 1_000.5}))
    assert newer["basket"] == both
    older = ok(visitor.reconcile(dict(first_products), {"by": "browser-1", "at": 1_000.25}))
    assert older["basket"] == both and older["changes"] == []

    # The shopper then takes the first recipe's products out of the cart: a newer cart, followed.
    removed = ok(visitor.reconcile(dict(second_products), {"by": "browser-1", "at": 1_001}))
    assert [e["recipe_id"] for e in removed["basket"]["recipes"]] == ["2"]


def test_an_older_cart_of_the_browser_still_takes_out_what_no_newer_cart_showed(visitor: Shopper, seed) -> None:
    """Tab A read the cart before the shopper took a recipe's products out of it in tab B, and reported it after
    B reported its own: A's cart (later by the clock) arrives first and removes nothing; B's, older by the clock,
    still takes the recipe out, since no newer cart showed any of it while it was awaited (a recipe shown long ago:
    only what a newer cart showed of what was awaited is left to an older one)."""
    ok(visitor.add("1", 4))
    ok(visitor.add("2", 4))
    held = basket_products(visitor.shown())  # shown long ago: nothing awaited any more
    second_products = products_of(expected_lines(seed, "2", "1001", 4))
    assert ok(visitor.reconcile(dict(held), {"by": "browser-1", "at": 2_000}))["basket"]["recipe_count"] == 2
    body = ok(visitor.reconcile(dict(second_products), {"by": "browser-1", "at": 1_000}))
    assert [e["recipe_id"] for e in body["basket"]["recipes"]] == ["2"]


def test_an_older_cart_that_shows_what_was_awaited_ends_its_wait(visitor: Shopper, app: Flask) -> None:
    """The cart page (tab B) reports the cart after the shopper took a just-added recipe's products out: they are
    still awaited, so the recipe stays. Tab A's older cart, which showed them, arrives last: it ends their wait, and
    the next cart without them takes the recipe out, as the shopper did."""
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    assert ok(visitor.reconcile({}, {"by": "browser-1", "at": 2_000}))["basket"]["recipe_count"] == 1
    assert ok(visitor.reconcile(held, {"by": "browser-1", "at": 1_000}))["basket"]["recipe_count"] == 1
    assert awaited(app, visitor) == {}
    assert ok(visitor.reconcile({}, {"by": "browser-1", "at": 3_000}))["basket"]["recipes"] == []


def test_a_newer_cart_arriving_after_catch_up_still_leaves_what_it_showed_to_an_older_one(
    visitor: Shopper, app: Flask, seed
) -> None:
    """Tab B's reconcile reaches the service more than ``CATCH_UP`` after the writes (its retries allow it): what
    its cart shows is no longer awaited, but is still kept as shown for tab A's older cart arriving after it."""
    first_products, _, both = two_tabs_added(visitor, seed)
    age_awaited(app, visitor)
    assert ok(visitor.reconcile(dict(basket_products(both)), {"by": "browser-1", "at": 2_000}))["basket"] == both
    assert awaited(app, visitor) == {}
    assert ok(visitor.reconcile(dict(first_products), {"by": "browser-1", "at": 1_000}))["basket"] == both


def test_what_a_cart_took_out_is_no_longer_kept_as_shown(visitor: Shopper, app: Flask) -> None:
    """A recipe a cart showed, then taken out by a newer cart, then added again and shown again: what is kept as
    shown is what the recipe holds now (the first show went with the recipe)."""
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    expected = {int(product): quantity for product, quantity in held.items()}
    ok(visitor.reconcile(held, {"by": "browser-1", "at": 1_000}))
    assert shown_by_browsers(app, visitor) == expected
    assert ok(visitor.reconcile({}, {"by": "browser-1", "at": 2_000}))["basket"]["recipes"] == []
    assert shown_by_browsers(app, visitor) == {}
    ok(visitor.add("1", 4))
    ok(visitor.reconcile(held, {"by": "browser-1", "at": 3_000}))
    assert shown_by_browsers(app, visitor) == expected


def shown_rows(app: Flask, shopper: Shopper) -> dict[tuple[int, int], int]:
    """What is kept as shown, per recipe and product."""
    with app.app_context():
        query = select(ShownProduct.recipe_id, ShownProduct.product_id, ShownProduct.quantity)
        rows = db.session.execute(query.where(ShownProduct.basket_id == open_basket_of(shopper))).all()
    return {(recipe_id, product_id): quantity for recipe_id, product_id, quantity in rows}


def shared_line_raised_then_lowered(visitor: Shopper, seed) -> tuple[str, str, str, int]:
    """Recipes ``older`` (shown long ago) and ``newer`` share a product; ``newer`` is added and shown by browser-1
    at 2 000, then its line of the shared product raised by 2 and lowered by 1: it awaits 2 of it, browser-1
    showed ``n``, it holds ``n + 1``."""
    older, newer, shared = recipe_sharing_products(seed, "1001")
    ok(visitor.add(older, 4))
    visitor.shown()
    ok(visitor.add(newer, 4))
    ok(visitor.reconcile(dict(basket_products(visitor.basket())), {"by": "browser-1", "at": 2_000}))
    ((ingredient, product, n),) = [line for line in expected_lines(seed, newer, "1001", 4) if line[1] == shared]
    ok(visitor.set_line(newer, ingredient, product, n + 2))
    ok(visitor.set_line(newer, ingredient, product, n + 1))
    return older, newer, shared, n


def test_what_is_left_to_an_older_cart_is_never_more_than_the_recipe_holds(visitor: Shopper, seed) -> None:
    """What the newer recipe awaits and what browser-1 showed of it add up to more than it holds: an older cart of
    browser-1 that lacks one of the older recipe's packages of the shared product (the shopper took it out) takes
    it out; the newer recipe's surplus does not shield it."""
    older, _, shared, _ = shared_line_raised_then_lowered(visitor, seed)
    older_products = products_of(expected_lines(seed, older, "1001", 4))
    cart = dict(older_products)
    cart[shared] -= 1
    body = ok(visitor.reconcile(cart, {"by": "browser-1", "at": 1_000}))
    assert products_of(line_tuples(entry(body["basket"], older)))[shared] == older_products[shared] - 1


def test_what_is_kept_as_shown_is_never_more_than_the_recipe_holds(visitor: Shopper, app: Flask, seed) -> None:
    _, newer, shared, n = shared_line_raised_then_lowered(visitor, seed)
    ok(visitor.reconcile(dict(basket_products(visitor.basket())), {"by": "browser-1", "at": 3_000}))
    assert shown_rows(app, visitor)[(int(newer), int(shared))] == n + 1


def test_carts_of_two_browsers_are_not_compared(visitor: Shopper) -> None:
    """Two devices' clocks differ: a cart the second reports with an earlier time than the first's, without what
    the first showed, is the shopper's removal there, followed."""
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    ok(visitor.reconcile(held, {"by": "phone", "at": 5_000_000}))
    assert ok(visitor.reconcile({}, {"by": "laptop", "at": 1_000}))["basket"]["recipes"] == []


def test_a_cart_reported_at_the_same_moment_is_followed(visitor: Shopper) -> None:
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    ok(visitor.reconcile(held, {"by": "browser-1", "at": 7}))
    assert ok(visitor.reconcile({}, {"by": "browser-1", "at": 7}))["basket"]["recipes"] == []


def test_what_a_cart_showed_is_left_to_older_ones_for_crossing_only(visitor: Shopper, app: Flask) -> None:
    """No reconcile is on its way ``CROSSING`` long: after that, an older report (a browser whose clock was set
    back) is followed, and what the newer one showed is forgotten."""
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    ok(visitor.reconcile(held, {"by": "browser-1", "at": 9_000}))
    assert shown_by_browsers(app, visitor) == {int(product): quantity for product, quantity in held.items()}
    set_back(app, visitor, ShownProduct.shown_at, cart_waits.CROSSING)
    assert ok(visitor.reconcile({}, {"by": "browser-1", "at": 5_000}))["basket"]["recipes"] == []
    assert shown_by_browsers(app, visitor) == {}


def test_a_cart_without_its_report_is_followed_as_it_comes(visitor: Shopper) -> None:
    ok(visitor.add("1", 4))
    held = dict(basket_products(visitor.basket()))
    ok(visitor.reconcile(held, {"by": "browser-1", "at": 9_000}))
    assert ok(visitor.reconcile({}))["basket"]["recipes"] == []


def test_the_rows_keep_no_browser_id_that_links_two_baskets(visitor: Shopper, user: Shopper, app: Flask) -> None:
    for shopper in (visitor, user):
        ok(shopper.add("1", 4))
        ok(shopper.reconcile(dict(basket_products(shopper.basket())), {"by": "browser-1", "at": 9_000}))
    kept_for_visitor, kept_for_user = reporters(app, visitor), reporters(app, user)
    assert len(kept_for_visitor) == len(kept_for_user) == 1
    assert kept_for_visitor != kept_for_user
    assert "browser-1" not in kept_for_visitor | kept_for_user


def test_a_removed_recipe_and_a_confirmed_basket_keep_nothing_shown(visitor: Shopper, app: Flask) -> None:
    ok(visitor.add("1", 4))
    ok(visitor.reconcile(dict(basket_products(visitor.basket())), {"by": "browser-1", "at": 9_000}))
    assert shown_by_browsers(app, visitor) != {}
    ok(visitor.remove("1"))
    assert shown_by_browsers(app, visitor) == {}

    ok(visitor.add("1", 4))
    ok(visitor.reconcile(dict(basket_products(visitor.basket())), {"by": "browser-1", "at": 9_001}))
    identity_id = visitor.headers["Authorization"].split()[1]
    of_shopper = select(Basket.id).where(Basket.identity_id == identity_id)
    assert ok(visitor.confirm(order_id="o-shown"))["confirmed"] is True
    with app.app_context():
        assert db.session.scalar(select(func.count()).where(ShownProduct.basket_id.in_(of_shopper))) == 0


@pytest.mark.parametrize(
    ("reported", "field"),
    [
        ({"at": 1}, "reported.by"),
        ({"by": "b"}, "reported.at"),
        ({"by": "b", "at": -1}, "reported.at"),
        ({"by": "b", "at": "soon"}, "reported.at"),
        ({"by": "b", "at": "12"}, "reported.at"),
        ({"by": "b", "at": True}, "reported.at"),
        (None, "reported"),
        ({"by": "b", "at": 1e14}, "reported.at"),
        ({"by": "b" * 65, "at": 1}, "reported.by"),
        ({"by": "", "at": 1}, "reported.by"),
    ],
)
def test_a_bad_report_is_400_and_changes_nothing(visitor: Shopper, reported: dict[str, Any] | None, field: str) -> None:
    ok(visitor.add("1", 4))
    before = visitor.shown()  # nothing awaited: the same empty cart with a good report would empty the basket
    body = {"store_id": visitor.store_id, "cart": [], "reported": reported}
    response = visitor.client.post("/api/v1/basket/reconcile", json=body, headers=visitor.headers)
    assert response.status_code == 400, response.json
    assert set(response.json["errors"]["json"]) == {field}
    assert visitor.basket() == before


# --- confirm -------------------------------------------------------------------------------


def test_an_empty_basket_is_not_confirmed(visitor: Shopper, seed) -> None:
    assert ok(visitor.confirm()) == {"confirmed": False, "reason": "empty"}
    ok(visitor.add("1", 4))
    visitor.shown()
    ok(visitor.reconcile({}))
    assert ok(visitor.confirm(order_id="o-empty")) == {"confirmed": False, "reason": "empty"}
    # Nothing was confirmed under that order id.
    ok(visitor.add("1", 4))
    assert ok(visitor.confirm(order_id="o-empty"))["confirmed"] is True


def test_a_paid_cart_of_nothing_confirms_nothing_and_leaves_the_basket(visitor: Shopper, seed) -> None:
    ok(visitor.add("1", 4))
    before = visitor.basket()
    nothing_of_each = {product_id: 0 for product_id in basket_products(before)}
    for cart in ({}, nothing_of_each):
        assert ok(visitor.confirm(order_id="o-nothing", cart=cart)) == {"confirmed": False, "reason": "empty"}
        assert visitor.basket() == before  # not followed: every recipe is still there
    # A cart of none of the basket's products is a paid cart: the basket follows it, and is then empty.
    assert ok(visitor.confirm(order_id="o-other", cart={"999999": 1})) == {"confirmed": False, "reason": "empty"}
    assert visitor.basket()["recipes"] == []
    # Nothing was confirmed under the first order id: its real payment confirms.
    ok(visitor.add("1", 4))
    assert ok(visitor.confirm(order_id="o-nothing", cart=basket_products(visitor.basket())))["confirmed"] is True


def test_confirm_once_per_order_id(user: Shopper, seed) -> None:
    ok(user.add("1", 4))
    first = ok(user.confirm(order_id="order-1"))
    assert first["confirmed"] is True and set(first) == {"confirmed", "basket_id"}
    assert isinstance(first["basket_id"], str)
    assert user.basket()["recipes"] == []  # the identity starts an empty basket

    ok(user.add("2", 4))
    before = user.basket()
    for _ in range(2):
        assert ok(user.confirm(order_id="order-1")) == {
            "confirmed": False, "reason": "already-confirmed",
        }  # fmt: skip
    assert user.basket() == before  # nothing changed

    second = ok(user.confirm(order_id="order-2"))
    assert second["confirmed"] is True and second["basket_id"] != first["basket_id"]
    ok(user.add("3", 4))
    third = ok(user.confirm())  # without an order id
    assert third["confirmed"] is True and third["basket_id"] != second["basket_id"]


def test_order_ids_are_per_identity(client: FlaskClient, user: Shopper, visitor: Shopper) -> None:
    for shopper in (user, visitor):
        ok(shopper.add("1", 4))
        assert ok(shopper.confirm(order_id="shared-order"))["confirmed"] is True


@pytest.mark.parametrize(
    ("body", "field"),
    [({"total": -1}, "total"), ({}, "total"), ({"total": "x"}, "total"),
     ({"total": 1, "order_id": ""}, "order_id"), ({"total": 1, "order_id": 5}, "order_id")],
)  # fmt: skip
def test_confirm_validation(visitor: Shopper, body: dict[str, Any], field: str) -> None:
    response = visitor.client.post("/api/v1/basket/confirm", json={"store_id": "1001", **body}, headers=visitor.headers)
    assert response.status_code == 400
    assert field in response.json["errors"]["json"]


# --- merge ---------------------------------------------------------------------------------


def test_merge_moves_the_authless_entries_and_theirs_win(
    client: FlaskClient, seed, user: Shopper, visitor: Shopper, authless_id: str
) -> None:
    ok(user.add("1", 2))
    ok(user.add("3", 4))
    ok(visitor.add("1", 6))
    ok(visitor.add("2", 4))
    before = basket_products(user.basket())

    body = ok(user.merge(authless_id))
    basket = body["basket"]
    assert [(e["recipe_id"], e["guests"]) for e in basket["recipes"]] == [
        ("3", 4), ("1", 6), ("2", 4),
    ]  # fmt: skip
    expected = Counter()
    for recipe_id, guests in (("3", 4), ("1", 6), ("2", 4)):
        expected += products_of(expected_lines(seed, recipe_id, "1001", guests))
    assert basket_products(basket) == expected
    assert body["changes"] == as_changes(diff(expected, before))
    assert visitor.basket()["recipes"] == []
    assert user.basket() == basket
    # The visitor's basket is empty now: merging again changes nothing.
    assert ok(user.merge(authless_id))["changes"] == []
    # The most recently added entries are the merged ones.
    assert ok(user.add("4", 4))["basket"]["recipes"][-1]["recipe_id"] == "4"


def test_merge_without_an_authless_basket(user: Shopper, seed) -> None:
    body = ok(user.merge("nobody-" + uuid.uuid4().hex))
    assert body == {"basket": user.basket(), "changes": []}
    ok(user.add("1", 4))
    assert ok(user.merge("nobody"))["changes"] == []


def test_merge_without_a_store_keeps_the_visitor_s_store(
    user: Shopper, visitor: Shopper, authless_id: str, seed
) -> None:
    """A login before any store was chosen (no store_id, or an empty one): the visitor's entries move as they
    are, priced at the store the visitor shopped at, and the user's basket moves there with them."""
    ok(user.add("3", 4))
    ok(visitor.add("1", 6, store_id="1002"))
    basket = ok(user.merge_without_store(authless_id))["basket"]
    assert basket["store_id"] == "1002"
    assert [(e["recipe_id"], e["guests"]) for e in basket["recipes"]] == [("3", 4), ("1", 6)]
    expected = products_of(expected_lines(seed, "3", "1001", 4)) + products_of(expected_lines(seed, "1", "1002", 6))
    assert basket_products(basket) == expected
    assert visitor.basket(store_id="1002")["recipes"] == []
    assert user.basket(store_id="1002") == basket


@pytest.mark.parametrize("send", ["absent", "empty"])
def test_merge_without_a_store_and_an_empty_visitor_basket_leaves_the_user_s_where_it_is(
    user: Shopper, visitor: Shopper, authless_id: str, send: str
) -> None:
    ok(user.add("3", 4, store_id="1002"))
    ok(visitor.add("1", 4))
    ok(visitor.remove("1"))  # the visitor's basket exists, empty, at 1001
    before = user.basket(store_id="1002")
    merged = user.merge_without_store(authless_id) if send == "absent" else user.merge(authless_id, store_id="")
    assert ok(merged) == {"basket": before, "changes": []}


def test_merge_without_a_store_or_any_basket_creates_none(app: Flask, user: Shopper, authless_id: str) -> None:
    """Nothing to move and no basket to move it to: the empty basket at no store, as GET /basket without a store
    answers it, and no basket row (a visitor who never wrote costs none)."""
    assert ok(user.merge_without_store(authless_id)) == {"basket": EMPTY_AT_NO_STORE, "changes": []}
    with app.app_context():
        count = select(func.count()).select_from(Basket).where(Basket.identity_id == identity_of(user))
        assert db.session.scalar(count) == 0


def test_authless_and_user_baskets_are_separate(client: FlaskClient) -> None:
    same = f"same-{uuid.uuid4().hex}"
    user, visitor = Shopper(client, f"user_id {same}"), Shopper(client, f"authless_id {same}")
    ok(user.add("1", 4))
    assert visitor.basket()["recipes"] == []
    ok(visitor.add("2", 4))
    assert [e["recipe_id"] for e in user.basket()["recipes"]] == ["1"]
    assert [e["recipe_id"] for e in visitor.basket()["recipes"]] == ["2"]


# --- stores --------------------------------------------------------------------------------


def test_a_basket_asked_at_another_store_moves_there_repriced(visitor: Shopper, seed) -> None:
    unavailable = set(seed.stores["1002"]["unavailable_product_ids"])
    recipe_id = next(
        r for r in sorted(seed.recipes, key=int)
        if products_of(expected_lines(seed, r, "1001", 4)).keys() & unavailable
    )  # fmt: skip
    lines = expected_lines(seed, recipe_id, "1001", 4)
    ok(visitor.add(recipe_id, 4))

    moved = visitor.basket("1002")
    assert moved["store_id"] == "1002"
    (recipe,) = moved["recipes"]
    assert line_tuples(recipe) == lines  # same products
    total = Decimal(0)
    for line in recipe["lines"]:
        if line["product_id"] in unavailable:
            assert (line["available"], line["unit_price"], line["price"]) == (False, None, None)
        else:
            price = seed.shelf_price("1002", line["product_id"])
            assert (line["available"], line["unit_price"]) == (True, float(price))
            total += price * line["quantity"]
    assert moved["total"] == float(total)
    # Writes at a store move the basket there too; changes are about products only.
    body = ok(visitor.add(recipe_id, 4, store_id="1001"))
    assert body["changes"] == [] and body["basket"]["store_id"] == "1001"
    assert all(line["available"] for line in body["basket"]["recipes"][0]["lines"])


def test_queries_do_not_grow_with_the_basket(visitor: Shopper, count_queries: Any) -> None:
    counts = []
    for recipe_id in ("1", "2", "3", "4", "5"):
        with count_queries() as adding:
            ok(visitor.add(recipe_id, 4))
        with count_queries() as reading:
            visitor.basket()
        # What the cart is awaited for (coreapi.services.cart_waits): one statement of each kind at most, however
        # many products (an update only when a recipe shares a product with an earlier one).
        awaited = Counter(statement.split()[0] for statement in adding if "basket_awaited_products" in statement)
        assert set(awaited) <= {"SELECT", "INSERT", "UPDATE", "DELETE"} and max(awaited.values()) == 1, adding
        counts.append((len(adding) - awaited.total(), len(reading)))
    assert len(set(counts[1:])) == 1, counts


# --- atomicity and concurrency -------------------------------------------------------------


def test_a_failed_write_changes_nothing(visitor: Shopper, seed, monkeypatch: pytest.MonkeyPatch) -> None:
    ok(visitor.add("1", 4))
    before = visitor.basket()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the answer could not be built")

    monkeypatch.setattr(baskets, "_view", broken)
    for response in (visitor.add("2", 4), visitor.remove("1"), visitor.reconcile({}),
                     visitor.set_line("1", "thon", "100153", 9),
                     visitor.add("2", 4, lines=[{"ingredient_id": expected_lines(seed, "2", "1001", 4)[0][0],
                                                 "product_id": expected_lines(seed, "2", "1001", 4)[0][1],
                                                 "quantity": 0}])):  # fmt: skip
        assert response.status_code == 500
        assert response.mimetype == "application/problem+json"
    monkeypatch.undo()
    assert visitor.basket() == before


@pytest.mark.parametrize("existing", [False, True], ids=["new-basket", "existing-basket"])
def test_concurrent_adds_lose_nothing(app: Flask, seed, monkeypatch: pytest.MonkeyPatch, existing: bool) -> None:
    """Two tabs add different recipes at the same moment: both end up in the basket.

    A barrier holds both requests just before they lock the basket, so both transactions are
    open at once whatever the scheduling; the lock (or the one-open-basket constraint, for a
    basket both create) serialises them.
    """
    authorization = f"authless_id tabs-{uuid.uuid4().hex}"
    if existing:
        ok(Shopper(app.test_client(), authorization).add("3", 4))
    barrier = threading.Barrier(2, timeout=30)
    lock_open_basket = baskets._lock_open_basket

    def meet_then_lock(*args: Any, **kwargs: Any) -> Any:
        barrier.wait()
        return lock_open_basket(*args, **kwargs)

    monkeypatch.setattr(baskets, "_lock_open_basket", meet_then_lock)
    answers: dict[str, TestResponse] = {}
    failures: list[BaseException] = []

    def tab(recipe_id: str) -> None:
        try:  # a client (and so a session and a connection) per tab
            answers[recipe_id] = Shopper(app.test_client(), authorization).add(recipe_id, 4)
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=tab, args=(recipe_id,)) for recipe_id in ("1", "2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    monkeypatch.undo()
    assert not failures and not any(thread.is_alive() for thread in threads)
    assert {recipe_id: r.status_code for recipe_id, r in answers.items()} == {"1": 200, "2": 200}

    basket = Shopper(app.test_client(), authorization).basket()
    expected = {"1", "2", "3"} if existing else {"1", "2"}
    assert {e["recipe_id"] for e in basket["recipes"]} == expected
    held: Counter[str] = Counter()
    for recipe_id in expected:
        held += products_of(expected_lines(seed, recipe_id, "1001", 4))
    assert basket_products(basket) == held
    # Each answer's changes are exactly its own recipe's products.
    for recipe_id, response in answers.items():
        assert response.json["changes"] == as_changes(products_of(expected_lines(seed, recipe_id, "1001", 4)))


@pytest.mark.parametrize("existing", [False, True], ids=["new-basket", "existing-basket"])
def test_a_second_writer_waits_for_the_first(
    app: Flask, backend: Any, seed, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    """On PostgreSQL, a write to a basket another transaction holds waits for it (row lock).

    Tab A takes the lock and holds it until told; tab B then asks for it. The test waits until
    PostgreSQL reports B's backend as waiting on a lock, then lets A finish: both additions land.
    """
    if backend.name != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite serialises writers itself")
    from sqlalchemy import text

    authorization = f"authless_id wait-{uuid.uuid4().hex}"
    if existing:
        ok(Shopper(app.test_client(), authorization).add("3", 4))
    a_locked, release, b_pid = threading.Event(), threading.Event(), []
    lock_open_basket = baskets._lock_open_basket

    def instrumented(session: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "tab-a":
            basket = lock_open_basket(session, *args, **kwargs)
            a_locked.set()
            assert release.wait(timeout=30)
            return basket
        assert a_locked.wait(timeout=30)
        b_pid.append(session.scalar(text("SELECT pg_backend_pid()")))
        return lock_open_basket(session, *args, **kwargs)

    monkeypatch.setattr(baskets, "_lock_open_basket", instrumented)
    answers: dict[str, TestResponse] = {}

    def tab(recipe_id: str) -> None:
        answers[recipe_id] = Shopper(app.test_client(), authorization).add(recipe_id, 4)

    threads = [
        threading.Thread(target=tab, args=("1",), name="tab-a"),
        threading.Thread(target=tab, args=("2",), name="tab-b"),
    ]
    for thread in threads:
        thread.start()
    try:
        with backend.engine.connect() as monitor:
            for _ in range(3000):  # until B waits on A's lock (at most ~30 s, normally at once)
                waiting = (
                    b_pid
                    and monitor.scalar(
                        text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"),
                        {"pid": b_pid[0]},
                    )
                    == "Lock"
                )
                if waiting:
                    break
                threading.Event().wait(0.01)
        assert waiting, "tab B never waited for tab A's lock"
        assert "2" not in answers  # B cannot have finished while A holds the basket
    finally:
        release.set()
        for thread in threads:
            thread.join(timeout=60)
        monkeypatch.undo()
    assert {recipe_id: r.status_code for recipe_id, r in answers.items()} == {"1": 200, "2": 200}
    basket = Shopper(app.test_client(), authorization).basket()
    assert [e["recipe_id"] for e in basket["recipes"]] == (["3"] if existing else []) + ["1", "2"]


# --- the pure part -------------------------------------------------------------------------


def test_packages_are_ceiled_on_exact_fractions() -> None:
    from coreapi.services.quantities import packages as count

    assert count(Decimal(600), 4, 4, Decimal(500)) == 2
    assert count(Decimal(500), 4, 4, Decimal(500)) == 1
    assert count(Decimal(1000), 3, 3, Decimal("333.333")) == 4
    assert count(Decimal(100), 3, 1, Decimal("33.333")) == 2  # 33.33... needs two
    assert count(Decimal(90), 3, 1, Decimal(30)) == 1  # exactly one, not 1.0000001
    assert count(Decimal("0.5"), 4, 50, Decimal(6)) == 2

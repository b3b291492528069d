"""The browser's basket routes through prerender, against the real coreapi basket."""

from __future__ import annotations

import itertools
import json

import pytest
from bs4 import BeautifulSoup

from .conftest import browser_headers, headers

_users = itertools.count()


@pytest.fixture
def user_id() -> str:
    """A fresh connected user per test: baskets never leak between tests."""
    return f"basket-user-{next(_users)}"


@pytest.fixture
def user(client, user_id: str) -> dict[str, str]:
    """That user's browser: the headers with the credential the bootstrap gave the page."""
    return browser_headers(client, user=user_id)


def add(client, user, recipe_id="5", guests=4, store_id="1001"):
    return client.post(
        "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": guests, "store_id": store_id}, headers=user
    )


def drawer_data(client, recipe_id="5", guests=4, store_id="1001") -> dict:
    html = client.get(
        "/v1/recipe-details",
        query_string={"recipe_id": recipe_id, "guests": guests, "store_id": store_id},
        headers=headers(),
    ).get_data(as_text=True)
    return json.loads(BeautifulSoup(html, "html5lib").select_one("script.svc-recipe-details__data").string)


def test_add_recipe_pushes_what_the_drawer_showed(client, user):
    answer = add(client, user).get_json()
    shown = drawer_data(client)
    expected = {}
    for ingredient in shown["ingredients"]:
        if ingredient["chosen"]:
            packages = next(p["packages"] for p in ingredient["products"] if p["id"] == ingredient["chosen"])
            expected[ingredient["chosen"]] = expected.get(ingredient["chosen"], 0) + packages
    assert {c["id"]: c["quantity"] for c in answer["changes"]} == expected
    assert answer["basket"]["recipe_count"] == 1
    assert [r["recipe_id"] for r in answer["basket"]["recipes"]] == ["5"]


def test_replace_is_a_removal_and_an_addition(client, user):
    add(client, user)
    shown = drawer_data(client)
    ingredient = next(i for i in shown["ingredients"] if len(i["products"]) > 1 and i["chosen"])
    other = next(p for p in ingredient["products"] if p["id"] != ingredient["chosen"])
    answer = client.put(
        f"/v1/basket/recipes/5/ingredients/{ingredient['id']}",
        headers=user,
        json={"product_id": other["id"], "quantity": other["packages"], "store_id": "1001"},
    ).get_json()
    changes = {c["id"]: c["quantity"] for c in answer["changes"]}
    assert changes[other["id"]] == other["packages"] and changes[ingredient["chosen"]] < 0


def test_remove_recipe_takes_its_products_back(client, user):
    added = add(client, user).get_json()["changes"]
    removed = client.delete("/v1/basket/recipes/5?store_id=1001", headers=user).get_json()
    assert {c["id"]: -c["quantity"] for c in removed["changes"]} == {c["id"]: c["quantity"] for c in added}
    assert removed["basket"]["recipe_count"] == 0


def test_rescale(client, user):
    add(client, user, guests=2)
    answer = client.patch("/v1/basket/recipes/5", json={"guests": 8, "store_id": "1001"}, headers=user).get_json()
    assert answer["basket"]["recipes"][0]["guests"] == 8
    assert all(c["quantity"] > 0 for c in answer["changes"])


def test_reconcile_follows_the_retailer_cart(client, user):
    products = add(client, user).get_json()["basket"]["products"]

    def reconcile(cart):
        body = {"store_id": "1001", "cart": [{"id": p["id"], "quantity": p["quantity"]} for p in cart]}
        answer = client.post("/v1/basket/reconcile", headers=user, json=body)
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["changes"] == []
        return {p["id"] for p in answer.get_json()["basket"]["products"]}

    # A cart that does not show the added products yet leaves them (another tab may still be adding them)...
    assert reconcile(products[1:]) == {p["id"] for p in products}
    # ...one that showed them, then lost one, takes it out (the shopper removed it in the cart).
    assert reconcile(products) == {p["id"] for p in products}
    assert reconcile(products[1:]) == {p["id"] for p in products[1:]}


def test_a_cart_the_browser_reported_before_the_one_followed_leaves_what_that_one_showed(client, user):
    """Two tabs' reconciles crossed on their way: the older cart of the same browser, arriving last, leaves to the
    cart what the newer one showed of the recipe just added; a bad report is a 400 that names it."""
    products = add(client, user).get_json()["basket"]["products"]
    cart = [{"id": p["id"], "quantity": p["quantity"]} for p in products]
    browser = "0b9e4c1e-5f0e-4a7c-9d43-2c1f3e8a6b10"

    def reconcile(cart, at):
        body = {"store_id": "1001", "cart": cart, "reported": {"by": browser, "at": at}}
        answer = client.post("/v1/basket/reconcile", headers=user, json=body)
        assert answer.status_code == 200, answer.get_json()
        return {p["id"] for p in answer.get_json()["basket"]["products"]}

    everything = {p["id"] for p in products}
    assert reconcile(cart, 1_764_580_000_000.5) == everything
    assert reconcile(cart[1:], 1_764_580_000_000.25) == everything
    assert reconcile(cart[1:], 1_764_580_000_001) == everything - {cart[0]["id"]}

    bad = {"store_id": "1001", "cart": [], "reported": {"by": browser, "at": "1764580000002"}}
    refused = client.post("/v1/basket/reconcile", headers=user, json=bad)
    assert refused.status_code == 400
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert "reported" in json.dumps(refused.get_json())
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["products"] != []


def test_confirm_once_per_order_and_never_empty(client, user):
    empty = client.post("/v1/basket/confirm", json={"store_id": "1001", "total": 0}, headers=user).get_json()
    assert empty["confirmed"] is False
    total = add(client, user).get_json()["basket"]["total"]
    first = client.post(
        "/v1/basket/confirm", json={"store_id": "1001", "total": total, "order_id": "o-1"}, headers=user
    ).get_json()
    total = add(client, user).get_json()["basket"]["total"]
    again = client.post(
        "/v1/basket/confirm", json={"store_id": "1001", "total": total, "order_id": "o-1"}, headers=user
    ).get_json()
    assert first["confirmed"] is True and again["confirmed"] is False


def test_authless_and_user_baskets_are_separate(client, user):
    add(client, user)
    anonymous = browser_headers(client, user=None, authless="basket-anon-separate")
    assert client.get("/v1/basket?store_id=1001", headers=anonymous).get_json()["recipe_count"] == 0
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipe_count"] == 1


def test_basket_lookup_at_an_unknown_store_is_an_empty_basket(client, user):
    """Upstream 400 for an unknown point of sale during basket lookup -> empty basket."""
    response = client.get("/v1/basket?store_id=424242", headers=user)
    assert response.status_code == 200 and response.get_json()["recipes"] == []
    assert response.get_json()["unknown_store"] is True  # what the SDK's hook callback gets as isPosValid
    known = client.get("/v1/basket?store_id=1001", headers=user).get_json()
    assert "unknown_store" not in known


def test_basket_without_store_is_empty(client, user):
    assert client.get("/v1/basket", headers=user).get_json()["recipe_count"] == 0


def chosen_lines(shown: dict) -> tuple[dict, dict, dict]:
    """From the drawer's data: an ingredient whose product the shopper swaps (with the product), and one left out."""
    swapped = next(i for i in shown["ingredients"] if len(i["products"]) > 1 and i["chosen"])
    other = next(p for p in swapped["products"] if p["id"] != swapped["chosen"])
    left_out = next(i for i in shown["ingredients"] if i["chosen"] and i["id"] != swapped["id"])
    return swapped, other, left_out


def test_add_all_with_the_shoppers_choices_is_one_write(client, user):
    shown = drawer_data(client)
    swapped, other, left_out = chosen_lines(shown)
    lines = [
        {"ingredient_id": swapped["id"], "product_id": other["id"], "quantity": other["packages"]},
        {"ingredient_id": left_out["id"], "product_id": left_out["chosen"], "quantity": 0},
    ]
    answer = client.post(
        "/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": "1001", "lines": lines}, headers=user
    ).get_json()
    (entry,) = answer["basket"]["recipes"]
    held = {line["ingredient_id"]: (line["product_id"], line["quantity"]) for line in entry["lines"]}
    assert held[swapped["id"]] == (other["id"], other["packages"])
    assert left_out["id"] not in held
    # The retailer cart is told to add the chosen products only: nothing to take back out.
    expected: dict[str, int] = {}
    for ingredient in shown["ingredients"]:
        if ingredient["chosen"] and ingredient["id"] != left_out["id"]:
            product = (
                other
                if ingredient["id"] == swapped["id"]
                else next(p for p in ingredient["products"] if p["id"] == ingredient["chosen"])
            )
            expected[product["id"]] = expected.get(product["id"], 0) + product["packages"]
    assert {c["id"]: c["quantity"] for c in answer["changes"]} == expected
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipes"] == answer["basket"]["recipes"]


def test_add_all_retried_with_its_key_is_applied_once(client, user):
    swapped, other, _ = chosen_lines(drawer_data(client))
    body = {
        "recipe_id": "5",
        "guests": 4,
        "store_id": "1001",
        "lines": [{"ingredient_id": swapped["id"], "product_id": other["id"]}],
    }
    keyed = {**user, "Idempotency-Key": "add-all-retried-once"}
    first = client.post("/v1/basket/recipes", json=body, headers=keyed)
    assert first.status_code == 200
    # The shopper sets that line by hand meanwhile: the retry answers the first outcome and changes nothing.
    changed = client.put(
        f"/v1/basket/recipes/5/ingredients/{swapped['id']}",
        json={"product_id": other["id"], "quantity": 9, "store_id": "1001"},
        headers=user,
    ).get_json()["basket"]
    retried = client.post("/v1/basket/recipes", json=body, headers=keyed)
    assert retried.status_code == 200 and retried.get_json() == first.get_json()
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json() == changed


def test_a_choice_the_upstream_refuses_is_a_400_naming_it_and_adds_nothing(client, user):
    swapped, other, left_out = chosen_lines(drawer_data(client))
    lines = [
        {"ingredient_id": swapped["id"], "product_id": other["id"]},
        {"ingredient_id": left_out["id"], "product_id": other["id"]},  # another ingredient's product
    ]
    response = client.post(
        "/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": "1001", "lines": lines}, headers=user
    )
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert list(response.get_json()["errors"]["json"]) == ["lines.1.product_id"]
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipes"] == []


@pytest.mark.parametrize(
    "line,field",
    [
        ({"ingredient_id": "carotte", "product_id": "100040", "quantity": -1}, "quantity"),
        ({"ingredient_id": "carotte", "product_id": "100040", "quantity": 100}, "quantity"),
        ({"ingredient_id": "carotte", "product_id": "100040", "quantity": "1"}, "quantity"),
        ({"ingredient_id": "carotte", "product_id": "not an id"}, "product_id"),
        ({"product_id": "100040"}, "ingredient_id"),
        ({"ingredient_id": "carotte", "product_id": "100040", "extra": 1}, "extra"),
    ],
)
def test_choices_are_validated_before_the_upstream(client, user, line, field):
    body = {"recipe_id": "5", "guests": 4, "store_id": "1001", "lines": [line]}
    response = client.post("/v1/basket/recipes", json=body, headers=user)
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    # prerender names the line's field by its dotted path, as its other nested bodies' (lines.<index>.<field>).
    assert list(response.get_json()["errors"]["json"]) == [f"lines.0.{field}"], response.get_json()


def test_one_choice_per_ingredient(client, user):
    line = {"ingredient_id": "carotte", "product_id": "100040"}
    body = {"recipe_id": "5", "guests": 4, "store_id": "1001", "lines": [line, line]}
    response = client.post("/v1/basket/recipes", json=body, headers=user)
    assert response.status_code == 400 and "lines" in response.get_json()["errors"]["json"]


@pytest.mark.parametrize(
    "body,field",
    [
        ({"recipe_id": "5", "guests": 0, "store_id": "1001"}, "guests"),
        ({"recipe_id": "5", "guests": 4}, "store_id"),
        ({"recipe_id": "5", "guests": "4", "store_id": "1001"}, "guests"),
        ({"recipe_id": "5", "guests": 4, "store_id": "1001", "extra": 1}, "extra"),
    ],
)
def test_write_validation(client, user, body, field):
    response = client.post("/v1/basket/recipes", json=body, headers=user)
    assert response.status_code == 400 and field in response.get_json()["errors"]["json"]


def test_unknown_store_on_write_is_a_400(client, user):
    response = add(client, user, store_id="424242")
    assert response.status_code == 400 and "store_id" in response.get_json()["errors"]["json"]


def test_unknown_recipe_is_a_404(client, user):
    response = add(client, user, recipe_id="999999")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_merge_authless_basket_at_the_end_of_the_auth_flow(client, user, user_id):
    """The customer's server merges when its user logs in: the specification's headers, its supplier-token."""
    authless_id = f"merge-anon-{next(_users)}"
    anonymous = browser_headers(client, user=None, authless=authless_id)
    assert add(client, anonymous, recipe_id="7").status_code == 200
    response = client.get(
        "/v1/basket/merge-authless-basket",
        headers=headers(user=user_id),
        query_string={"authless_id": authless_id, "store_id": "1001"},
    )
    assert response.status_code == 200 and "no-store" in response.headers["Cache-Control"]
    assert [r["recipe_id"] for r in response.get_json()["basket"]["recipes"]] == ["7"]
    assert client.get("/v1/basket?store_id=1001", headers=anonymous).get_json()["recipe_count"] == 0
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipe_count"] == 1


@pytest.mark.parametrize("store_query", [{}, {"store_id": ""}])
def test_merge_authless_basket_before_any_store_was_chosen(client, user, user_id, store_query):
    """A login before the visitor chose a store (no store_id, as the specification lets every route go without one):
    the visitor's basket still follows the user, at the store it was priced at."""
    authless_id = f"merge-anon-{next(_users)}"
    anonymous = browser_headers(client, user=None, authless=authless_id)
    assert add(client, anonymous, recipe_id="7", store_id="1002").status_code == 200
    response = client.get(
        "/v1/basket/merge-authless-basket",
        headers=headers(user=user_id),
        query_string={"authless_id": authless_id, **store_query},
    )
    assert response.status_code == 200, response.get_json()
    basket = response.get_json()["basket"]
    assert basket["store_id"] == "1002" and [r["recipe_id"] for r in basket["recipes"]] == ["7"]
    assert client.get("/v1/basket?store_id=1002", headers=anonymous).get_json()["recipe_count"] == 0
    assert client.get("/v1/basket?store_id=1002", headers=user).get_json()["recipe_count"] == 1


def test_merge_needs_a_logged_in_user_and_its_parameters(client, user_id):
    query = {"authless_id": "merge-anon-x", "store_id": "1001"}
    anonymous = headers(user=None)
    assert client.get("/v1/basket/merge-authless-basket", headers=anonymous, query_string=query).status_code == 403
    missing = client.get(
        "/v1/basket/merge-authless-basket", headers=headers(user=user_id), query_string={"store_id": "1001"}
    )
    assert missing.status_code == 400 and "authless_id" in missing.get_json()["errors"]["query"]

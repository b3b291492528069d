"""POST /{v}/baskets/handle-payment against the real coreapi basket: the paid retailer cart confirms the basket
as that cart has it, once per order-id (also under concurrent calls), never an empty one."""

from __future__ import annotations

import itertools
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from prerender.blueprints.payments import name_fields_as_sent

from .conftest import browser_headers, headers, live_browser_headers

_users = itertools.count()
STORE = "1001"


@pytest.fixture
def user(client) -> dict[str, str]:
    """A fresh connected user's browser: the headers with its credential."""
    return browser_headers(client, user=f"payment-user-{next(_users)}-{uuid.uuid4().hex[:6]}")


def fill(client, user, recipe_id: str = "5") -> dict:
    """A recipe in the basket; the basket answered."""
    answer = client.post(
        "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": 4, "store_id": STORE}, headers=user
    )
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["basket"]


def cart_of(basket: dict) -> list[dict]:
    return [{"id": p["id"], "quantity": p["quantity"]} for p in basket["products"]]


def pay(client, user, *, total: float, products: list[dict], order_id: str | None = None, version: str = "v1"):
    path = f"/{version}/baskets/handle-payment" + (f"?order-id={order_id}" if order_id else "")
    return client.post(path, json={"store_id": STORE, "totalPrice": total, "products": products}, headers=user)


def basket(client, user) -> dict:
    return client.get(f"/v1/basket?store_id={STORE}", headers=user).get_json()


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_paid_cart_confirms_the_basket(client, user, version):
    filled = fill(client, user)
    answer = pay(client, user, total=filled["total"], products=cart_of(filled), order_id="order-a", version=version)
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["outcome"] == "confirmed" and body["confirmed"] is True and body["basket_id"]
    # The shopper starts an empty basket.
    assert basket(client, user)["recipe_count"] == 0


def test_the_basket_follows_the_paid_cart_before_its_total_is_checked(client, user):
    filled = fill(client, user)
    kept = cart_of(filled)[1:]
    # Too little paid: the refusal names the total of the basket as it follows the cart, below the full one.
    refused = pay(client, user, total=0, products=kept, order_id="order-b")
    assert refused.status_code == 409
    followed_total = refused.get_json()["expected_total"]
    assert "totalPrice" in refused.get_json()["errors"]["json"]
    assert 0 < followed_total < filled["total"]
    # The cart paid without the first product, at its total: confirmed.
    answer = pay(client, user, total=followed_total, products=kept, order_id="order-b")
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["outcome"] == "confirmed"


def test_a_total_below_the_followed_basket_confirms_nothing(client, user):
    filled = fill(client, user)
    answer = pay(client, user, total=0.5, products=cart_of(filled), order_id="order-c")
    assert answer.status_code == 409
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert "Retry-After" not in answer.headers  # the payment's outcome: the SDK does not send it again
    # Nothing changed: the basket is still whole (the cart's follow was rolled back with the refusal).
    assert basket(client, user)["products"] == filled["products"]


def test_a_repeated_order_is_not_confirmed_twice(client, user):
    filled = fill(client, user)
    first = pay(client, user, total=filled["total"], products=cart_of(filled), order_id="order-d").get_json()
    refilled = fill(client, user, recipe_id="3")
    again = pay(client, user, total=refilled["total"], products=[], order_id="order-d")
    assert first["outcome"] == "confirmed"
    assert again.get_json() == {"outcome": "already_confirmed", "confirmed": False}
    # The repeated call touched nothing: its (empty) cart did not empty the new basket.
    assert basket(client, user)["products"] == refilled["products"]


def test_an_empty_basket_is_not_confirmed(client, user):
    assert pay(client, user, total=0, products=[]).get_json() == {"outcome": "empty", "confirmed": False}
    filled = fill(client, user)
    # A payment of nothing (no line, or none of a positive quantity) is not followed: the basket stays whole.
    for products in ([], [{**line, "quantity": 0} for line in cart_of(filled)]):
        answer = pay(client, user, total=filled["total"], products=products, order_id="order-e")
        assert answer.get_json() == {"outcome": "empty", "confirmed": False}
        assert basket(client, user)["products"] == filled["products"]
    # A cart without any of the basket's products: the basket follows it and is then empty.
    answer = pay(client, user, total=filled["total"], products=[{"id": "999999", "quantity": 1}])
    assert answer.get_json() == {"outcome": "empty", "confirmed": False}


def test_thirty_concurrent_calls_for_one_order_confirm_once(client, prerender_url):
    user = live_browser_headers(prerender_url, user=f"payment-race-{uuid.uuid4().hex}")
    answer = requests.post(
        f"{prerender_url}/v1/basket/recipes",
        json={"recipe_id": "5", "guests": 4, "store_id": STORE},
        headers=user,
        timeout=10,
    )
    filled = answer.json()["basket"]
    body = {"store_id": STORE, "totalPrice": filled["total"], "products": cart_of(filled)}

    def call(_: int) -> requests.Response:
        return requests.post(
            f"{prerender_url}/v1/baskets/handle-payment?order-id=order-race", json=body, headers=user, timeout=30
        )

    with ThreadPoolExecutor(max_workers=30) as pool:
        answers = list(pool.map(call, range(30)))
    assert {a.status_code for a in answers} == {200}, [a.text for a in answers if a.status_code != 200]
    outcomes = [a.json()["outcome"] for a in answers]
    assert outcomes.count("confirmed") == 1
    assert set(outcomes) == {"confirmed", "already_confirmed"}


@pytest.mark.parametrize(
    ("body", "query", "field"),
    [
        ({"store_id": STORE, "products": []}, "", "totalPrice"),
        ({"store_id": STORE, "totalPrice": -1, "products": []}, "", "totalPrice"),
        ({"store_id": STORE, "totalPrice": 1}, "", "products"),
        ({"store_id": STORE, "totalPrice": 1, "products": [{"id": "1", "quantity": -2}]}, "", "products"),
        ({"totalPrice": 1, "products": []}, "", "store_id"),
        ({"store_id": STORE, "totalPrice": 1, "products": []}, "?order-id=" + "x" * 65, "order-id"),
    ],
)
def test_invalid_payments_are_400(client, user, body, query, field):
    answer = client.post(f"/v1/baskets/handle-payment{query}", json=body, headers=user)
    assert answer.status_code == 400
    assert field in str(answer.get_json().get("errors"))


def test_a_cart_line_takes_the_quantities_the_recipe_service_takes_and_a_refusal_names_the_field_sent(client, user):
    """9 999 is the recipe service's limit of a cart line: 10 000 is prerender's own 400 on `products`, the field
    the caller sent (it was the recipe service's 400 on its own `cart.0.quantity`)."""
    line = {"id": "100001", "quantity": 10_000}
    refused = client.post(
        "/v1/baskets/handle-payment", json={"store_id": STORE, "totalPrice": 0, "products": [line]}, headers=user
    )
    assert refused.status_code == 400
    assert refused.get_json()["errors"] == {
        "json": {"products.0.quantity": ["Must be greater than or equal to 0 and less than or equal to 9999."]}
    }
    taken = pay(client, user, total=0, products=[{**line, "quantity": 9_999}])  # none of ours: nothing to confirm
    assert taken.status_code == 200 and taken.get_json()["outcome"] == "empty", taken.get_data(as_text=True)


def test_a_nul_in_the_order_id_is_the_shoppers_400_and_leaves_the_baskets_breaker_closed(client, user):
    """PostgreSQL refuses a NUL character: sent on, each such payment was the recipe service's 500, and twenty
    of them opened the baskets' circuit breaker for every shopper (a 503 for their basket writes). It is the
    caller's 400 here, and nothing reaches the recipe service."""
    body = {"store_id": STORE, "totalPrice": 0, "products": []}
    for attempt in range(25):
        answer = client.post(f"/v1/baskets/handle-payment?order-id=a%00{attempt}", json=body, headers=user)
        assert answer.status_code == 400 and answer.get_json()["errors"] == {
            "query": {"order-id": ["Must not contain a NUL character."]}
        }
    assert client.get("/healthz").get_json()["upstream"]["baskets"] == "closed"
    assert pay(client, user, total=0, products=[]).status_code != 503


def test_the_customers_server_confirms_too_with_its_supplier_token(client):
    """A retailer's order system confirms the payment from its server (the maker's integrations do), with the
    specification's headers: its supplier-token vouches for the user it names, as on the merges. Without a valid
    token, a 401 naming both credentials that would do."""
    shopper = f"payment-server-{uuid.uuid4().hex[:8]}"
    filled = fill(client, browser_headers(client, user=shopper))
    body = {"store_id": STORE, "totalPrice": filled["total"], "products": cart_of(filled)}
    path = f"/v1/baskets/handle-payment?order-id=server-{shopper}"
    refused = client.post(path, json=body, headers=headers(user=shopper, token="not-a-supplier-token"))
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"] == 'Bearer realm="prerender", SupplierToken realm="prerender"'
    assert basket(client, browser_headers(client, user=shopper))["recipe_count"] == 1  # nothing was done
    confirmed = client.post(path, json=body, headers=headers(user=shopper))
    assert confirmed.status_code == 200 and confirmed.get_json()["outcome"] == "confirmed", confirmed.get_json()
    assert basket(client, browser_headers(client, user=shopper))["recipe_count"] == 0


def test_an_upstream_refusal_names_the_fields_the_caller_sent() -> None:
    """The recipe service names its own fields (`cart`, `total`): the caller sent `products` and `totalPrice`
    (prerender/blueprints/payments.py writes the upstream's body in the upstream's names)."""
    problem = {"errors": {"json": {"cart.3.id": ["Unknown."], "total": ["Too low."], "store_id": ["Unknown store."]}}}
    name_fields_as_sent(problem)
    assert problem["errors"]["json"] == {
        "products.3.id": ["Unknown."],
        "totalPrice": ["Too low."],
        "store_id": ["Unknown store."],
    }

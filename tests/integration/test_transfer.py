"""POST /{v}/basket/transfers and /redeem against the real coreapi: a publisher's basket handed to its affiliated
retailer through a one-time link, and received in the retailer shopper's basket with the cart's changes."""

from __future__ import annotations

import itertools
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import browser_headers

PUBLISHER = "demo-publisher-token"
RETAILER = "demo-retailer-token"
STORE = "1001"
_people = itertools.count()


def someone(kind: str) -> str:
    return f"transfer-{kind}-{next(_people)}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def reader(client) -> dict[str, str]:
    """A logged-out visitor of the publisher's blog (its browser's headers)."""
    return browser_headers(client, user=None, token=PUBLISHER, authless=someone("reader"))


@pytest.fixture
def shopper(client) -> dict[str, str]:
    """A logged-out visitor of the retailer's site."""
    return browser_headers(client, user=None, token=RETAILER, authless=someone("shopper"))


def add(client, browser, recipe_id: str = "3", guests: int = 4) -> dict:
    answer = client.post(
        "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": guests, "store_id": STORE}, headers=browser
    )
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["basket"]


def create(client, browser, store_id: str = STORE, version: str = "v1"):
    return client.post(f"/{version}/basket/transfers", json={"store_id": store_id}, headers=browser)


def token_of(answer) -> str:
    assert answer.status_code == 201, answer.get_json()
    return parse_qs(urlsplit(answer.get_json()["url"]).query)["transferred_basket_token"][0]


def redeem(client, browser, token: str, store_id: str = STORE):
    return client.post("/v1/basket/transfers/redeem", json={"token": token, "store_id": store_id}, headers=browser)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_link_leads_to_the_retailers_catalog_with_a_one_time_token(client, reader, version):
    add(client, reader)
    answer = create(client, reader, version=version)
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    url = urlsplit(body["url"])
    assert f"{url.scheme}://{url.netloc}{url.path}" == "http://127.0.0.1:8080/idees"  # supplier 1's local routing
    params = parse_qs(url.query)
    assert params["affiliate"] == ["Le Magazine Cuisine"]
    assert params["point_of_sale_ext_id"] == [STORE]
    assert len(params["transferred_basket_token"][0]) >= 40
    assert body["retailer"] == "Demo Market" and body["store_id"] == STORE and body["expires_at"]


def test_the_basket_arrives_in_the_retailer_shoppers_basket_with_the_carts_changes(client, reader, shopper):
    sent = add(client, reader, "3", guests=6)
    answer = redeem(client, shopper, token_of(create(client, reader)))
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert [r["recipe_id"] for r in body["basket"]["recipes"]] == ["3"]
    assert body["basket"]["recipes"][0]["guests"] == 6
    assert sorted((c["id"], c["quantity"]) for c in body["changes"]) == sorted(
        (p["id"], p["quantity"]) for p in sent["products"]
    )
    # What arrived, for the shopper: the publisher, one recipe and its products (plural texts, docs/browser-api.md).
    products = len(sent["products"])
    assert body["transfer"] == {
        "source_supplier_name": "Le Magazine Cuisine",
        "recipe_count": 1,
        "product_count": products,
        "message": f"Votre panier de Le Magazine Cuisine\u00a0: 1 recette, {products} produits",
    }
    # The publisher's basket was handed over: it is empty now.
    assert client.get(f"/v1/basket?store_id={STORE}", headers=reader).get_json()["recipe_count"] == 0


def test_the_message_is_in_the_shoppers_language_and_counts_two_recipes(client, reader):
    add(client, reader, "3")
    add(client, reader, "4")
    english = browser_headers(client, user=None, token=RETAILER, authless=someone("shopper"), language="en")
    transfer = redeem(client, english, token_of(create(client, reader))).get_json()["transfer"]
    assert transfer["recipe_count"] == 2 and transfer["product_count"] > 1
    assert (
        transfer["message"] == f"Your basket from Le Magazine Cuisine: 2 recipes, {transfer['product_count']} products"
    )


def test_a_basket_emptied_before_its_redeem_says_it_arrived_empty(client, reader, shopper):
    add(client, reader)
    token = token_of(create(client, reader))
    client.delete(f"/v1/basket/recipes/3?store_id={STORE}", headers=reader)
    transfer = redeem(client, shopper, token).get_json()["transfer"]
    assert transfer["recipe_count"] == 0 and transfer["product_count"] == 0
    assert transfer["message"] == "Votre panier de Le Magazine Cuisine est arrivé vide\u00a0: rien n'a été ajouté."


def test_a_link_works_once(client, reader, shopper):
    add(client, reader)
    token = token_of(create(client, reader))
    assert redeem(client, shopper, token).status_code == 200
    again = redeem(client, shopper, token)
    assert again.status_code == 410
    assert again.mimetype == "application/problem+json"
    assert again.get_json()["reason"] == "redeemed"


def test_concurrent_redeems_of_one_link_apply_once(client, app, reader):
    add(client, reader)
    token = token_of(create(client, reader))
    shoppers = [browser_headers(client, user=None, token=RETAILER, authless=someone("racer")) for _ in range(8)]

    def attempt(browser: dict[str, str]) -> int:
        with app.test_client() as own:
            return redeem(own, browser, token).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(attempt, shoppers))
    assert sorted(statuses) == [200] + [410] * 7


def test_an_empty_basket_is_not_handed_over(client, reader):
    answer = create(client, reader)
    assert answer.status_code == 409
    assert answer.get_json()["reason"] == "empty"


def test_a_retailer_has_no_affiliate_to_hand_over_to(client, shopper):
    add(client, shopper)
    answer = create(client, shopper)
    assert answer.status_code == 409
    assert answer.get_json()["reason"] == "no-affiliate"


def test_another_retailer_cannot_redeem_the_link(client, reader):
    add(client, reader)
    token = token_of(create(client, reader))
    other = browser_headers(client, user=None, token="demo-nopers-token", authless=someone("other"))
    assert redeem(client, other, token).status_code == 404


@pytest.mark.parametrize("token", ["short", "has spaces in it but long enough", "x" * 200])
def test_a_malformed_token_is_a_400_naming_it(client, shopper, token):
    answer = redeem(client, shopper, token)
    assert answer.status_code == 400
    assert "token" in answer.get_json()["errors"]["json"]


def test_an_unknown_token_is_a_404(client, shopper):
    assert redeem(client, shopper, "A" * 43).status_code == 404


@pytest.mark.parametrize("path", ["/v1/basket/transfers", "/v1/basket/transfers/redeem"])
def test_the_routes_need_the_browsers_credential(client, path):
    answer = client.post(path, json={"store_id": STORE}, headers={"language-id": "fr", "session-id": "s-1"})
    assert answer.status_code == 401
    assert answer.mimetype == "application/problem+json"


def test_a_claimed_identity_is_not_a_credential(client):
    claimed = {"language-id": "fr", "session-id": "s-1", "supplier-token": PUBLISHER, "authless-id": "someone"}
    assert client.post("/v1/basket/transfers", json={"store_id": STORE}, headers=claimed).status_code == 401


def test_a_publisher_without_a_retailer_site_gets_no_transfer_offer(app, client, reader):
    """The CTA offers no store picker when the transfer could not succeed (no site in this environment)."""
    app.config["ENVIRONMENT"] = "nowhere"
    answer = client.get(
        "/v1/no-supplier-add-to-cart-cta?recipe_id=5",
        headers={"language-id": "fr", "session-id": "s-1", "supplier-token": PUBLISHER, "authless-id": someone("x")},
    )
    assert '"available": false' in answer.get_data(as_text=True)
    add(client, reader)
    refused = create(client, reader)
    assert refused.status_code == 409 and refused.get_json()["reason"] == "no-affiliate"

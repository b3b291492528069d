"""Cache headers: a strong ETag and 304 on every GET, private when the answer depends on the user, public
with Vary when it does not (prerender/web/http_caching.py)."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from prerender import create_app
from tests.conftest import closed_port, listed

from .conftest import browser_headers, get_card, headers


def is_public(response) -> bool:
    cache_control = response.headers["Cache-Control"]
    return "public" in cache_control and "max-age=60" in cache_control and "stale-while-revalidate" in cache_control


def is_private(response) -> bool:
    return "private" in response.headers["Cache-Control"]


@pytest.mark.usefixtures("one_credential_step")
@pytest.mark.parametrize(
    "path",
    [
        "/v1/styles",
        "/v1/styles/recipe-card",
        "/v2/svc-window-bootstrap",
        "/v1/recipe-details?recipe_id=5&store_id=1001",
        "/v1/recipe-card?recipe_id=5&store_id=1001",
        "/v1/basket?store_id=1001",
    ],
)
def test_etag_and_304(client, path):
    # The basket is a browser route: the shopper's credential; the others are asked for by the customer's server.
    hdrs = browser_headers(client, user="cache-user") if path.startswith("/v1/basket") else headers(user="cache-user")
    first = client.get(path, headers=hdrs)
    assert first.status_code == 200 and first.headers["ETag"].startswith('"')
    again = client.get(path, headers={**hdrs, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_styles_are_public_for_everyone(client):
    for hdrs in (headers(), headers(user=None, token=None)):
        response = client.get("/v1/styles/base", headers=hdrs)
        assert is_public(response) and "language-id" not in response.headers.get("Vary", ""), hdrs


def test_the_anonymous_bootstrap_is_kept_once_per_supplier_token_and_language(client):
    """Without a valid supplier-token the bootstrap is the same for everyone, but the same URL with a valid one
    carries the shopper's credential: a cache that keeps the first must key it on the token, or it hands the
    copy without a credential to a customer's server that sent a valid token. And a language-id with a retailer's
    versions of the SDK's texts brings them (tests/integration/test_sdk_texts.py): keyed on it too."""
    for token in (None, "not-a-supplier-token"):
        response = client.get("/v2/svc-window-bootstrap", headers=headers(token=token))
        assert is_public(response), token
        assert {"supplier-token", "language-id"} <= set(listed(response, "Vary")), token


def test_the_bootstrap_whose_token_could_not_be_checked_is_kept_by_no_cache(app_config):
    """The upstream is down before the supplier-token could be checked: no credential can be issued (it names
    the supplier), so this copy is a degraded answer no cache keeps, never the token's public answer."""
    client = create_app(
        {**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}", "UPSTREAM_RETRIES": 0}
    ).test_client()
    response = client.get("/v2/svc-window-bootstrap", headers=headers(user="bootstrap-outage-user"))
    assert response.status_code == 200
    assert response.headers["X-Degraded"] == "upstream"
    assert response.headers["Cache-Control"] == "private, no-store" and "ETag" not in response.headers
    fragment = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    assert fragment.find("svc-shopper") is None and fragment.find("script", type="module") is not None


@pytest.mark.parametrize(
    "path",
    [
        "/v1/recipe-card?recipe_id=1&store_id=1001",
        '/v1/recipe-card?surrounding_products_ids=["1","2"]&store_id=1001',
        "/v1/no-supplier-add-to-cart-cta?recipe_id=1",
    ],
    ids=["fixed-card", "suggested-card", "cta"],
)
def test_a_fragment_the_upstream_failed_is_marked_degraded_and_kept_by_no_cache(app_config, path):
    """The empty fragment an outage leaves is a 200 the customer's page includes, as the planner's try-again
    state is; like it, it says why (`X-Degraded`, counted in /metrics) and no cache keeps it. Before, it was an
    ordinary empty answer with an ETag, which a cache could revalidate against and keep."""
    client = create_app({**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}"}).test_client()
    response = client.get(path, headers=headers(user="outage-user"))
    assert response.status_code == 200 and response.get_data() == b""
    assert response.headers["X-Degraded"] == "upstream"
    assert response.headers["Cache-Control"] == "private, no-store" and "ETag" not in response.headers
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'prerender_degraded_answers_total{endpoint="v1.' in metrics


def test_the_bootstrap_with_a_shoppers_credential_is_private(client):
    """A valid supplier-token names a shopper: the bootstrap carries that shopper's credential, for nobody else."""
    response = client.get("/v2/svc-window-bootstrap", headers=headers(user="bootstrap-cache-user"))
    assert is_private(response) and "public" not in response.headers["Cache-Control"]


def test_fixed_card_without_personalization_is_public_and_varies_on_language_and_supplier(client):
    response = get_card(client, hdrs=headers(token="demo-nopers-token"), recipe_id="5", store_id="1001")
    assert is_public(response)
    assert {"language-id", "supplier-token"} <= {v.strip().lower() for v in response.headers["Vary"].split(",")}
    anonymous = get_card(client, hdrs=headers(user=None, token="demo-nopers-token"), recipe_id="5", store_id="1001")
    assert anonymous.data == response.data  # what makes sharing it safe


@pytest.mark.parametrize(
    "query", [{"recipe_id": "5", "store_id": "1001"}, {"surrounding_products_ids": json.dumps(["100001", "100002"])}]
)
def test_cards_of_personalized_suppliers_and_suggestions_are_private(client, query):
    assert is_private(get_card(client, **query))


def test_suggested_card_is_private_even_without_personalization(client):
    response = get_card(
        client, hdrs=headers(token="demo-nopers-token"), surrounding_products_ids=json.dumps(["100001", "100002"])
    )
    assert is_private(response)  # seeded by the session


def test_basket_and_likes_are_private(client):
    browser = browser_headers(client)
    assert is_private(client.get("/v1/basket?store_id=1001", headers=browser))
    assert is_private(client.get("/v1/likes?recipe_ids=5", headers=browser))


def test_errors_carry_no_cache_policy(client):
    response = client.get("/v1/recipe-card", headers=headers())
    assert response.status_code == 400 and "public" not in response.headers.get("Cache-Control", "")


# Every answer that may carry a shopper's credential (prerender/web/shopper.py), from each route that
# appends one, asked for by a customer's server with a valid supplier-token.
CREDENTIAL_ANSWERS = [
    ("GET", "/v1/recipe-card?recipe_id=5&store_id=1001", None, "demo-retailer-token"),
    (
        "GET",
        f"/v1/recipe-card?surrounding_products_ids={json.dumps(['100001', '100002'])}",
        None,
        "demo-retailer-token",
    ),
    ("GET", "/v2/svc-window-bootstrap", None, "demo-retailer-token"),
    ("GET", "/v1/no-supplier-add-to-cart-cta?recipe_id=5", None, "demo-publisher-token"),
    ("GET", "/v2/catalog", None, "demo-retailer-token"),
    ("GET", "/v2/catalog/my-space", None, "demo-retailer-token"),
    ("GET", "/v2/planner/entry?store_id=1001", None, "demo-retailer-token"),
    (
        "POST",
        "/v1/recipe-card/multiple?store_id=1001",
        {"contexts": [{"productIds": ["100001", "100002"], "position": 1}], "keyword": None, "categoryId": None},
        "demo-retailer-token",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "token"),
    CREDENTIAL_ANSWERS,
    ids=[f"{m} {p.split('?')[0]}" for m, p, _, _ in CREDENTIAL_ANSWERS],
)
def test_every_answer_carrying_a_credential_is_private(client, method, path, body, token):
    """A shared cache that kept one of these would hand one shopper's credential to the next."""
    response = client.open(path, method=method, json=body, headers=headers(user="credential-cache", token=token))
    assert response.status_code == 200
    assert "-shopper" in response.get_data(as_text=True) and "credential=" in response.get_data(as_text=True)
    assert response.headers.get("Cache-Control") == "private, max-age=0, must-revalidate", path


def test_the_multiple_routes_answer_is_private_and_carries_no_etag(client):
    """A POST is never revalidated: the private Cache-Control alone."""
    body = {"contexts": [{"productIds": ["100001", "100002"], "position": 1}], "keyword": None, "categoryId": None}
    response = client.post("/v1/recipe-card/multiple?store_id=1001", json=body, headers=headers(user="multi-cache"))
    assert response.status_code == 200 and response.get_json()["data"][0]["html"]
    assert is_private(response) and "ETag" not in response.headers

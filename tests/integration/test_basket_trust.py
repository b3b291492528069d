"""Baskets belong to a supplier's shopper, a payment confirms the basket's own total, and a write retried
with its Idempotency-Key applies once: the attacker's and the unlucky browser's requests, through
prerender, against the real coreapi (docs/security.md, docs/browser-api.md)."""

from __future__ import annotations

import itertools

import pytest

from prerender.web.credentials import CredentialSigner, Shopper
from tests.conftest import TEST_SECRET_KEY

from .conftest import browser_headers

_shoppers = itertools.count()


@pytest.fixture
def shopper() -> str:
    return f"trust-user-{next(_shoppers)}"


def add(client, hdrs: dict[str, str], **extra: str):
    body = {"recipe_id": "5", "guests": 4, "store_id": "1001"}
    return client.post("/v1/basket/recipes", json=body, headers={**hdrs, **extra})


def test_a_credential_for_no_known_supplier_reaches_no_basket(client, shopper: str) -> None:
    """Browser routes act for the credential's supplier: one that is not (or no longer) known gets nothing,
    even with a credential this service signed."""
    mine = browser_headers(client, user=shopper)
    add(client, mine)
    signer = CredentialSigner(keys=[TEST_SECRET_KEY], max_age=3600)
    unknown = {**mine, "authorization": f"Bearer {signer.issue(Shopper(supplier_id='999999', user_id=shopper))}"}
    for answer in (
        client.get("/v1/basket?store_id=1001", headers=unknown),
        add(client, unknown),
        client.delete("/v1/basket/recipes/5?store_id=1001", headers=unknown),
    ):
        assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
        assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    assert client.get("/v1/basket?store_id=1001", headers=mine).get_json()["recipe_count"] == 1


def test_a_payment_below_the_baskets_total_is_refused_and_confirms_nothing(client, shopper: str) -> None:
    user = browser_headers(client, user=shopper)
    total = add(client, user).get_json()["basket"]["total"]
    cheap = client.post(
        "/v1/basket/confirm", json={"store_id": "1001", "total": 0, "order_id": "o-cheap"}, headers=user
    )
    assert cheap.status_code == 409 and cheap.mimetype == "application/problem+json"
    assert cheap.get_json()["expected_total"] == total and "total" in cheap.get_json()["errors"]["json"]
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipe_count"] == 1
    paid = client.post(
        "/v1/basket/confirm", json={"store_id": "1001", "total": total + 3.5, "order_id": "o-cheap"}, headers=user
    )
    assert paid.get_json()["confirmed"] is True  # a cart may hold more than the basket


def test_a_confirmation_retried_with_its_key_is_answered_once(client, shopper: str) -> None:
    user = browser_headers(client, user=shopper)
    total = add(client, user).get_json()["basket"]["total"]
    body = {"store_id": "1001", "total": total}
    first = client.post("/v1/basket/confirm", json=body, headers={**user, "Idempotency-Key": "pay-1"})
    again = client.post("/v1/basket/confirm", json=body, headers={**user, "Idempotency-Key": "pay-1"})
    assert first.status_code == again.status_code == 200
    assert first.get_json()["confirmed"] is True and again.get_json() == first.get_json()
    fresh = client.post("/v1/basket/confirm", json=body, headers={**user, "Idempotency-Key": "pay-2"})
    assert fresh.get_json() == {"confirmed": False, "reason": "empty"}  # a new key: a new write


def test_a_key_reused_for_another_write_is_refused(client, shopper: str) -> None:
    user = browser_headers(client, user=shopper)
    assert add(client, user, **{"Idempotency-Key": "k-1"}).status_code == 200
    other = client.post(
        "/v1/basket/recipes",
        json={"recipe_id": "12", "guests": 2, "store_id": "1001"},
        headers={**user, "Idempotency-Key": "k-1"},
    )
    assert other.status_code == 422 and "Idempotency-Key" in str(other.get_json()["errors"])
    # Said in the browser's words: the recipe service's paths are never in an answer (docs/browser-api.md).
    detail = other.get_json()["detail"]
    assert "Idempotency-Key was used for another request" in detail and "/api/" not in detail


def test_a_malformed_key_is_a_400_naming_it(client, shopper: str) -> None:
    answer = add(client, browser_headers(client, user=shopper), **{"Idempotency-Key": "has spaces"})
    assert answer.status_code == 400 and "idempotency-key" in answer.get_json()["errors"]["headers"]


@pytest.mark.parametrize(
    "malformed", ["Bearer {credential},", "Bearer {credential} {credential}", "Bearer", "Bearer ", "BEARER a b"]
)
@pytest.mark.parametrize(
    "path", ["/v1/basket?store_id=1001", "/v1/recipe-details?recipe_id=5&store_id=1001", "/v2/favorite-items"]
)
def test_a_malformed_bearer_credential_is_a_401_invalid_token(client, shopper, malformed, path):
    """A Bearer credential, well formed or not, is a browser's: a malformed one is the 401 of an altered credential
    (docs/browser-api.md), on a browser route as on one a server may call too (not a 400 about `user_id`)."""
    mine = browser_headers(client, user=shopper)
    credential = mine["authorization"].removeprefix("Bearer ")
    answer = client.get(path, headers={**mine, "authorization": malformed.format(credential=credential)})
    assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
    assert answer.headers["WWW-Authenticate"] == 'Bearer realm="prerender", error="invalid_token"'


def test_the_bearer_scheme_is_case_insensitive(client, shopper):
    """RFC 9110 (section 11.1): `bearer` and `BEARER` name the same scheme as `Bearer`."""
    mine = browser_headers(client, user=shopper)
    credential = mine["authorization"].removeprefix("Bearer ")
    for scheme in ("bearer", "BEARER"):
        answer = client.get("/v1/basket?store_id=1001", headers={**mine, "authorization": f"{scheme} {credential}"})
        assert answer.status_code == 200, answer.get_json()

"""GET or POST /{v}/generate-authless-token against the live coreapi: identities issued to suppliers only."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.integration.conftest import RETAILER

VISITOR = {"language-id": "fr", "session-id": "s-visitor"}


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_supplier_gets_a_new_unguessable_authless_id_for_a_visitor(client, version: str, method: str) -> None:
    answers = [
        client.open(
            f"/{version}/generate-authless-token", method=method, headers={**VISITOR, "supplier-token": RETAILER}
        )
        for _ in range(3)
    ]
    assert {answer.status_code for answer in answers} == {200}
    ids = {answer.get_json()["authless_id"] for answer in answers}
    assert len(ids) == 3 and all(len(i) == 43 for i in ids)
    assert all(answer.headers["Cache-Control"] == "no-store" for answer in answers)


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("token", [None, "", "not-a-supplier-token"])
def test_without_a_valid_supplier_token_it_is_a_401_problem(client, token: str | None, method: str) -> None:
    headers = dict(VISITOR) if token is None else {**VISITOR, "supplier-token": token}
    answer = client.open("/v1/generate-authless-token", method=method, headers=headers)
    assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
    assert "supplier-token" in answer.get_json()["detail"]
    # Every 401 names how to authenticate (RFC 9110, section 11.6.1): here, the supplier's token.
    assert answer.headers["WWW-Authenticate"] == 'SupplierToken realm="prerender"'


def test_the_other_headers_are_still_checked(client) -> None:
    answer = client.post("/v1/generate-authless-token", headers={"supplier-token": RETAILER})
    assert answer.status_code == 400
    assert set(answer.get_json()["errors"]["headers"]) == {"language-id", "session-id"}


def test_the_id_works_as_authless_id_on_fragment_routes(client) -> None:
    authless_id = client.post(
        "/v1/generate-authless-token", headers={**VISITOR, "supplier-token": RETAILER}
    ).get_json()["authless_id"]
    card = client.get(
        "/v1/recipe-card?recipe_id=5&store_id=1001",
        headers={**VISITOR, "supplier-token": RETAILER, "authless-id": authless_id},
    )
    assert card.status_code == 200 and "svc-recipe-card-5" in card.get_data(as_text=True)
    # The private card brings the visitor's credential, for the browser routes.
    element = BeautifulSoup(card.get_data(as_text=True), "html.parser").find("svc-shopper")
    assert element is not None and element["kind"] == "authless" and element["shopper-id"] == authless_id
    browser = {"authorization": f"Bearer {element['credential']}", **VISITOR}
    assert client.get("/v1/basket?store_id=1001", headers=browser).get_json()["recipe_count"] == 0


@pytest.mark.parametrize(
    "path",
    [
        "/v1/recipe-card?recipe_id=5&store_id=1001",
        "/v2/svc-window-bootstrap",
        "/v2/planner/entry?store_id=1001",
        "/v1/no-supplier-add-to-cart-cta?recipe_id=5",
    ],
)
def test_a_server_that_sends_both_the_user_and_its_authless_id_gets_the_users_fragment(client, path: str) -> None:
    """A customer's server may send its visitor's authless id on every call, the user too once logged in: the
    request is the user's (the user's credential in the fragment), never a failure."""
    both = {**VISITOR, "supplier-token": RETAILER, "authorization": "user_id both-user", "authless-id": "both-visitor"}
    answer = client.get(path, headers=both)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    element = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-shopper")
    assert element is not None and element["kind"] == "user" and element["shopper-id"] == "both-user"

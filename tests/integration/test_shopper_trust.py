"""Nobody acts as another shopper: the attacker's requests against prerender and the real coreapi.

Browser routes act only for the shopper of a credential prerender issued (docs/security.md). A browser gets
one from a private fragment or the bootstrap its page's server asked for with the supplier-token; what a
request merely claims (`authorization: user_id`, `authless-id`, a supplier-token) proves nothing there.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time

import pytest
from bs4 import BeautifulSoup

from prerender.web import credentials
from prerender.web.credentials import CredentialSigner, Shopper
from tests.conftest import TEST_SECRET_KEY, allowed

from .conftest import RETAILER, browser_headers, headers, shopper_credential

NOPERS = "demo-nopers-token"
RETAILER_ID = "1"
ADD = {"recipe_id": "5", "guests": 4, "store_id": "1001"}
_victims = itertools.count()


@pytest.fixture
def victim() -> str:
    return f"victim-{next(_victims)}"


def basket_count(client, hdrs: dict[str, str]) -> int:
    answer = client.get("/v1/basket?store_id=1001", headers=hdrs)
    assert answer.status_code == 200, answer.get_json()
    return int(answer.get_json()["recipe_count"])


def assert_refused(answer) -> None:
    assert answer.status_code == 401, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


# --- 1. any caller could act as any user ---------------------------------------------------------------


@pytest.mark.parametrize("token", [None, RETAILER, "not-a-supplier-token"])
def test_a_claimed_user_id_reaches_no_basket_like_or_event(client, victim: str, token) -> None:
    """The issue's first attack: `authorization: user_id <victim>`, with or without a supplier token."""
    victim_browser = browser_headers(client, user=victim)
    assert client.post("/v1/basket/recipes", json=ADD, headers=victim_browser).status_code == 200
    claim = headers(user=victim, token=token)
    assert_refused(client.get("/v1/basket?store_id=1001", headers=claim))
    assert_refused(client.post("/v1/basket/recipes", json={**ADD, "recipe_id": "6"}, headers=claim))
    assert_refused(client.delete("/v1/basket/recipes/5?store_id=1001", headers=claim))
    assert_refused(client.post("/v1/basket/confirm", json={"store_id": "1001", "total": 999}, headers=claim))
    assert_refused(client.post("/v1/basket/reconcile", json={"store_id": "1001", "cart": []}, headers=claim))
    assert_refused(client.put("/v1/likes/5", headers=claim))
    assert_refused(client.get("/v1/likes?recipe_ids=5", headers=claim))
    assert_refused(client.post("/v1/events", json={"events": [{"name": "recipe.show", "path": "/"}]}, headers=claim))
    assert basket_count(client, victim_browser) == 1  # untouched


def test_a_beacon_claiming_a_user_is_refused(client, victim: str) -> None:
    body = {"headers": headers(user=victim), "events": [{"name": "recipe.show", "path": "/"}]}
    assert_refused(client.post("/v1/events", data=json.dumps(body), content_type="text/plain"))


def test_a_credential_edited_to_name_another_user_is_refused(client, victim: str) -> None:
    mine = shopper_credential(client, user="attacker")
    _, _, stamp_and_signature = mine.partition(".")
    # The payload is readable: the attacker rewrites it for the victim and keeps the signature.
    forged_payload = credentials.URLSafeTimedSerializer("x").dump_payload({"s": RETAILER_ID, "u": victim}).decode()
    forged = f"{forged_payload}.{stamp_and_signature}"
    answer = client.get(
        "/v1/basket?store_id=1001", headers={**browser_headers(client), "authorization": f"Bearer {forged}"}
    )
    assert_refused(answer)
    assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]


@pytest.mark.parametrize("separator", ["  ", "   "])
def test_a_credential_after_several_spaces_is_taken(client, victim: str, separator: str) -> None:
    """RFC 9110 (section 11.4) puts one or more spaces between the scheme and the credential."""
    credential = shopper_credential(client, user=victim)
    answer = client.get(
        "/v1/likes?recipe_ids=5", headers={**browser_headers(client), "authorization": f"Bearer{separator}{credential}"}
    )
    assert answer.status_code == 200


def test_a_credential_signed_with_another_key_is_refused(client, victim: str) -> None:
    theirs = CredentialSigner(keys=["an-attackers-own-key-" + "z" * 32], max_age=3600)
    forged = theirs.issue(Shopper(supplier_id=RETAILER_ID, user_id=victim))
    assert_refused(
        client.get("/v1/basket?store_id=1001", headers={**browser_headers(client), "authorization": f"Bearer {forged}"})
    )


BROWSER_ROUTES = [
    ("GET", "/v1/basket?store_id=1001", None),
    ("POST", "/v1/basket/recipes", ADD),
    ("PUT", "/v1/likes/5", None),
    ("GET", "/v1/likes?recipe_ids=5", None),
    ("POST", "/v1/events", {"events": [{"name": "recipe.show", "path": "/"}]}),
    ("GET", "/v1/recipe-details?recipe_id=5&store_id=1001&guests=4", None),
    ("GET", "/v2/menu/current", None),
]


@pytest.mark.parametrize("payload", [{"s": RETAILER_ID, "u": 5}, {"s": RETAILER_ID, "u": ["a"]}, [RETAILER_ID, "a"]])
def test_a_validly_signed_credential_naming_no_string_shopper_is_refused_everywhere(client, payload) -> None:
    """Signed with the app's own key, so only its payload is wrong: a 401 invalid credential on every browser
    route, never a 500 from a user id that is a number or a list (prerender/web/credentials.py)."""
    serializer = credentials.URLSafeTimedSerializer(
        [TEST_SECRET_KEY],
        salt=credentials.SALT,
        signer=credentials.SteppedTimestampSigner,
        signer_kwargs={"digest_method": hashlib.sha256},
    )
    browser = {**browser_headers(client), "authorization": f"Bearer {serializer.dumps(payload)}"}
    for method, path, body in BROWSER_ROUTES:
        answer = client.open(path, method=method, json=body, headers=browser)
        assert_refused(answer)
        assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"], path
        assert "does not name one shopper" in answer.get_json()["detail"], path


def test_an_expired_credential_is_refused(client, app, monkeypatch, victim: str) -> None:
    signer = CredentialSigner(keys=[TEST_SECRET_KEY], max_age=app.config["SHOPPER_CREDENTIAL_SECONDS"])
    long_ago = time.time() - app.config["SHOPPER_CREDENTIAL_SECONDS"] - 2 * credentials.TIMESTAMP_STEP
    monkeypatch.setattr(credentials.time, "time", lambda: long_ago)
    old = signer.issue(Shopper(supplier_id=RETAILER_ID, user_id=victim))
    monkeypatch.undo()
    answer = client.get(
        "/v1/basket?store_id=1001", headers={**browser_headers(client), "authorization": f"Bearer {old}"}
    )
    assert_refused(answer)
    assert "expired" in answer.get_json()["detail"]


def test_a_credential_from_a_rotated_out_key_is_refused_and_a_kept_one_still_works(client, app, victim: str) -> None:
    old_signer = CredentialSigner(keys=[TEST_SECRET_KEY], max_age=3600)
    credential = old_signer.issue(Shopper(supplier_id=RETAILER_ID, user_id=victim))
    browser = {**browser_headers(client), "authorization": f"Bearer {credential}"}
    assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 200
    # Rotation: a new key signs, the old one still verifies...
    app.config["SECRET_KEYS"] = [TEST_SECRET_KEY, "the-next-signing-key-" + "n" * 32]
    credentials.init_credentials(app)
    assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 200
    # ...until it is removed.
    app.config["SECRET_KEYS"] = ["the-next-signing-key-" + "n" * 32]
    credentials.init_credentials(app)
    assert_refused(client.get("/v1/basket?store_id=1001", headers=browser))


# --- 2. baskets are separated by supplier ---------------------------------------------------------------


def test_the_same_user_at_two_suppliers_has_two_baskets(client, victim: str) -> None:
    at_retailer = browser_headers(client, user=victim, token=RETAILER)
    at_nopers = browser_headers(client, user=victim, token=NOPERS)
    assert client.post("/v1/basket/recipes", json=ADD, headers=at_retailer).status_code == 200
    assert basket_count(client, at_nopers) == 0
    assert basket_count(client, at_retailer) == 1


def test_a_credential_is_only_issued_to_a_known_supplier(client) -> None:
    for token in (None, "not-a-supplier-token"):
        answer = client.get("/v2/svc-window-bootstrap", headers=headers(token=token))
        assert answer.status_code == 200
        assert BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-shopper") is None
        assert answer.headers["Cache-Control"].startswith("public")


# --- 3. any logged-in user could take any anonymous basket --------------------------------------------


def anonymous_basket(client, authless: str) -> dict[str, str]:
    visitor = browser_headers(client, user=None, authless=authless)
    assert client.post("/v1/basket/recipes", json=ADD, headers=visitor).status_code == 200
    return visitor


def test_knowing_an_authless_id_does_not_let_a_user_take_its_basket(client, victim: str) -> None:
    authless = f"{victim}-anonymous"
    visitor = anonymous_basket(client, authless)
    thief = browser_headers(client, user="basket-thief")
    query = f"/v1/basket/merge-authless-basket?authless_id={authless}&store_id=1001"
    assert_refused(client.get(query, headers=thief))
    assert_refused(client.get(query, headers={**thief, "authless-credential": "made.up.credential"}))
    # A bare claim of the user, even with the supplier's token guessed wrong, proves nothing either.
    assert_refused(client.get(query, headers=headers(user="basket-thief", token="not-a-supplier-token")))
    assert basket_count(client, visitor) == 1


def test_an_authless_credential_of_another_visitor_or_supplier_is_no_proof(client, victim: str) -> None:
    authless = f"{victim}-anonymous"
    anonymous_basket(client, authless)
    user = browser_headers(client, user=victim)
    query = f"/v1/basket/merge-authless-basket?authless_id={authless}&store_id=1001"
    other_visitor = shopper_credential(client, user=None, authless=f"{victim}-someone-else")
    assert client.get(query, headers={**user, "authless-credential": other_visitor}).status_code == 403
    other_supplier = shopper_credential(client, user=None, authless=authless, token=NOPERS)
    assert_refused(client.get(query, headers={**user, "authless-credential": other_supplier}))
    a_user = shopper_credential(client, user="someone")
    assert_refused(client.get(query, headers={**user, "authless-credential": a_user}))


def test_a_browser_with_both_credentials_merges(client, victim: str) -> None:
    authless = f"{victim}-anonymous"
    visitor = anonymous_basket(client, authless)
    user = browser_headers(client, user=victim)
    proof = shopper_credential(client, user=None, authless=authless)
    merged = client.get(
        f"/v1/basket/merge-authless-basket?authless_id={authless}&store_id=1001",
        headers={**user, "authless-credential": proof},
    )
    assert merged.status_code == 200, merged.get_json()
    assert merged.get_json()["basket"]["recipe_count"] == 1
    assert basket_count(client, user) == 1 and basket_count(client, visitor) == 0


def test_the_customers_server_merges_with_its_supplier_token(client, victim: str) -> None:
    authless = f"{victim}-anonymous"
    visitor = anonymous_basket(client, authless)
    merged = client.get(
        f"/v1/basket/merge-authless-basket?authless_id={authless}&store_id=1001", headers=headers(user=victim)
    )
    assert merged.status_code == 200, merged.get_json()
    assert merged.headers["Cache-Control"] == "no-store"
    assert basket_count(client, browser_headers(client, user=victim)) == 1 and basket_count(client, visitor) == 0


def test_a_server_merge_for_an_authless_identity_is_forbidden(client, victim: str) -> None:
    answer = client.get(
        f"/v1/basket/merge-authless-basket?authless_id={victim}-x&store_id=1001", headers=headers(user=None)
    )
    assert answer.status_code == 403 and answer.mimetype == "application/problem+json"


# --- where credentials are, and are not ---------------------------------------------------------------


def credential_elements(html: str) -> list:
    return BeautifulSoup(html, "html.parser").find_all("svc-shopper")


def test_a_private_card_brings_its_shoppers_credential_and_a_public_card_none(client) -> None:
    private = client.get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=headers(user="card-reader"))
    assert private.headers["Cache-Control"].startswith("private")
    [element] = credential_elements(private.get_data(as_text=True))
    assert element["kind"] == "user" and element["shopper-id"] == "card-reader" and element.has_attr("hidden")
    browser = {"authorization": f"Bearer {element['credential']}", "language-id": "fr", "session-id": "s"}
    assert client.get("/v1/basket?store_id=1001", headers=browser).status_code == 200

    public = client.get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=headers(user="card-reader", token=NOPERS))
    assert public.headers["Cache-Control"].startswith("public")
    assert credential_elements(public.get_data(as_text=True)) == []


@pytest.mark.usefixtures("one_credential_step")
def test_the_credential_of_a_card_is_stable_so_its_etag_revalidates(client) -> None:
    first = client.get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=headers(user="etag-reader"))
    again = client.get(
        "/v1/recipe-card?recipe_id=5&store_id=1001",
        headers={**headers(user="etag-reader"), "If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304
    other = client.get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=headers(user="another-reader"))
    assert other.headers["ETag"] != first.headers["ETag"]


def test_multiple_cards_each_bring_the_credential(client) -> None:
    body = {
        "contexts": [
            {"productIds": ["100001", "100002"], "position": 1},
            {"productIds": ["100010", "100011"], "position": 2},
        ]
    }
    answer = client.post("/v1/recipe-card/multiple?store_id=1001", json=body, headers=headers(user="multi-reader"))
    cards = [card["html"] for card in answer.get_json()["data"] if card["html"]]
    assert cards
    for html in cards:
        [element] = credential_elements(html)
        assert element["shopper-id"] == "multi-reader"


def test_an_authless_visitor_gets_an_authless_credential(client) -> None:
    visitor = browser_headers(client, user=None, authless="anonymous-liker")
    assert client.get("/v1/basket?store_id=1001", headers=visitor).status_code == 200
    # Likes are for logged-in users: the credential of a visitor does not make one.
    assert client.put("/v1/likes/5", headers=visitor).status_code == 403


def test_a_head_request_does_not_merge(client, victim: str) -> None:
    authless = f"{victim}-anonymous"
    visitor = anonymous_basket(client, authless)
    answer = client.head(
        f"/v1/basket/merge-authless-basket?authless_id={authless}&store_id=1001", headers=headers(user=victim)
    )
    assert answer.status_code == 405
    assert allowed(answer) == {"GET", "OPTIONS"}
    assert basket_count(client, visitor) == 1

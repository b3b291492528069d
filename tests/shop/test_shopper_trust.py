"""The shop under prerender's trust model (docs/security.md), against the live seeded stack (tests/live.py):

- the supplier token stays on the shop's server: no page, context object or attribute holds it;
- every page that loads the SDK carries the credential prerender issued for its visitor (`<svc-shopper>`), and
  that credential works on prerender's browser routes from anywhere (here, `requests`);
- a new visitor's authless id is issued by prerender (the shop's own only when prerender cannot);
- what a visitor gathered while logged out (the recipe basket, the shop's cart) is the user's after login.

Each test logs in its own user (DEMO_USER_ID): the live stack lasts the session, and baskets stay.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
from bs4 import BeautifulSoup, Tag
from flask import Flask
from flask.testing import FlaskClient

from examples.shop.services import get_services
from examples.shop.visitor import AUTHLESS_COOKIE, ONE_YEAR, SESSION_COOKIE, STORE_COOKIE, USER_COOKIE
from tests.demo_sites import shop_cookie, shop_cookie_of, shop_cookies

from .conftest import soup_of, static_url

STORE = "1001"
ADD = {"recipe_id": "5", "guests": 4, "store_id": STORE}
# The pages of the shop that load prerender's SDK (the shelf through its cards, the planner's page and the recipe
# section's catalog pages through their fragments, the others through the bootstrap): all of them, cards or not.
SDK_PAGES = (
    "/",
    "/idees",
    "/idees/recherche?search=tarte",
    "/idees/mon-espace",
    "/idees/panier",
    "/idees/fiches",
    "/injection",
    "/cart",
    "/planner/current-menu",
)
# prerender's authless ids: 32 random bytes, URL-safe base64 without padding.
ISSUED_AUTHLESS_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")
_users = itertools.count()


@pytest.fixture
def user_id() -> str:
    return f"shop-trust-{next(_users)}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def shop(make_shop: Callable[..., Flask], user_id: str) -> Flask:
    return make_shop(DEMO_USER_ID=user_id)


@pytest.fixture
def client(shop: Flask) -> FlaskClient:
    return shop.test_client()


# ------------------------------------------------------------------------------------------------ helpers


def loads_the_sdk(soup: BeautifulSoup) -> bool:
    return any("/sdk/svc.js" in script.get("src", "") for script in soup.find_all("script"))


def page_credential(soup: BeautifulSoup) -> Tag:
    """The page's one credential: its `<svc-shopper>` elements (one per private card, or the bootstrap's)
    all name the same shopper with the same credential. The element itself."""
    elements = soup.find_all("svc-shopper")
    assert elements, "the page loads the SDK but carries no credential"
    shoppers = {(e.get("kind"), e.get("shopper-id")) for e in elements}
    assert len(shoppers) == 1, f"credentials of several shoppers: {shoppers}"
    credentials = {e.get("credential") for e in elements}
    # Fragments fetched across one of prerender's 10-minute time steps may hold two credentials of the shopper.
    assert 1 <= len(credentials) <= 2 and all(credentials)
    for element in elements:
        assert element.has_attr("hidden") and element.get("expires-at", "").isdigit()
    return elements[0]


def browser_headers(credential: str, client: FlaskClient, language: str = "fr") -> dict[str, str]:
    """What prerender's SDK sends on the browser routes (never a supplier-token)."""
    return {
        "Authorization": f"Bearer {credential}",
        "language-id": language,
        "session-id": shop_cookie_of(client, SESSION_COOKIE) or "s",
    }


def basket(prerender_url: str, credential: str, client: FlaskClient) -> dict[str, Any]:
    answer = requests.get(
        f"{prerender_url}/v1/basket",
        params={"store_id": STORE},
        headers=browser_headers(credential, client),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def recipe_ids(found: dict[str, Any]) -> set[str]:
    return {str(recipe["recipe_id"]) for recipe in found["recipes"]}


def strings_of(value: Any) -> Iterator[str]:
    """Every key and string of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)
    elif isinstance(value, str):
        yield value


def assert_no_token(html: str, token: str) -> None:
    """Neither in the text, nor a script, nor the page's JSON context, nor any attribute."""
    assert token not in html
    soup = BeautifulSoup(html, "html5lib")
    for script in soup.find_all("script"):
        assert token not in (script.string or "")
    context = soup.find("script", id="shop-context")
    if context is not None:
        values = json.loads(context.string or "")
        assert "supplierToken" not in values
        assert all(token not in text and "supplier" not in text.lower() for text in strings_of(values))
    for tag in soup.find_all(True):
        for name, value in tag.attrs.items():
            assert token not in name
            assert token not in (" ".join(value) if isinstance(value, list) else str(value))


# ------------------------------------------------------------------------------------- (a) no token in pages


def test_no_page_of_the_shop_holds_the_supplier_token(shop: Flask, client: FlaskClient, prerender_url: str):
    token = shop.config["SUPPLIER_TOKEN"]
    visits = [*SDK_PAGES, "/injection/card?recipe_id=5", "/cart/lines", static_url("svc-setup.js")]

    def visit_all() -> None:
        for path in visits:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            if response.mimetype == "text/html":
                assert_no_token(response.get_data(as_text=True), token)
            else:
                assert token not in response.get_data(as_text=True)
            assert token not in str(response.headers)

    visit_all()  # a new visitor
    client.post("/preferences", data={"store_id": STORE, "language": "en"})
    visit_all()
    client.post("/connexion")
    visit_all()
    client.post("/deconnexion")
    visit_all()
    for script in ("cart-page.js", "ideas.js", "injection.js", "shop.js", "planner-host.js"):
        assert token not in client.get(static_url(script)).get_data(as_text=True)


def test_the_catalogue_down_page_holds_no_token(make_shop: Callable[..., Flask], unreachable_url: str):
    shop = make_shop(COREAPI_URL=unreachable_url)
    response = shop.test_client().get("/")
    assert response.status_code == 503
    assert_no_token(response.get_data(as_text=True), shop.config["SUPPLIER_TOKEN"])


# ------------------------------------------------------------- (b) every SDK page has the visitor's credential


def test_every_sdk_page_carries_one_working_credential_of_its_visitor(
    client: FlaskClient, user_id: str, prerender_url: str
):
    def check_pages(kind: str, shopper: str) -> None:
        for path in SDK_PAGES:
            soup = soup_of(client.get(path))
            assert loads_the_sdk(soup), f"{path} does not load the SDK"
            element = page_credential(soup)
            assert (element["kind"], element["shopper-id"]) == (kind, shopper), path
            context = json.loads(soup.find("script", id="shop-context").string)
            assert context["user"] == {"kind": kind, "id": shopper}  # what svc-setup.js loads, the same
            found = basket(prerender_url, element["credential"], client)
            assert found["store_id"] in (None, STORE)

    client.get("/")
    check_pages("authless", shop_cookie_of(client, AUTHLESS_COOKIE))
    client.post("/preferences", data={"store_id": STORE})
    check_pages("authless", shop_cookie_of(client, AUTHLESS_COOKIE))
    client.post("/connexion")
    check_pages("user", user_id)
    client.post("/deconnexion")
    check_pages("authless", shop_cookie_of(client, AUTHLESS_COOKIE))


def test_a_card_inserted_at_runtime_brings_the_visitors_credential(client: FlaskClient, prerender_url: str):
    client.get("/injection")
    html = client.get("/injection/card?recipe_id=5").get_data(as_text=True)
    element = page_credential(BeautifulSoup(html, "html5lib"))
    assert (element["kind"], element["shopper-id"]) == ("authless", shop_cookie_of(client, AUTHLESS_COOKIE))
    basket(prerender_url, element["credential"], client)


# ---------------------------------------------------------------- (c) authless ids issued by prerender


def test_a_new_visitors_authless_id_comes_from_prerender(
    shop: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    with shop.app_context():
        prerender = get_services().prerender
    issued: list[str | None] = []
    generate = prerender.generate_authless_id

    def recording(**kwargs: Any) -> str | None:
        issued.append(generate(**kwargs))
        return issued[-1]

    monkeypatch.setattr(prerender, "generate_authless_id", recording)
    soup = soup_of(client.get("/"))
    authless_id = shop_cookie_of(client, AUTHLESS_COOKIE)
    assert issued == [authless_id]  # once for the page (the header's cart counter reads the same visitor)
    assert ISSUED_AUTHLESS_ID.match(authless_id)
    assert page_credential(soup)["shopper-id"] == authless_id
    assert not [r for r in caplog.records if r.name == "examples.shop.visitor" and r.levelno >= logging.WARNING]
    # it stays; another new visitor gets another one
    client.get("/idees")
    assert shop_cookie_of(client, AUTHLESS_COOKIE) == authless_id and len(issued) == 1
    other = shop.test_client()
    other.get("/cart/lines")
    assert len(issued) == 2 and issued[1] != authless_id and shop_cookie_of(other, AUTHLESS_COOKIE) == issued[1]


def test_after_logout_a_new_authless_id_from_prerender(client: FlaskClient):
    client.get("/")
    before = shop_cookie_of(client, AUTHLESS_COOKIE)
    client.post("/connexion")
    assert shop_cookie_of(client, AUTHLESS_COOKIE) == before
    client.post("/deconnexion")
    after = shop_cookie_of(client, AUTHLESS_COOKIE)
    assert shop_cookie_of(client, USER_COOKIE) is None
    assert after != before and ISSUED_AUTHLESS_ID.match(after)
    # logging out again (a stale page) changes nothing
    client.post("/deconnexion")
    assert shop_cookie_of(client, AUTHLESS_COOKIE) == after


def forged_cookie(forged: str, name: str, other: str, value: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A cookie `name` for `value` that the shop did not make (`other`: another of its identity cookies)."""
    if forged == "unsigned":
        return value
    if forged == "another cookie's signature":
        return shop_cookie(other, value)
    if forged == "another key":
        return shop_cookies("another-key").sign(name, value)
    with monkeypatch.context() as then:  # "expired": the shop's own, signed longer ago than the cookie lives
        signed_at = time.time() - ONE_YEAR - 60
        then.setattr(time, "time", lambda: signed_at)
        return shop_cookie(name, value)


FORGERIES = ["unsigned", "another cookie's signature", "another key", "expired"]


@pytest.mark.parametrize("forged", FORGERIES)
def test_an_identity_cookie_the_shop_did_not_sign_is_nobody(
    client: FlaskClient, forged: str, monkeypatch: pytest.MonkeyPatch
):
    """Any script of the page reads its shopper's id (the credential's payload, `<svc-shopper>`): a user cookie
    holding an id without the shop's signature of it, for that cookie and within its year, logs nobody in, and the
    shop deletes it."""
    user_id = "demo-user"
    client.set_cookie(USER_COOKIE, forged_cookie(forged, USER_COOKIE, AUTHLESS_COOKIE, user_id, monkeypatch))
    shopper = page_credential(soup_of(client.get("/cart")))
    assert shopper["kind"] == "authless" and shopper["shopper-id"] != user_id
    assert client.get_cookie(USER_COOKIE) is None
    client.set_cookie(USER_COOKIE, shop_cookie(USER_COOKIE, user_id))  # the shop's own: logged in
    shopper = page_credential(soup_of(client.get("/cart")))
    assert (shopper["kind"], shopper["shopper-id"]) == ("user", user_id)


@pytest.mark.parametrize("forged", FORGERIES)
def test_an_authless_cookie_the_shop_did_not_sign_is_a_new_visitor(
    client: FlaskClient, forged: str, monkeypatch: pytest.MonkeyPatch
):
    """The logged-out visitor's id is in the page too: a cookie holding another visitor's id, without the shop's
    signature of it, is a new visitor (an id issued by prerender), never the one whose id it names."""
    client.get("/")
    someone = shop_cookie_of(client, AUTHLESS_COOKIE)
    assert someone
    stranger = client.application.test_client()
    stranger.set_cookie(AUTHLESS_COOKIE, forged_cookie(forged, AUTHLESS_COOKIE, USER_COOKIE, someone, monkeypatch))
    shopper = page_credential(soup_of(stranger.get("/cart")))
    assert shopper["kind"] == "authless" and ISSUED_AUTHLESS_ID.match(shopper["shopper-id"])
    assert shopper["shopper-id"] != someone and shop_cookie_of(stranger, AUTHLESS_COOKIE) == shopper["shopper-id"]


@pytest.mark.parametrize("broken", ["unreachable", "wrong token"])
def test_the_shop_makes_its_own_authless_id_when_prerender_cannot(
    broken: str, make_shop: Callable[..., Flask], unreachable_url: str, caplog: pytest.LogCaptureFixture
):
    config = {"PRERENDER_URL": unreachable_url} if broken == "unreachable" else {"SUPPLIER_TOKEN": "not-a-token"}
    client = make_shop(**config).test_client()
    response = client.get("/")
    assert response.status_code == 200
    authless_id = shop_cookie_of(client, AUTHLESS_COOKIE)
    assert authless_id.startswith("anon-") and not ISSUED_AUTHLESS_ID.match(authless_id)
    assert any(
        r.name == "examples.shop.visitor" and r.levelno == logging.WARNING and "no authless id" in r.getMessage()
        for r in caplog.records
    )
    client.get("/cart")
    assert shop_cookie_of(client, AUTHLESS_COOKIE) == authless_id  # kept, not asked for again


# ------------------------------------------------------------------ (d) the logged-out basket after login


def test_the_basket_built_while_logged_out_is_the_users_after_login(
    client: FlaskClient, user_id: str, prerender_url: str
):
    client.post("/preferences", data={"store_id": STORE})
    visitor = page_credential(soup_of(client.get("/idees")))
    assert visitor["kind"] == "authless"
    added = requests.post(
        f"{prerender_url}/v1/basket/recipes",
        json=ADD,
        headers=browser_headers(visitor["credential"], client),
        timeout=30,
    )
    assert added.status_code == 200, added.text
    # what the SDK's basketSync does with the answer: the products go into the shop's cart
    changes = added.json()["changes"]
    assert changes
    assert client.post("/cart/lines", json=changes).status_code == 200
    assert recipe_ids(basket(prerender_url, visitor["credential"], client)) == {"5"}

    assert client.post("/connexion", data={"next": "/cart"}).status_code == 303
    assert shop_cookie_of(client, USER_COOKIE) == user_id
    user = page_credential(soup_of(client.get("/cart")))
    assert (user["kind"], user["shopper-id"]) == ("user", user_id)
    merged = basket(prerender_url, user["credential"], client)
    assert recipe_ids(merged) == {"5"}
    assert basket(prerender_url, visitor["credential"], client)["recipe_count"] == 0

    # The shop's cart went along: it holds (at least) the merged basket's products, so the report of the
    # cart on the next page (retailerBasketChanged) leaves the merged recipe in place.
    cart = {line["id"]: line["quantity"] for line in client.get("/cart/lines").get_json()["lines"]}
    assert cart == {str(c["id"]): c["quantity"] for c in changes}
    held = {str(p["id"]): p["quantity"] for p in merged["products"]}
    assert all(cart.get(product, 0) >= quantity for product, quantity in held.items())

    # Logged out: a new visitor, whose basket and cart are empty; the user's stay the user's.
    client.post("/deconnexion")
    after = page_credential(soup_of(client.get("/cart")))
    assert after["kind"] == "authless" and after["shopper-id"] != visitor["shopper-id"]
    assert basket(prerender_url, after["credential"], client)["recipe_count"] == 0
    assert client.get("/cart/lines").get_json()["lines"] == []
    assert recipe_ids(basket(prerender_url, user["credential"], client)) == {"5"}


def test_the_visitors_order_history_and_preferences_are_the_users_after_login(
    client: FlaskClient, user_id: str, prerender_url: str
):
    """My space's history and the catalog's preferences of a visitor who bought and chose while logged out: after
    the first login they are the user's (the basket merge carries them)."""
    client.post("/preferences", data={"store_id": STORE})
    visitor = page_credential(soup_of(client.get("/idees")))
    hdrs = browser_headers(visitor["credential"], client)
    saved = requests.put(
        f"{prerender_url}/v2/preferences", json={"guests": 2, "diets": ["vegetarien"]}, headers=hdrs, timeout=30
    )
    assert saved.status_code == 200, saved.text
    added = requests.post(f"{prerender_url}/v1/basket/recipes", json=ADD, headers=hdrs, timeout=30)
    assert added.status_code == 200, added.text
    total = added.json()["basket"]["total"]
    paid = requests.post(
        f"{prerender_url}/v1/basket/confirm",
        json={"store_id": STORE, "total": total, "order_id": f"o-{user_id}"},
        headers=hdrs,
        timeout=30,
    )
    assert paid.status_code == 200 and paid.json()["confirmed"] is True, paid.text

    def history_orders() -> set[str]:
        soup = soup_of(client.get("/idees/mon-espace?tab=history"))
        return {str(item["data-order-id"]) for item in soup.select(".svc-my-space__history-item")}

    orders = history_orders()
    assert len(orders) == 1
    assert client.post("/connexion").status_code == 303
    user = page_credential(soup_of(client.get("/idees")))
    assert user["kind"] == "user"
    assert history_orders() == orders
    preferences = requests.get(
        f"{prerender_url}/v2/preferences", headers=browser_headers(user["credential"], client), timeout=30
    )
    assert (preferences.json()["guests"], preferences.json()["diets"]) == (2, ["vegetarien"])


def test_without_a_store_the_login_moves_the_cart_only(client: FlaskClient, prerender_url: str):
    client.get("/")
    client.post("/cart/lines", json=[{"id": "100001", "quantity": 2}])
    assert client.post("/connexion").status_code == 303
    assert client.get("/cart/lines").get_json()["lines"] == [{"id": "100001", "quantity": 2}]


def test_a_failed_merge_does_not_break_the_login(
    make_shop: Callable[..., Flask], unreachable_url: str, user_id: str, caplog: pytest.LogCaptureFixture
):
    client = make_shop(PRERENDER_URL=unreachable_url, DEMO_USER_ID=user_id).test_client()
    client.set_cookie(STORE_COOKIE, STORE)
    client.get("/")
    client.post("/cart/lines", json=[{"id": "100001", "quantity": 1}])
    response = client.post("/connexion")
    assert response.status_code == 303
    assert shop_cookie_of(client, USER_COOKIE) == user_id
    assert any("not merged" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert client.get("/cart/lines").get_json()["lines"] == [{"id": "100001", "quantity": 1}]


def menu_of(prerender_url: str, credential: str, client: FlaskClient) -> dict[str, Any]:
    answer = requests.get(
        f"{prerender_url}/v2/menu/current?from=scratch", headers=browser_headers(credential, client), timeout=30
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_menu_built_while_logged_out_replaces_the_users_at_login(
    client: FlaskClient, user_id: str, prerender_url: str
):
    visitor = page_credential(soup_of(client.get("/idees")))
    menu_of(prerender_url, visitor["credential"], client)
    added = requests.post(
        f"{prerender_url}/v2/menu/current/recipes",
        json={"recipe_id": "3"},
        headers=browser_headers(visitor["credential"], client),
        timeout=30,
    )
    assert added.status_code == 200, added.text

    assert client.post("/connexion").status_code == 303
    user = page_credential(soup_of(client.get("/idees")))
    assert user["kind"] == "user"
    assert [recipe["id"] for recipe in menu_of(prerender_url, user["credential"], client)["recipes"]] == ["3"]


def test_a_login_without_any_menu_logs_no_error(client: FlaskClient, caplog: pytest.LogCaptureFixture):
    client.get("/idees")
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        assert client.post("/connexion").status_code == 303
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING and "menu" in r.getMessage()]
    assert not errors, [r.getMessage() for r in errors]  # no menu to merge is no failure, for the shop nor prerender

"""The store picker's route as the page's script calls it (`POST /preferences` with `Accept: application/json`):
how static/svc-setup.js moves the visitor to the store a basket transferred from a recipe site was chosen for
(the SDK's force-pos callback). Against the live seeded stack (the catalog says which stores exist)."""

from __future__ import annotations

import json
from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient

from examples.shop.visitor import STORE_COOKIE

from .conftest import soup_of

JSON = {"Accept": "application/json"}


def store_of(client: FlaskClient) -> str | None:
    cookie = client.get_cookie(STORE_COOKIE)
    return cookie.value if cookie is not None else None


def test_a_known_store_is_kept_and_said(shop_client: FlaskClient):
    response = shop_client.post("/preferences", data={"store_id": "1002"}, headers=JSON)
    assert response.status_code == 200
    assert response.get_json() == {"storeId": "1002"}
    assert response.headers["Cache-Control"] == "no-store"
    assert store_of(shop_client) == "1002"
    # the next page is at that store
    soup = soup_of(shop_client.get("/idees"))
    assert soup.select_one("#store-picker option[selected]")["value"] == "1002"


def test_moving_from_a_store_to_another(shop_client: FlaskClient):
    shop_client.post("/preferences", data={"store_id": "1001"})
    response = shop_client.post("/preferences", data={"store_id": "1002"}, headers=JSON)
    assert response.get_json() == {"storeId": "1002"}
    assert store_of(shop_client) == "1002"


def test_an_unknown_or_malformed_store_is_refused_and_nothing_changes(shop_client: FlaskClient):
    shop_client.post("/preferences", data={"store_id": "1001"})
    for refused in ("999999", "abc", "1001; x", "1" * 13):
        response = shop_client.post("/preferences", data={"store_id": refused}, headers=JSON)
        assert response.status_code == 422, refused
        assert response.get_json() == {"storeId": "1001"}
        assert response.headers.getlist("Set-Cookie") == []
    assert store_of(shop_client) == "1001"


def test_no_store_clears_it(shop_client: FlaskClient):
    shop_client.post("/preferences", data={"store_id": "1001"})
    response = shop_client.post("/preferences", data={"store_id": ""}, headers=JSON)
    assert response.status_code == 200
    assert response.get_json() == {"storeId": None}
    assert store_of(shop_client) is None


def test_the_form_still_goes_back_to_its_page(shop_client: FlaskClient):
    """A browser's form (it accepts HTML) and a client that says nothing get the redirection, as before."""
    browser_accept = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    response = shop_client.post("/preferences", data={"store_id": "1002", "next": "/idees"}, headers=browser_accept)
    assert response.status_code == 303
    assert response.headers["Location"] == "/idees"
    assert shop_client.post("/preferences", data={"store_id": "999999"}).status_code == 303
    assert store_of(shop_client) == "1002"


def test_the_page_context_says_where_to_move_the_store(make_shop: Callable[..., Flask]):
    soup = soup_of(make_shop().test_client().get("/idees"))
    context = json.loads(soup.select_one("script#shop-context").string)
    assert context["preferencesUrl"] == "/preferences"

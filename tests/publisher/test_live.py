"""The blog against the live seeded stack (tests/live.py: on both stacks): prerender issues its readers' authless
ids and renders the no-supplier add-to-cart button of its recipes, found by the blog's own ids (the recipes'
external ids in coreapi's seed).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from examples.publisher.reader import AUTHLESS_COOKIE, SESSION_COOKIE
from examples.publisher.recipes import BY_ID
from tests.demo_sites import blog_id

from .conftest import soup_of, static_url

ELEMENT = "svc-no-supplier-add-to-cart-cta"
QUICHE = "pub-quiche-lorraine"
TOKEN = "demo-publisher-token"


@pytest.fixture(scope="session")
def button_route(prerender_url: str) -> str:
    """The button's URL on the live prerender, checked to answer the blog's recipe."""
    session = {"supplier-token": TOKEN, "language-id": "fr", "session-id": "live-probe"}
    issued = requests.get(f"{prerender_url}/v1/generate-authless-token", headers=session, timeout=10)
    issued.raise_for_status()
    url = f"{prerender_url}/v1/no-supplier-add-to-cart-cta"
    probe = requests.get(
        url,
        params={"recipe_id": QUICHE, "guests": 6},
        headers={**session, "authless-id": issued.json()["authless_id"]},
        timeout=10,
    )
    assert probe.status_code == 200, probe.text
    assert ELEMENT in probe.text
    return url


@pytest.fixture
def client(make_live_blog: Callable[..., Flask]) -> FlaskClient:
    return make_live_blog().test_client()


def test_a_recipe_page_carries_the_button_once_for_its_servings(button_route: str, client: FlaskClient):
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    elements = soup.find_all(ELEMENT)
    assert len(elements) == 1, f"{len(elements)} buttons"
    assert elements[0]["guests"] == str(BY_ID[QUICHE].servings)
    assert elements[0].find_parent(class_="shopping") is not None
    # prerender's module scripts come with it, and its stylesheets are in <head>
    assert any("/sdk/svc.js" in script.get("src", "") for script in soup.find_all("script"))
    hrefs = [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]
    assert any(href.endswith("/base.css") for href in hrefs)
    assert any(href.endswith("/recipe-card.css") for href in hrefs)
    assert hrefs[-1] == static_url("publisher.css")


def test_the_button_acts_for_the_reader_of_the_cookie(button_route: str, client: FlaskClient):
    """The fragment's credential names the authless id the blog sent (the header `authless-id`), the one kept
    in the reader's cookie, and the page's context tells the SDK the same."""
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    authless_id = blog_id(AUTHLESS_COOKIE, client.get_cookie(AUTHLESS_COOKIE).value)
    shoppers = soup.find_all("svc-shopper")
    assert shoppers, "the button carries no credential"
    assert {(s.get("kind"), s.get("shopper-id")) for s in shoppers} == {("authless", authless_id)}


def test_every_recipe_of_the_catalog_has_its_button(button_route: str, client: FlaskClient):
    for recipe in BY_ID.values():
        if recipe.id == "pub-gateau-basque":
            continue
        soup = soup_of(client.get(f"/recettes/{recipe.id}"))
        elements = soup.find_all(ELEMENT)
        assert len(elements) == 1, recipe.id
        assert elements[0]["guests"] == str(recipe.servings)


def test_the_recipe_prerender_does_not_know_renders_without_the_button(button_route: str, client: FlaskClient):
    soup = soup_of(client.get("/recettes/pub-gateau-basque"))
    assert soup.find(ELEMENT) is None
    assert soup.select_one("h1").get_text(strip=True) == "Gâteau basque à la crème"
    assert soup.select(".method__steps li")


def test_the_reader_gets_an_authless_id_from_prerender_once(client: FlaskClient):
    first = client.get("/")
    assert first.status_code == 200
    authless = client.get_cookie(AUTHLESS_COOKIE)
    session = client.get_cookie(SESSION_COOKIE)
    assert authless is not None and session is not None
    assert len(blog_id(AUTHLESS_COOKIE, authless.value) or "") == 43  # prerender's: 32 random bytes, URL-safe base64
    for path in (f"/recettes/{QUICHE}", "/recettes", "/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers.getlist("Set-Cookie") == []
    assert client.get_cookie(AUTHLESS_COOKIE).value == authless.value
    assert client.get_cookie(SESSION_COOKIE).value == session.value


def test_prerender_down_renders_the_recipe_without_the_button(
    make_live_blog: Callable[..., Flask], unreachable_url: str
):
    client = make_live_blog(PRERENDER_URL=unreachable_url).test_client()
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    assert soup.find(ELEMENT) is None
    assert soup.select_one("h1").get_text(strip=True) == "Quiche lorraine"
    assert client.get_cookie(AUTHLESS_COOKIE) is None


def test_a_wrong_supplier_token_renders_the_recipe_without_the_button(make_live_blog: Callable[..., Flask]):
    """prerender refuses to issue an authless id without a valid token (401): no identity, no button."""
    client = make_live_blog(SUPPLIER_TOKEN="not-a-token").test_client()
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    assert soup.find(ELEMENT) is None
    assert client.get_cookie(AUTHLESS_COOKIE) is None

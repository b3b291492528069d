"""Likes through prerender, and the v2 SDK bootstrap fragment."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .conftest import browser_headers, headers


def test_like_then_unlike(client):
    user = browser_headers(client, user="likes-user")
    liked = client.put("/v1/likes/7", headers=user)
    assert liked.status_code == 204
    assert client.get("/v1/likes?recipe_ids=7,8", headers=user).get_json() == {"data": ["7"]}
    unliked = client.delete("/v1/likes/7", headers=user)
    assert unliked.status_code == 204
    # No content, so no type (Flask's default would say text/html).
    assert "Content-Type" not in liked.headers and "Content-Type" not in unliked.headers
    assert client.get("/v1/likes?recipe_ids=7,8", headers=user).get_json() == {"data": []}


def test_likes_are_for_connected_users(client):
    anonymous = browser_headers(client, user=None)
    response = client.put("/v1/likes/7", headers=anonymous)
    assert response.status_code == 403 and response.mimetype == "application/problem+json"
    # The route takes the browser's Bearer credential: the problem says what the caller must do, not which
    # header a server would send.
    detail = response.get_json()["detail"]
    assert "logged-out visitor" in detail and "Log the shopper in" in detail
    assert not detail.startswith("Likes are for connected users (authorization")
    assert client.get("/v1/likes?recipe_ids=7", headers=anonymous).get_json() == {"data": []}


def test_unknown_recipe_like_is_a_404(client):
    response = client.put("/v1/likes/999999", headers=browser_headers(client, user="likes-user"))
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_a_recipe_id_with_a_trailing_newline_likes_nothing(client):
    """`$` of a Python pattern matches before a final newline: `5%0A` was liked as recipe 5 (204)."""
    user = browser_headers(client, user="likes-newline-user")
    response = client.put("/v1/likes/5%0A", headers=user)
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert "recipe_id" in response.get_json()["errors"]["path"]
    assert client.get("/v1/likes?recipe_ids=5", headers=user).get_json() == {"data": []}


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_bootstrap_loads_only_the_sdk_in_v2(client, token):
    response = client.get("/v2/svc-window-bootstrap", headers=headers(token=token))
    assert response.status_code == 200 and response.mimetype == "text/html"
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    scripts = soup.find_all("script")
    assert len(scripts) == 1 and scripts[0]["type"] == "module" and "/sdk/svc.js" in scripts[0]["src"]
    assert not soup.body.find_all(lambda tag: tag.name != "script")


def test_bootstrap_for_a_known_supplier_adds_the_shoppers_credential(client):
    response = client.get("/v2/svc-window-bootstrap", headers=headers(user="bootstrap-user"))
    assert response.status_code == 200 and response.mimetype == "text/html"
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    scripts = soup.find_all("script")
    assert len(scripts) == 1 and scripts[0]["type"] == "module" and "/sdk/svc.js" in scripts[0]["src"]
    [element] = soup.body.find_all(lambda tag: tag.name != "script")
    assert element.name == "svc-shopper" and element.has_attr("hidden")
    assert element["kind"] == "user" and element["shopper-id"] == "bootstrap-user" and element["credential"]


def test_bootstrap_is_not_in_v1(client):
    assert client.get("/v1/svc-window-bootstrap", headers=headers()).status_code == 404


def test_bootstrap_needs_the_headers(client):
    assert client.get("/v2/svc-window-bootstrap").status_code == 400


def test_likes_work_with_personalization_disabled(client):
    """With personalization disabled the heart is rendered client-side; it must still like."""
    user = browser_headers(client, user="likes-user-nopers", token="demo-nopers-token")
    assert client.put("/v1/likes/7", headers=user).status_code == 204
    assert client.get("/v1/likes?recipe_ids=7", headers=user).get_json() == {"data": ["7"]}


def test_likes_are_per_supplier(client):
    retailer = browser_headers(client, user="shared-1")
    publisher = browser_headers(client, user="shared-1", token="demo-publisher-token")
    assert client.put("/v1/likes/9", headers=retailer).status_code == 204
    assert client.get("/v1/likes?recipe_ids=9", headers=publisher).get_json() == {"data": []}

"""Likes through prerender, and the v2 SDK bootstrap fragment."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .conftest import headers


def test_like_then_unlike(client):
    user = headers(user="likes-user")
    assert client.put("/v1/likes/7", headers=user).status_code == 204
    assert client.get("/v1/likes?recipe_ids=7,8", headers=user).get_json() == {"data": ["7"]}
    assert client.delete("/v1/likes/7", headers=user).status_code == 204
    assert client.get("/v1/likes?recipe_ids=7,8", headers=user).get_json() == {"data": []}


def test_likes_are_for_connected_users(client):
    anonymous = headers(user=None)
    response = client.put("/v1/likes/7", headers=anonymous)
    assert response.status_code == 403 and response.mimetype == "application/problem+json"
    assert client.get("/v1/likes?recipe_ids=7", headers=anonymous).get_json() == {"data": []}


def test_unknown_recipe_like_is_a_404(client):
    response = client.put("/v1/likes/999999", headers=headers(user="likes-user"))
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_bootstrap_loads_only_the_sdk_in_v2(client):
    response = client.get("/v2/svc-window-bootstrap", headers=headers())
    assert response.status_code == 200 and response.mimetype == "text/html"
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    scripts = soup.find_all("script")
    assert len(scripts) == 1 and scripts[0]["type"] == "module" and "/sdk/svc.js" in scripts[0]["src"]
    assert not soup.body.find_all(lambda tag: tag.name != "script")


def test_bootstrap_is_not_in_v1(client):
    assert client.get("/v1/svc-window-bootstrap", headers=headers()).status_code == 404


def test_bootstrap_needs_the_headers(client):
    assert client.get("/v2/svc-window-bootstrap").status_code == 400


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_no_likes_without_a_known_supplier(client, token):
    user = headers(user="likes-user-nosupplier", token=token)
    response = client.put("/v1/likes/7", headers=user)
    assert response.status_code == 403 and response.mimetype == "application/problem+json"
    assert client.get("/v1/likes?recipe_ids=7", headers=user).get_json() == {"data": []}


def test_likes_work_with_personalization_disabled(client):
    """With personalization disabled the heart is rendered client-side; it must still like."""
    user = headers(user="likes-user-nopers", token="demo-nopers-token")
    assert client.put("/v1/likes/7", headers=user).status_code == 204
    assert client.get("/v1/likes?recipe_ids=7", headers=user).get_json() == {"data": ["7"]}


def test_likes_are_per_supplier(client):
    retailer, publisher = headers(user="shared-1"), headers(user="shared-1", token="demo-publisher-token")
    assert client.put("/v1/likes/9", headers=retailer).status_code == 204
    assert client.get("/v1/likes?recipe_ids=9", headers=publisher).get_json() == {"data": []}

"""Likes: connected users of a known supplier only, idempotent writes, kept per supplier."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

RETAILER = {"Supplier-Token": "demo-retailer-token"}
PUBLISHER = {"Supplier-Token": "demo-publisher-token"}

ROUTES = [
    ("get", "/api/v1/likes?recipe_ids=1"),
    ("put", "/api/v1/likes/1"),
    ("delete", "/api/v1/likes/1"),
]


def as_user(user_id: str, supplier: dict[str, str] = RETAILER) -> dict[str, str]:
    return {"Authorization": f"user_id {user_id}", **supplier}


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_likes_need_an_identity(client: FlaskClient, method: str, path: str) -> None:
    response = getattr(client, method)(path, headers=RETAILER)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize("supplier", [{}, {"Supplier-Token": "no-such-token"}], ids=["missing", "unknown"])
def test_likes_need_a_known_supplier_token(
    client: FlaskClient, user_id: str, method: str, path: str, supplier: dict[str, str]
) -> None:
    response = getattr(client, method)(path, headers=as_user(user_id, supplier))
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"


def test_a_refused_write_stores_nothing(client: FlaskClient, seed, user_id: str) -> None:
    recipe_id = next(iter(seed.recipes))
    path = f"/api/v1/likes/{recipe_id}"
    assert client.put(path, headers={"Authorization": f"user_id {user_id}"}).status_code == 401
    for supplier in (RETAILER, PUBLISHER):
        query = f"/api/v1/likes?recipe_ids={recipe_id}"
        assert client.get(query, headers=as_user(user_id, supplier)).json == {"data": []}


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_likes_are_for_connected_users_only(client: FlaskClient, method: str, path: str) -> None:
    headers = {"Authorization": "authless_id visitor-1", **RETAILER}
    response = getattr(client, method)(path, headers=headers)
    assert response.status_code == 403
    assert response.mimetype == "application/problem+json"


def test_identity_and_supplier_are_checked_before_the_arguments(client: FlaskClient) -> None:
    assert client.get("/api/v1/likes").status_code == 401
    assert client.get("/api/v1/likes", headers={"Authorization": "user_id u"}).status_code == 401
    assert client.get("/api/v1/likes", headers=RETAILER).status_code == 401
    assert client.get("/api/v1/likes", headers=as_user("u")).status_code == 400


def test_like_unlike_round_trip(client: FlaskClient, seed, user_id: str) -> None:
    user = as_user(user_id)
    a, b, c = sorted(seed.recipes, key=int)[:3]
    assert client.get(f"/api/v1/likes?recipe_ids={a},{b},{c}", headers=user).json == {"data": []}

    for _ in range(2):  # idempotent
        response = client.put(f"/api/v1/likes/{c}", headers=user)
        assert response.status_code == 204 and response.data == b""
    assert client.put(f"/api/v1/likes/{a}", headers=user).status_code == 204
    liked = client.get(f"/api/v1/likes?recipe_ids={c},{b},{a},999999,x", headers=user).json
    assert liked == {"data": [c, a]}

    for _ in range(2):
        assert client.delete(f"/api/v1/likes/{c}", headers=user).status_code == 204
    assert client.get(f"/api/v1/likes?recipe_ids={a},{c}", headers=user).json == {"data": [a]}


def test_likes_belong_to_their_user(client: FlaskClient, seed, user_id: str) -> None:
    recipe_id = next(iter(seed.recipes))
    client.put(f"/api/v1/likes/{recipe_id}", headers=as_user(user_id))
    other = as_user(f"{user_id}-other")
    assert client.get(f"/api/v1/likes?recipe_ids={recipe_id}", headers=other).json == {"data": []}


def test_the_same_user_id_under_two_suppliers_has_separate_likes(client: FlaskClient, seed, user_id: str) -> None:
    a, b = sorted(seed.recipes, key=int)[:2]
    retailer, publisher = as_user(user_id, RETAILER), as_user(user_id, PUBLISHER)
    query = f"/api/v1/likes?recipe_ids={a},{b}"
    assert client.put(f"/api/v1/likes/{a}", headers=retailer).status_code == 204
    assert client.get(query, headers=retailer).json == {"data": [a]}
    assert client.get(query, headers=publisher).json == {"data": []}

    assert client.put(f"/api/v1/likes/{b}", headers=publisher).status_code == 204
    assert client.put(f"/api/v1/likes/{a}", headers=publisher).status_code == 204
    assert client.delete(f"/api/v1/likes/{a}", headers=retailer).status_code == 204
    assert client.get(query, headers=retailer).json == {"data": []}
    assert client.get(query, headers=publisher).json == {"data": [a, b]}


@pytest.mark.parametrize("method", ["put", "delete"])
def test_unknown_recipe_is_404(client: FlaskClient, user_id: str, method: str) -> None:
    for recipe_id in ("999999", "nope"):
        response = getattr(client, method)(f"/api/v1/likes/{recipe_id}", headers=as_user(user_id))
        assert response.status_code == 404
        assert response.mimetype == "application/problem+json"


def test_at_most_100_recipe_ids(client: FlaskClient, user_id: str) -> None:
    ids = ",".join(str(n) for n in range(1, 102))
    response = client.get(f"/api/v1/likes?recipe_ids={ids}", headers=as_user(user_id))
    assert response.status_code == 400
    assert "recipe_ids" in response.json["errors"]["query"]

"""Request headers: supplier token, identity, language, profiling."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

CATALOG_READS = [
    "/api/v1/stores",
    "/api/v1/categories",
    "/api/v1/products?per_page=1",
    "/api/v1/recipes?per_page=1",
    "/api/v1/recipes/1",
]


@pytest.mark.parametrize("path", CATALOG_READS)
def test_catalog_reads_need_no_header(client: FlaskClient, path: str) -> None:
    assert client.get(path).status_code == 200


@pytest.mark.parametrize("path", CATALOG_READS)
def test_known_supplier_token_is_accepted(client: FlaskClient, path: str) -> None:
    assert client.get(path, headers={"Supplier-Token": "demo-retailer-token"}).status_code == 200


@pytest.mark.parametrize("path", CATALOG_READS)
def test_unknown_supplier_token_is_401_everywhere(client: FlaskClient, path: str) -> None:
    response = client.get(path, headers={"Supplier-Token": "no-such-token"})
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"


def test_unknown_supplier_token_is_401_on_writes_too(client: FlaskClient) -> None:
    response = client.post(
        "/api/v1/suggestions",
        json={"contexts": []},
        headers={"Supplier-Token": "no-such-token"},
    )
    assert response.status_code == 401


def test_suppliers_me_needs_a_token(client: FlaskClient) -> None:
    assert client.get("/api/v1/suppliers/me").status_code == 401
    assert client.get("/api/v1/suppliers/me", headers={"Supplier-Token": "x"}).status_code == 401


@pytest.mark.parametrize(
    ("token", "kind", "personalization"),
    [
        ("demo-retailer-token", "retailer", True),
        ("demo-nopers-token", "retailer", False),
        ("demo-publisher-token", "publisher", True),
    ],
)
def test_suppliers_me(client: FlaskClient, seed, token: str, kind: str, personalization: bool) -> None:
    response = client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token})
    assert response.status_code == 200
    body = response.json
    (expected,) = [s for s in seed.suppliers if s["token"] == token]
    assert body["id"] == expected["id"] and isinstance(body["id"], str)
    assert body["kind"] == kind
    assert body["personalization"] is personalization
    assert body["routing"] == expected["routing"]
    assert "token" not in body
    for environment in body["routing"].values():
        assert {"baseUrl", "features", "planner"} <= environment.keys()


def test_publisher_is_affiliated_to_the_demo_retailer(client: FlaskClient) -> None:
    retailer = client.get("/api/v1/suppliers/me", headers={"Supplier-Token": "demo-retailer-token"})
    publisher = client.get("/api/v1/suppliers/me", headers={"Supplier-Token": "demo-publisher-token"})
    assert retailer.json["affiliated_supplier_id"] is None
    assert publisher.json["affiliated_supplier_id"] == retailer.json["id"]


@pytest.mark.parametrize("authorization", ["Bearer abc", "user_id", "user_id ", "authless_id a b", "token x"])
def test_malformed_authorization_is_400(client: FlaskClient, authorization: str) -> None:
    response = client.get("/api/v1/stores", headers={"Authorization": authorization})
    assert response.status_code == 400
    assert "Authorization" in response.json["errors"]["headers"]


@pytest.mark.parametrize("language", ["de", "english", "xx-fr"])
def test_unsupported_language_is_400(client: FlaskClient, language: str) -> None:
    response = client.get("/api/v1/categories", headers={"Language-Id": language})
    assert response.status_code == 400
    assert "Language-Id" in response.json["errors"]["headers"]


def test_retailer_variant_of_a_language_reads_as_the_language(client: FlaskClient) -> None:
    french = client.get("/api/v1/categories", headers={"Language-Id": "fr"}).json
    variant = client.get("/api/v1/categories", headers={"Language-Id": "fr-demo"}).json
    english = client.get("/api/v1/categories", headers={"Language-Id": "en"}).json
    assert variant == french
    assert english != french


def test_malformed_profiling_is_400(client: FlaskClient) -> None:
    response = client.get("/api/v1/stores", headers={"Profiling": "maybe"})
    assert response.status_code == 400
    assert "Profiling" in response.json["errors"]["headers"]

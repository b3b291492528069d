"""Stores, categories and the product catalog."""

from __future__ import annotations

from flask.testing import FlaskClient


def test_stores(client: FlaskClient, seed) -> None:
    body = client.get("/api/v1/stores").json
    assert [store["id"] for store in body["data"]] == sorted(seed.stores, key=int)
    assert {"1001", "1002"} <= {store["id"] for store in body["data"]}
    for store in body["data"]:
        expected = seed.stores[store["id"]]
        assert store == {
            "id": store["id"],
            "name": expected["name"],
            "city": expected["city"],
            "latitude": float(expected["latitude"]),
            "longitude": float(expected["longitude"]),
        }


def test_one_store_or_404(client: FlaskClient) -> None:
    assert client.get("/api/v1/stores/1001").json == {
        "id": "1001",
        "name": "Demo Market Paris Bastille",
        "city": "Paris",
        "latitude": 48.8533,
        "longitude": 2.3692,
    }
    assert client.get("/api/v1/stores/424242").status_code == 404
    assert client.get("/api/v1/stores/not-a-number").status_code == 404


def test_stores_load_with_their_coordinates(client: FlaskClient, count_queries) -> None:
    """The coordinates load with the stores (one SELECT), not one query per store (they are deferred
    elsewhere); a store without coordinates answers null (test_migrations, 0007)."""
    with count_queries() as queries:
        body = client.get("/api/v1/stores").json
    assert all(store["latitude"] is not None for store in body["data"])
    assert len([q for q in queries if "FROM stores" in q]) == 1


def test_categories_in_seed_order_and_localised(client: FlaskClient, seed) -> None:
    french = client.get("/api/v1/categories").json["data"]
    english = client.get("/api/v1/categories", headers={"Language-Id": "en"}).json["data"]
    assert french == [{"id": c["id"], "name": c["name"]} for c in seed.categories]
    assert english == [{"id": c["id"], "name": c.get("name_en") or c["name"]} for c in seed.categories]


def test_products_without_store_have_null_store_fields(client: FlaskClient, seed) -> None:
    body = client.get("/api/v1/products").json
    assert body["page"] == 1 and body["per_page"] == 24
    assert body["total"] == len(seed.products)
    assert len(body["data"]) == min(24, len(seed.products))
    for product in body["data"]:
        assert product["price"] is None
        assert product["available"] is None
        assert product["promoted"] is None
        expected = seed.products[product["id"]]
        assert product["name"] == expected["name"]
        assert product["ingredient_ids"] == [
            link["id"] for link in sorted(expected["ingredients"], key=lambda link: link["rank"])
        ]
        assert product["picture_url"].endswith(f"/media/products/{product['id']}.svg")


def test_products_at_a_store(client: FlaskClient, seed) -> None:
    store = seed.stores["1002"]
    ids = store["unavailable_product_ids"][:3] + store["promoted_product_ids"][:3]
    ids += [p for p in seed.products if p not in ids][:3]
    body = client.get(f"/api/v1/products?store_id=1002&ids={','.join(ids)}").json
    assert sorted(p["id"] for p in body["data"]) == sorted(set(ids), key=int)
    for product in body["data"]:
        assert product["price"] == float(seed.shelf_price("1002", product["id"]))
        assert product["available"] is (product["id"] not in store["unavailable_product_ids"])
        assert product["promoted"] is (product["id"] in store["promoted_product_ids"])


def test_store_price_factor_applies(client: FlaskClient, seed) -> None:
    product_id = next(iter(seed.products))
    paris = client.get(f"/api/v1/products?store_id=1001&ids={product_id}").json["data"][0]
    lyon = client.get(f"/api/v1/products?store_id=1002&ids={product_id}").json["data"][0]
    assert paris["price"] == float(seed.shelf_price("1001", product_id))
    assert lyon["price"] == float(seed.shelf_price("1002", product_id))


def test_products_pagination_covers_the_catalog_once(client: FlaskClient, seed) -> None:
    seen: list[str] = []
    page = 1
    while True:
        body = client.get(f"/api/v1/products?per_page=100&page={page}").json
        if not body["data"]:
            break
        assert body["total"] == len(seed.products)
        seen += [product["id"] for product in body["data"]]
        page += 1
    assert sorted(seen, key=int) == sorted(seed.products, key=int)
    assert len(seen) == len(set(seen))


def test_products_per_page_is_at_most_100(client: FlaskClient) -> None:
    response = client.get("/api/v1/products?per_page=101")
    assert response.status_code == 400
    assert "per_page" in response.json["errors"]["query"]


def test_products_search_ignores_case_and_accents(client: FlaskClient, seed) -> None:
    product = next(p for p in seed.products.values() if len(p["name"]) > 4)
    word = max(product["name"].split(), key=len)
    shouted = word.upper().replace("É", "E").replace("È", "E")
    body = client.get(f"/api/v1/products?per_page=100&q={shouted}").json
    assert product["id"] in {p["id"] for p in body["data"]}
    assert body["total"] < len(seed.products)


def test_products_search_treats_wildcards_literally(client: FlaskClient) -> None:
    assert client.get("/api/v1/products?q=t%25e").json["total"] == 0
    assert client.get("/api/v1/products?q=t_mate").json["total"] == 0
    assert client.get("/api/v1/products?q=tomate").json["total"] > 0


def test_products_unknown_store_is_400(client: FlaskClient) -> None:
    response = client.get("/api/v1/products?store_id=999")
    assert response.status_code == 400
    assert response.json["errors"] == {"query": {"store_id": ["Unknown store."]}}


def test_products_unknown_ids_are_left_out(client: FlaskClient, seed) -> None:
    known = next(iter(seed.products))
    body = client.get(f"/api/v1/products?ids={known},999999999999,abc,").json
    assert [p["id"] for p in body["data"]] == [known]

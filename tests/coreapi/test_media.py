"""Pictures served by coreapi itself."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from coreapi import create_app, drawing
from coreapi.extensions import db


@pytest.mark.parametrize("kind", ["recipes", "products"])
def test_pictures_are_cacheable_svg(client: FlaskClient, seed, kind: str) -> None:
    ids = seed.recipes if kind == "recipes" else seed.products
    response = client.get(f"/media/{kind}/{next(iter(ids))}.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.cache_control.public and response.cache_control.max_age == 86400
    root = ET.fromstring(response.data)
    assert root.tag.endswith("svg")

    again = client.get(response.request.path, headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("kind", ["recipes", "products"])
def test_pictures_are_gzipped_for_a_client_that_accepts_it(client: FlaskClient, seed, kind: str) -> None:
    ids = seed.recipes if kind == "recipes" else seed.products
    path = f"/media/{kind}/{next(iter(ids))}.svg"
    plain = client.get(path)
    assert plain.content_encoding is None and "Accept-Encoding" in plain.vary
    for accepted in ("gzip, deflate, br", "br;q=1, gzip;q=0.5", "*"):
        zipped = client.get(path, headers={"Accept-Encoding": accepted})
        assert zipped.status_code == 200 and zipped.content_encoding == "gzip", accepted
        assert zipped.mimetype == "image/svg+xml" and "Accept-Encoding" in zipped.vary
        assert zipped.cache_control.public and zipped.cache_control.max_age == 86400
        assert gzip.decompress(zipped.data) == plain.data
        assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data) / 2
        # Each encoding is its own representation: its own entity tag.
        assert zipped.headers["ETag"] != plain.headers["ETag"]
    for refused in ("identity", "gzip;q=0", "br"):
        answer = client.get(path, headers={"Accept-Encoding": refused})
        assert answer.content_encoding is None and answer.data == plain.data, refused


def test_a_revalidation_is_304_per_encoding(client: FlaskClient, seed) -> None:
    path = f"/media/recipes/{next(iter(seed.recipes))}.svg"
    zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    plain = client.get(path)
    again = client.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    assert again.headers["ETag"] == zipped.headers["ETag"] and "Accept-Encoding" in again.vary
    assert again.cache_control.max_age == 86400
    # The plain picture's tag does not validate the gzipped one, nor the other way round.
    assert (
        client.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": plain.headers["ETag"]}).status_code == 200
    )
    assert client.get(path, headers={"If-None-Match": zipped.headers["ETag"]}).status_code == 200
    assert client.get(path, headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304


@pytest.mark.parametrize("kind", ["recipes", "products"])
@pytest.mark.parametrize("picture", ["999999999.svg", "abc.svg", "1.png"])
def test_unknown_pictures_are_404(client: FlaskClient, kind: str, picture: str) -> None:
    response = client.get(f"/media/{kind}/{picture}")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_picture_urls_resolve(client: FlaskClient, seed) -> None:
    recipe_id = next(iter(seed.recipes))
    detail = client.get(f"/api/v1/recipes/{recipe_id}").json
    urls = [detail["picture_url"]] + [
        product["picture_url"] for ingredient in detail["ingredients"] for product in ingredient["products"]
    ]
    for url in urls[:5]:
        parts = urlsplit(url)
        assert parts.scheme == "http" and parts.netloc == "localhost"
        assert client.get(parts.path).mimetype == "image/svg+xml"


def test_picture_urls_follow_the_request_host(client: FlaskClient, seed) -> None:
    recipe_id = next(iter(seed.recipes))
    body = client.get(f"/api/v1/recipes/{recipe_id}", base_url="http://127.0.0.1:8001").json
    assert body["picture_url"] == f"http://127.0.0.1:8001/media/recipes/{recipe_id}.svg"


def test_public_url_overrides_the_request_host(app: Flask, seed) -> None:
    recipe_id = next(iter(seed.recipes))
    config = {key: app.config[key] for key in ("DATABASE_URL", "SQLALCHEMY_ENGINE_OPTIONS")}
    public = create_app({"TESTING": True, **config, "PUBLIC_URL": "https://media.example/up/"})
    body = public.test_client().get(f"/api/v1/recipes/{recipe_id}").json
    with public.app_context():
        db.engine.dispose()
    assert body["picture_url"] == f"https://media.example/up/media/recipes/{recipe_id}.svg"


def test_served_pictures_are_drawn_from_the_catalog_data(client: FlaskClient, seed) -> None:
    """The route reads the picture's data from the database (coreapi.services.pictures) and draws the same
    picture as the seed's own data: colours of the ingredients, primary first; a product's best-ranked
    ingredient colour; the dish its title names."""
    recipe = seed.recipes["1"]
    colors = [seed.ingredients[i["id"]]["color"] for i in sorted(recipe["ingredients"], key=lambda i: not i["primary"])]
    expected = drawing.recipe_picture_svg(
        recipe_id="1", recipe_type=recipe["type"], colors=colors, dish=drawing.dish_of(recipe["title"], recipe["type"])
    )
    assert client.get("/media/recipes/1.svg").get_data(as_text=True) == expected
    product = seed.products["100001"]
    best = min(product["ingredients"], key=lambda link: link["rank"])
    expected = drawing.product_picture_svg(
        product_id="100001",
        package=product["package"],
        brand=product["brand"],
        name=product["name"],
        color=seed.ingredients[best["id"]]["color"],
    )
    assert client.get("/media/products/100001.svg").get_data(as_text=True) == expected


@pytest.mark.parametrize(("title", "dish"), [("Salade niçoise", "salad"), ("Verrines avocat et crevettes", "verrines")])
def test_a_recipe_picture_is_the_dish_its_title_names(client: FlaskClient, seed, title: str, dish: str) -> None:
    """The starters that were drawn as soup bowls: a salad bowl, and glasses."""
    recipe_id = next(rid for rid, recipe in seed.recipes.items() if recipe["title"] == title)
    root = ET.fromstring(client.get(f"/media/recipes/{recipe_id}.svg").data)
    assert root.get("data-dish") == dish

"""How the fragments' pictures load, read with a parser against the real coreapi (docs/decisions.md, "Pictures:
their size, lazy loading and the first card in view"): each picture's width and height (its box before it
loads), `loading="lazy"` below the fold, `fetchpriority="high"` and no lazy for the first card in view and the
drawer's hero, `decoding="async"` everywhere."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup, Tag

from .conftest import get_card, headers
from .test_multiple import post, product_pairs

STORE = "1001"


def loads(img: Tag) -> str:
    """How a picture loads: "high" (at once, first), "eager" (at once) or "lazy"; never both high and lazy."""
    assert img["decoding"] == "async", img
    if img.get("fetchpriority") == "high":
        assert not img.has_attr("loading"), img
        return "high"
    assert not img.has_attr("fetchpriority"), img
    return "lazy" if img.get("loading") == "lazy" else "eager"


def size(img: Tag) -> tuple[int, int]:
    return int(img["width"]), int(img["height"])


def card_picture(scope: Tag | BeautifulSoup) -> Tag:
    img = scope.select_one(".svc-recipe-card__picture img[data-svc-picture='recipe']")
    assert isinstance(img, Tag), scope
    return img


def soup_of(answer) -> BeautifulSoup:
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return BeautifulSoup(answer.get_data(as_text=True), "html5lib")


# --- the card route --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_card_is_lazy_unless_the_page_says_it_is_above_the_fold(client, version):
    lazy = card_picture(soup_of(get_card(client, version, recipe_id="5", store_id=STORE)))
    assert loads(lazy) == "lazy"
    # 4:3 at a card's width in the grids: the box is the picture's before it loads.
    assert size(lazy) == (320, 240)
    first = card_picture(soup_of(get_card(client, version, recipe_id="5", store_id=STORE, above_fold="true")))
    assert loads(first) == "high" and size(first) == (320, 240) and first["src"] == lazy["src"]
    explicit = card_picture(soup_of(get_card(client, version, recipe_id="5", store_id=STORE, above_fold="false")))
    assert loads(explicit) == "lazy"


def test_a_suggested_card_above_the_fold_is_high_priority(client, upstream):
    pair = product_pairs(upstream, 1)[0]
    answer = get_card(client, surrounding_products_ids=json.dumps(pair), store_id=STORE, above_fold="1")
    assert loads(card_picture(soup_of(answer))) == "high"


def test_above_fold_is_a_boolean(client):
    answer = get_card(client, recipe_id="5", above_fold="maybe")
    assert answer.status_code == 400
    assert answer.mimetype == "application/problem+json"
    assert "above_fold" in answer.get_json()["errors"]["query"]


# --- the multiple route ----------------------------------------------------------------------------------------


def multiple_pictures(client, upstream, query=None, **options) -> list[tuple[int, str]]:
    """(position, how its picture loads) of each card, in position order; the body lists them unsorted."""
    pairs = product_pairs(upstream, 4)
    positions = [30, 10, 40, 20]
    body = {"contexts": [{"productIds": p, "position": n} for p, n in zip(pairs, positions, strict=True)], **options}
    data = post(client, body, {"store_id": STORE, **(query or {})}).get_json()["data"]
    return [(item["position"], loads(card_picture(soup_of_html(item["html"])))) for item in data if item["html"]]


def soup_of_html(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html5lib")


def test_multiple_cards_are_lazy_by_default(client, upstream):
    pictures = multiple_pictures(client, upstream)
    assert len(pictures) == 4
    assert {loading for _, loading in pictures} == {"lazy"}


@pytest.mark.parametrize("where", ["query", "body"])
def test_above_the_fold_the_lowest_position_is_the_one_high_priority_picture(client, upstream, where):
    pictures = (
        multiple_pictures(client, upstream, {"above_fold": "true"})
        if where == "query"
        else (multiple_pictures(client, upstream, above_fold=True))
    )
    assert pictures == [(10, "high"), (20, "lazy"), (30, "lazy"), (40, "lazy")]


def test_above_fold_in_the_query_and_the_body_must_agree(client, upstream):
    pair = product_pairs(upstream, 1)[0]
    body = {"contexts": [{"productIds": pair, "position": 1}], "above_fold": False}
    answer = post(client, body, {"store_id": STORE, "above_fold": "true"})
    assert answer.status_code == 400
    assert "above_fold" in answer.get_json()["errors"]["query"]


# --- the drawer ------------------------------------------------------------------------------------------------


def test_the_drawer_hero_loads_first_and_its_product_pictures_lazily(client):
    answer = client.get("/v1/recipe-details", query_string={"recipe_id": "5", "store_id": STORE}, headers=headers())
    root = soup_of(answer).select_one("svc-recipe-details")
    assert isinstance(root, Tag)
    hero = root.select_one(".svc-recipe-details__hero img")
    assert isinstance(hero, Tag)
    # 16:10 at the drawer's 480 px (recipe-details.css, drawer.css), in view as the drawer opens.
    assert loads(hero) == "high" and size(hero) == (480, 300)
    products = root.select("img.svc-recipe-details__product-picture")
    assert products
    for img in products:
        assert loads(img) == "lazy" and size(img) == (64, 64)  # recipe-details.css: a 64 px box


# --- the catalog -----------------------------------------------------------------------------------------------


def catalog_pictures(client, path: str, **query) -> list[list[str]]:
    """How the pictures load, a list per section (home) or one list (a list page), in the page's order."""
    root = soup_of(client.get(path, query_string=query, headers=headers())).select_one("svc-catalog")
    assert isinstance(root, Tag)
    sections = root.select("section.svc-catalog__section") or [root]
    return [[loads(card_picture(card)) for card in section.select("svc-recipe-card")] for section in sections]


def test_the_catalog_home_first_row_loads_at_once_the_others_lazily(client):
    rows = catalog_pictures(client, "/v2/catalog", store_id=STORE)
    assert len(rows) > 1 and len(rows[0]) > 4, rows
    assert rows[0][:4] == ["high", "eager", "eager", "eager"]
    assert set(rows[0][4:]) == {"lazy"}
    assert {loading for row in rows[1:] for loading in row} == {"lazy"}


def test_a_list_first_page_first_row_loads_at_once_a_later_page_lazily(client):
    [first] = catalog_pictures(client, "/v2/catalog/list", all_recipes="true", store_id=STORE)
    assert first[:4] == ["high", "eager", "eager", "eager"] and set(first[4:]) == {"lazy"}
    [second] = catalog_pictures(client, "/v2/catalog/list", all_recipes="true", store_id=STORE, page="2")
    assert second and set(second) == {"lazy"}

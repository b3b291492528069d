"""The markup the SDK's customization applies to (docs/sdk.md, "Migrating from the maker's SDK"), read with a parser
against the real coreapi: pictures (`data-svc-picture`, `data-svc-picture-fallback`), difficulty labels
(`data-difficulty`), the page's routes (`a[data-svc-route]`: an href from the supplier's routing, else hidden
without one), the recipe's tags (`data-svc-feature="tags"`) and the cards' ingredient pictures
(`data-ingredient-pictures`)."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask

from prerender import create_app
from prerender.gateway import Recipe
from prerender.rendering.cards import CardOptions, build_card, render_card
from prerender.rendering.i18n import translator_for
from prerender.rendering.pictures import ingredient_pictures
from prerender.web.context import RequestContext

from .conftest import NOPERS, browser_headers, get_card, headers

SHOP = "http://127.0.0.1:8080"
STORE = "1001"
PUBLISHER = "demo-publisher-token"


def parsed(answer, selector: str) -> Tag:
    assert answer.status_code == 200, answer.get_data(as_text=True)
    root = BeautifulSoup(answer.get_data(as_text=True), "html5lib").select_one(selector)
    assert isinstance(root, Tag), answer.get_data(as_text=True)
    return root


def route_link(scope: Tag, route: str, *, href: str | None) -> Tag:
    """The one link of a route: with that href and shown, or (None) hidden and without href."""
    links = scope.select(f'a[data-svc-route="{route}"]')
    assert len(links) == 1, links
    link = links[0]
    if href is None:
        assert link.has_attr("hidden") and not link.has_attr("href"), link
    else:
        assert link["href"] == href and not link.has_attr("hidden"), link
    assert link.get_text(strip=True)
    return link


def difficulty_of(scope: Tag, level: int) -> None:
    """The difficulty's label: in an element of its own, named by its level."""
    labels = scope.select("[data-difficulty]")
    assert labels, scope
    for label in labels:
        assert label["data-difficulty"] == str(level)
        assert label.get_text(strip=True) == {1: "Facile", 2: "Intermédiaire", 3: "Difficile"}[level]
        assert label.find(True) is None  # text only: the SDK replaces it


def user() -> str:
    return f"drop-in-{uuid.uuid4().hex[:8]}"


# --- cards --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_card_marks_its_picture_and_difficulty(client, upstream, version):
    card = parsed(get_card(client, version, recipe_id="5", store_id=STORE), "svc-recipe-card")
    picture = card.select_one(".svc-recipe-card__picture img")
    assert picture is not None and picture["data-svc-picture"] == "recipe"
    difficulty_of(card.select_one(".svc-recipe-card__difficulty"), upstream.recipe("5")["difficulty"])
    # The recipe's answer lists its ingredients' product pictures (docs/upstream.md): the card offers them.
    expected = upstream.recipe("5", store_id=STORE)["ingredient_pictures"]
    assert len(expected) == 4 and json.loads(card["data-ingredient-pictures"]) == expected


PRODUCT = {"id": "p", "name": "P", "available": True}


def recipe_with(ingredients: tuple[dict, ...], picture_url: str = "") -> Recipe:
    return Recipe(
        id="77",
        title="Essai",
        picture_url=picture_url,
        type="main-dish",
        difficulty=3,
        total_time=20,
        guests=2,
        available=True,
        promoted=False,
        pricing=None,
        ingredients=ingredients,
    )


def render(app: Flask, recipe: Recipe) -> tuple[str, Tag]:
    context = RequestContext(
        api_version="v1",
        request_id="r",
        session_id="s",
        language="fr",
        i18n_variant=None,
        user_id="u",
        authless_id=None,
        supplier=None,
    )
    options = CardOptions(display_variant=1, orientation="vertical", store_id=None, serves=None)
    with app.test_request_context("/"):
        t = translator_for(context)
        html = render_card(build_card(recipe, options, context, t=t), t)
    card = BeautifulSoup(html, "html5lib").find("svc-recipe-card")
    assert isinstance(card, Tag)
    return html, card


def test_a_recipe_with_its_ingredients_gives_the_card_up_to_4_safe_pictures(app):
    pictures = [f"https://cdn.example/p{n}.png" for n in range(6)]
    ingredients = (
        {
            "id": "a",
            "products": [{**PRODUCT, "picture_url": "javascript:alert(1)"}, {**PRODUCT, "picture_url": pictures[0]}],
        },
        {"id": "b", "products": [{**PRODUCT, "picture_url": 'https://cdn.example/"><script>.png'}]},
        {"id": "c", "products": []},
        {"id": "d", "products": [{**PRODUCT, "picture_url": pictures[0]}]},
        *({"id": f"e{n}", "products": [{**PRODUCT, "picture_url": pictures[n]}]} for n in range(1, 6)),
    )
    html, card = render(app, recipe_with(ingredients))
    listed = json.loads(card["data-ingredient-pictures"])
    assert listed == [pictures[0], 'https://cdn.example/"><script>.png', pictures[1], pictures[2]]
    assert "<script>.png" not in html  # escaped in the attribute, never markup
    assert ingredient_pictures(ingredients, limit=2) == (pictures[0], 'https://cdn.example/"><script>.png')
    # Without a picture, the card's placeholder says which default picture fits it; the difficulty is marked.
    fallback = card.select_one(".svc-recipe-card__picture .svc-recipe-card__picture-fallback")
    assert fallback is not None and fallback["data-svc-picture-fallback"] == "recipe"
    assert card.select_one(".svc-recipe-card__picture img") is None
    difficulty_of(card.select_one(".svc-recipe-card__difficulty"), 3)


def test_a_recipe_without_pictures_of_ingredients_lists_none(app):
    _, card = render(app, recipe_with(({"id": "a", "products": [{**PRODUCT, "picture_url": ""}]},), "https://x/r.png"))
    assert not card.has_attr("data-ingredient-pictures")
    assert card.select_one(".svc-recipe-card__picture img")["data-svc-picture"] == "recipe"


def test_a_recipe_without_a_difficulty_shows_its_other_facts(app):
    """A difficulty outside the contract is read as none (prerender/gateway/models.py): the card leaves out its
    line, and shows the time and the guests."""
    _, card = render(app, replace(recipe_with(()), difficulty=None))
    assert card.select_one(".svc-recipe-card__difficulty") is None and card.select_one("[data-difficulty]") is None
    assert card.select_one(".svc-recipe-card__time") is not None and card.select_one(".svc-recipe-card__guests")


# --- recipe details -------------------------------------------------------------------------------------------


def details(client, version: str = "v1", token: str | None = None, **query):
    hdrs = headers(token=token) if token else headers()
    return parsed(client.get(f"/{version}/recipe-details", query_string=query, headers=hdrs), "svc-recipe-details")


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_details_mark_pictures_difficulty_tags_and_the_catalog_link(client, upstream, version):
    expected = upstream.recipe("5", store_id=STORE)
    root = details(client, version, recipe_id="5", store_id=STORE)
    assert root.select_one(".svc-recipe-details__hero img")["data-svc-picture"] == "recipe"
    difficulty_of(root.select_one(".svc-recipe-details__meta"), expected["difficulty"])
    tags = root.select_one("ul.svc-recipe-details__tags")
    assert expected["tags"], "the seed's recipes have tags (coreapi: type and diet/theme categories)"
    assert tags["data-svc-feature"] == "tags" and tags.has_attr("hidden") and tags["aria-label"]
    assert [li.get_text(strip=True) for li in tags.select(":scope > li.svc-recipe-details__tag")] == expected["tags"]
    # One public answer for every supplier: the link waits for the page's router.setRecipeCatalogUrl.
    link = route_link(root, "catalog", href=None)
    assert link.get_text(strip=True) == "Voir toutes nos recettes"
    rows = root.select('[data-panel="shopping"] .svc-recipe-details__ingredient[data-ingredient-id]')
    assert rows
    for row in rows:
        pictures = row.select(":scope > .svc-recipe-details__product-picture")
        assert len(pictures) == 1, row
        picture = pictures[0]
        if picture.name == "img":
            assert picture["data-svc-picture"] == "ingredient" and picture["src"].startswith("http")
        else:
            assert picture["data-svc-picture-fallback"] == "ingredient"
            assert "svc-recipe-details__product-picture--fallback" in picture["class"]


def test_an_unavailable_ingredient_keeps_a_picture_placeholder(client, upstream):
    recipe_id = next(
        r["id"] for r in upstream.all_recipes() if upstream.recipe(r["id"], store_id="1002")["available"] is False
    )
    root = details(client, recipe_id=recipe_id, store_id="1002")
    unavailable = root.select(".svc-recipe-details__ingredient--unavailable")
    assert unavailable
    for row in unavailable:
        placeholder = row.select_one(":scope > .svc-recipe-details__product-picture")
        assert placeholder is not None and placeholder.name == "span"
        assert placeholder["data-svc-picture-fallback"] == "ingredient"


def test_the_details_are_the_same_for_every_supplier(client):
    retailer = details(client, recipe_id="5", store_id=STORE)
    publisher = details(client, token=PUBLISHER, recipe_id="5", store_id=STORE)
    assert str(retailer) == str(publisher)


def test_the_browser_gets_the_same_marks_with_its_credential(client):
    query = {"recipe_id": "5", "store_id": STORE}
    answer = client.get("/v1/recipe-details", query_string=query, headers=browser_headers(client))
    root = parsed(answer, "svc-recipe-details")
    route_link(root, "catalog", href=None)
    assert root.select_one("[data-svc-feature='tags'][hidden]") is not None


# --- catalog pages ------------------------------------------------------------------------------------------


def catalog_page(client, path: str, *, token: str | None = None, **query) -> Tag:
    return parsed(
        client.get(path, query_string=query, headers=headers(token=token) if token else headers()), "svc-catalog"
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_home_has_the_hidden_how_it_works_and_promotions_links(client, version):
    root = catalog_page(client, f"/{version}/catalog", store_id=STORE, display_infos="true")
    route_link(root, "recipe-info", href=None)
    promotions = route_link(root.select_one(".svc-catalog__toolbar"), "promotions", href=None)
    assert "svc-catalog__toolbar-link" in promotions["class"]
    assert promotions.find("svg")["aria-hidden"] == "true"
    for route in ("catalog", "cart"):
        assert root.select_one(f'a[data-svc-route="{route}"]') is None
    for card in root.select("svc-recipe-card"):
        assert card.select_one(".svc-recipe-card__picture img[data-svc-picture='recipe'], [data-svc-picture-fallback]")
        assert card.select_one(".svc-recipe-card__difficulty [data-difficulty]") is not None


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_header_alone_has_them_too(client, version):
    root = catalog_page(client, f"/{version}/catalog/header")
    route_link(root, "recipe-info", href=None)
    route_link(root, "promotions", href=None)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_category_links_back_to_the_catalog_home(client, upstream, version):
    category = upstream.get("/categories")["data"][0]["id"]
    root = catalog_page(client, f"/{version}/catalog/category", category_id=category, store_id=STORE)
    link = route_link(root, "catalog", href=f"{SHOP}/idees")
    assert "svc-catalog-category__back" in link["class"]
    route_link(root, "promotions", href=None)


def test_the_favorites_link_back_to_the_catalog_home(client):
    root = catalog_page(client, "/v1/catalog/favorites", store_id=STORE)
    assert "svc-catalog__back" in route_link(root, "catalog", href=f"{SHOP}/idees")["class"]


def test_without_a_catalog_in_the_routing_the_back_link_waits_for_the_page(app_config, upstream):
    # The seed's production routing of the supplier without personalization names no catalog and no cart.
    client = create_app({**app_config, "ENVIRONMENT": "production"}).test_client()
    category = upstream.get("/categories")["data"][0]["id"]
    root = catalog_page(client, "/v1/catalog/category", token=NOPERS, category_id=category, store_id=STORE)
    route_link(root, "catalog", href=None)
    root = catalog_page(client, "/v1/catalog/favorites", token=NOPERS, store_id=STORE)
    route_link(root, "catalog", href=None)


def add_recipes(client, hdrs: dict, *recipe_ids: str) -> dict:
    basket: dict = {}
    for recipe_id in recipe_ids:
        answer = client.post(
            "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": 2, "store_id": STORE}, headers=hdrs
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        basket = answer.get_json()["basket"]
    return basket


def marked_picture(scope: Tag, selector: str) -> None:
    """Every recipe picture of a list, or its placeholder, says it is a recipe's."""
    pictures = scope.select(selector)
    assert pictures
    for picture in pictures:
        assert picture.get("data-svc-picture") == "recipe" or picture.get("data-svc-picture-fallback") == "recipe"


def test_the_basket_preview_marks_its_pictures_and_the_cart_link(client):
    hdrs = browser_headers(client, user=user())
    add_recipes(client, hdrs, "5", "12")
    # As the drawer asks for it (basket.openPreview()): the shopper's credential, embedded, no store.
    answer = client.get("/v2/catalog/my-space/basket-preview", query_string={"embed": "true"}, headers=hdrs)
    root = parsed(answer, "svc-catalog")
    assert root["page"] == "basket-preview" and "svc-basket-preview--embed" in root["class"]
    assert [item["data-recipe-id"] for item in root.select("ul.svc-basket-preview__list > li")] == ["5", "12"]
    marked_picture(root, "ul.svc-basket-preview__list > li > .svc-basket-preview__picture")
    assert "svc-basket-preview__cart" in route_link(root, "cart", href=f"{SHOP}/cart")["class"]


def test_without_a_cart_in_the_routing_the_cart_link_waits_for_the_page(app_config):
    # The seed's production routing of the supplier without personalization names no cart.
    client = create_app({**app_config, "ENVIRONMENT": "production"}).test_client()
    shopper = user()
    add_recipes(client, browser_headers(client, user=shopper, token=NOPERS), "5")
    answer = client.get(
        "/v2/catalog/my-space/basket-preview",
        query_string={"embed": "true"},
        headers=headers(user=shopper, token=NOPERS),
    )
    root = parsed(answer, "svc-catalog")
    route_link(root, "cart", href=None)
    assert {link["data-svc-route"] for link in root.select("a[data-svc-route]")} == {"cart"}


def test_the_history_marks_its_pictures(client):
    shopper = user()
    hdrs = browser_headers(client, user=shopper)
    basket = add_recipes(client, hdrs, "5")
    paid = client.post(
        f"/v1/baskets/handle-payment?order-id=order-{shopper}",
        json={
            "store_id": STORE,
            "totalPrice": basket["total"],
            "products": [{"id": p["id"], "quantity": p["quantity"]} for p in basket["products"]],
        },
        headers=hdrs,
    )
    assert paid.status_code == 200 and paid.get_json()["confirmed"] is True, paid.get_json()
    for style in ("list", "grid"):
        answer = client.get(
            "/v2/catalog/my-space",
            query_string={"tab": "history", "history_style": style},
            headers=headers(user=shopper),
        )
        marked_picture(parsed(answer, "svc-catalog"), ".svc-my-space__history-item > .svc-my-space__history-picture")

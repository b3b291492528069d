"""Upstream names written beside other text keep their direction to themselves (prerender/rendering/i18n.py,
`isolated`): an ingredient's name in Arabic does not carry its quantity to its other side, a brand in Hebrew its
size; a title or a product name alone takes its direction from its own text (`dir="auto"`)."""

from __future__ import annotations

from dataclasses import replace

from bs4 import BeautifulSoup

from prerender.gateway import Recipe
from prerender.rendering.cards import CardOptions, build_card, render_card
from prerender.rendering.details import build_details, render_details
from prerender.rendering.i18n import translator_for

from .test_card_template import RECIPE, ctx

FSI, PDI = "\u2068", "\u2069"
ARABIC, HEBREW = "زيت الزيتون", "שמן זית"


def recipe(name: str, brand: str, alternative: str) -> Recipe:
    product = {"id": "p1", "name": HEBREW, "brand": brand, "size": "1 l", "price": 2.5, "available": True}
    ingredient = {
        "id": "i1",
        "name": name,
        "display": "100 ml",
        "primary": True,
        "products": [product, {**product, "id": "p2", "name": alternative}],
    }
    return replace(RECIPE, title=ARABIC, picture_url="", ingredients=(ingredient,))


def drawer(app, recipe: Recipe) -> BeautifulSoup:
    context = ctx()
    with app.test_request_context("/"):
        t = translator_for(context)
        html = render_details(build_details(recipe, context, store_id="1001", guests=None, t=t), context)
    return BeautifulSoup(html, "html5lib")


def test_right_to_left_names_in_a_drawer_row_are_isolated(app):
    soup = drawer(app, recipe(ARABIC, HEBREW, ARABIC))
    name = soup.select_one(".svc-recipe-details__ingredient-name")
    assert name.get_text() == f"{FSI}{ARABIC}{PDI} 100 ml"
    assert soup.select_one(".svc-recipe-details__product-meta").get_text().startswith(f"{FSI}{HEBREW}{PDI} · 1 l")
    assert soup.select_one("[data-action='choose-product']").get_text().startswith(f"{FSI}{ARABIC}{PDI} · ")
    assert soup.select_one(".svc-recipe-details__product-name")["dir"] == "auto"
    assert soup.select_one(".svc-recipe-details__title")["dir"] == "auto"


def test_left_to_right_names_are_written_as_they_are(app):
    soup = drawer(app, recipe("Huile d'olive", "Demo Market", "Huile bio"))
    assert soup.select_one(".svc-recipe-details__ingredient-name").get_text() == "Huile d'olive 100 ml"
    assert soup.select_one(".svc-recipe-details__product-meta").get_text().startswith("Demo Market · 1 l")
    assert FSI not in str(soup)


def test_a_card_title_takes_its_direction_from_its_text(app):
    context = ctx()
    options = CardOptions(display_variant=1, orientation="vertical", store_id=None, serves=None)
    with app.test_request_context("/"):
        t = translator_for(context)
        html = render_card(build_card(recipe(ARABIC, HEBREW, ARABIC), options, context, t=t), t)
    assert BeautifulSoup(html, "html5lib").select_one(".svc-recipe-card__title")["dir"] == "auto"

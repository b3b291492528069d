"""The card fragment, read with an HTML parser: ids, attributes, variants, pricing, like, CTA, escaping."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup

from prerender.gateway import Pricing, Recipe, Supplier
from prerender.rendering.cards import CardOptions, build_card, render_card
from prerender.rendering.i18n import translator_for
from prerender.web.context import RequestContext

RECIPE = Recipe(
    id="12",
    title="Ratatouille provençale",
    picture_url="http://up/media/recipes/12.svg",
    type="main-dish",
    difficulty=1,
    total_time=70,
    guests=4,
    available=True,
    promoted=False,
    pricing=Pricing(guests=4, total=Decimal("9.88"), price_per_guest=Decimal("2.47")),
)
RETAILER = Supplier(id="1", name="Demo", kind="retailer", personalization=True, affiliated_supplier_id=None)
NO_PERSONALIZATION = replace(RETAILER, personalization=False)


def ctx(*, version="v1", user="u-1", supplier=RETAILER, language="fr") -> RequestContext:
    return RequestContext(
        api_version=version,
        request_id="r",
        session_id="s",
        language=language,
        i18n_variant=None,
        user_id=user,
        authless_id=None if user else "anon",
        supplier=supplier,
    )


def render(
    app, recipe=RECIPE, *, variant=1, orientation="vertical", store="1001", serves=None, **ctx_args
) -> BeautifulSoup:
    context = ctx(**ctx_args)
    options = CardOptions(display_variant=variant, orientation=orientation, store_id=store, serves=serves)
    with app.test_request_context("/"):
        t = translator_for(context)
        html = render_card(build_card(recipe, options, context, t=t), t)
    return BeautifulSoup(html, "html5lib")


def host(soup):
    return soup.find("svc-recipe-card")


def test_host_element_id_and_attributes(app):
    card = host(render(app, variant=2, orientation="horizontal"))
    assert card["id"] == "svc-recipe-card-12"
    assert (card["recipe-id"], card["display-variant"], card["orientation"]) == ("12", "2", "horizontal")
    assert card.find("img")["src"] == RECIPE.picture_url
    assert card.find(class_="svc-recipe-card__title").get_text(strip=True) == RECIPE.title


def test_fragment_ends_with_the_module_scripts(app):
    soup = render(app)
    scripts = soup.find_all("script")
    assert [s["type"] for s in scripts] == ["module", "module"]
    assert scripts[0]["src"].endswith("/sdk/svc.js") and scripts[1]["src"].endswith("/components/recipe-card.js")
    assert host(soup).find_next("script") is scripts[0]


@pytest.mark.parametrize("variant,badge", [(1, False), (2, True), (3, True)])
def test_badge_only_for_variants_2_and_3(app, variant, badge):
    found = host(render(app, variant=variant)).find(class_="svc-recipe-card__badge")
    assert (found is not None) is badge
    if badge:
        assert found.find_parent(class_="svc-recipe-card__media") is not None
        assert found.get_text(strip=True) == "Plat"


def test_promoted_recipe_badge(app):
    badge = host(render(app, replace(RECIPE, promoted=True), variant=2)).find(class_="svc-recipe-card__badge")
    assert badge.get_text(strip=True) == "Promo" and "svc-ds-badge--promo" in badge["class"]


@pytest.mark.parametrize(
    "variant,place", [(1, "svc-recipe-card__media"), (2, "svc-recipe-card__media"), (3, "svc-recipe-card__footer")]
)
def test_like_button_placement(app, variant, place):
    like = host(render(app, variant=variant)).find(class_="svc-like-button")
    assert like.find_parent(class_=place) is not None
    if variant == 3:
        assert like.find_previous_sibling(class_="svc-recipe-pricing") is not None


def test_v2_normalizes_variant_4_to_3(app):
    card = host(render(app, variant=4, version="v2"))
    assert card["display-variant"] == "3"
    assert card.find(class_="svc-like-button").find_parent(class_="svc-recipe-card__footer") is not None


def test_price_per_guest_with_store(app):
    pricing = host(render(app)).find(class_="svc-recipe-pricing")
    assert pricing.find(class_="svc-recipe-pricing__amount").get_text(strip=True) == "2,47\u00a0€"
    assert pricing.find(class_="svc-recipe-pricing__per-guest").get_text(strip=True) == "/ pers."


@pytest.mark.parametrize(
    "recipe,store",
    [
        (RECIPE, None),
        (replace(RECIPE, pricing=None), "1001"),
        (replace(RECIPE, pricing=Pricing(4, Decimal(0), Decimal(0))), "1001"),
    ],
)
def test_no_pricing_wrapper_without_price_per_serve(app, recipe, store):
    assert host(render(app, recipe, store=store)).find(class_="svc-recipe-pricing") is None


def test_heart_only_for_connected_users(app):
    assert host(render(app, user=None)).find(class_="svc-like-button") is None
    assert host(render(app, user="u-1")).find(class_="svc-like-button") is not None


def test_the_heart_waits_for_the_browsers_like_states(app):
    """The same HTML for every connected user: unpressed, marked for the browser's batched read."""
    like = host(render(app)).find(class_="svc-like-button")
    assert like["aria-pressed"] == "false" and like["data-like-state"] == "unknown"
    assert like["aria-label"].startswith("Ajouter")


@pytest.mark.parametrize("supplier", [NO_PERSONALIZATION, None])
def test_no_like_and_no_cta_without_personalization(app, supplier):
    card = host(render(app, supplier=supplier))
    assert card.find(class_="svc-like-button") is None
    assert card.find(class_="svc-recipe-card-cta") is None


def test_cta_uses_the_not_in_basket_alt_text_and_names_its_recipe(app):
    """One such button per card: its name says which recipe, so a list of the page's buttons tells them apart."""
    cta = host(render(app)).find(class_="svc-recipe-card-cta")
    assert cta.get_text(" ", strip=True) == "Ajouter les ingrédients au panier pour la recette Ratatouille provençale"


def test_the_buttons_that_open_the_drawer_say_so(app):
    """The CTA (named after the maker's "add" key) and the title open the drawer: they say they open a dialog, so a
    screen reader does not take "add the ingredients" for an add (a screen-reader check's finding)."""
    card = host(render(app))
    for button in (card.find(class_="svc-recipe-card-cta"), card.find(class_="svc-recipe-card__title-button")):
        assert button["data-action"] == "open-details" and button["aria-haspopup"] == "dialog"


def test_the_cards_heading_is_named_by_the_recipes_title_alone(app):
    """A screen reader's list of headings reads the recipes, not "See the recipe" before each (the button keeps its
    dialog popup, which says it opens the drawer)."""
    heading = host(render(app)).find(class_="svc-recipe-card__title")
    assert heading.name == "h3"
    button = heading.find("button")
    assert not button.has_attr("aria-label") and not button.has_attr("aria-labelledby")
    assert heading.get_text(strip=True) == button.get_text(strip=True) == "Ratatouille provençale"


def test_serves_overrides_guests(app):
    card = host(render(app, serves=6))
    assert card["guests"] == "6"
    assert card.find(class_="svc-recipe-card__guests").get_text(strip=True) == "6 pers."


def test_english_texts(app):
    card = host(render(app, language="en", variant=2))
    assert card.find(class_="svc-recipe-card__badge").get_text(strip=True) == "Main"
    assert card.find(class_="svc-recipe-pricing__amount").get_text(strip=True) == "€2.47"


def test_hostile_upstream_data_is_escaped(app):
    hostile = replace(
        RECIPE,
        id="12",
        title='<script>alert(1)</script>" onmouseover="x',
        picture_url='javascript:alert(1)" onerror="x',
    )
    soup = render(app, hostile)
    assert soup.find("script", string=True) is None  # only the two module scripts, no inline script
    card = host(soup)
    assert card.find(class_="svc-recipe-card__title").get_text(strip=True) == hostile.title
    assert card.find("img") is None  # a javascript: picture is dropped, not inserted
    assert card.find(class_="svc-recipe-card__picture-fallback") is not None
    assert all("onmouseover" not in tag.attrs for tag in card.find_all(True))


def test_personalization_disabled_lets_the_browser_draw_heart_and_cta(app):
    card = host(render(app, supplier=NO_PERSONALIZATION))
    assert card["personalization"] == "client"
    assert card["data-not-in-basket-label"] == "Ajouter les ingrédients au panier"
    assert card["data-in-basket-label"] == "Voir les ingrédients dans le panier"
    assert card["data-cta-recipe"] == "pour la recette Ratatouille provençale"
    assert card["data-like-label"].startswith("Ajouter Ratatouille")
    anonymous = host(render(app, supplier=NO_PERSONALIZATION, user=None))
    assert str(anonymous) == str(card)  # the same HTML for every user: shared caches may keep it


def test_no_supplier_means_neither_server_nor_client_heart_and_cta(app):
    card = host(render(app, supplier=None))
    assert not card.has_attr("personalization") and not card.has_attr("data-like-label")


def test_cta_and_heart_carry_both_labels(app):
    card = host(render(app))
    cta, like = card.find(class_="svc-recipe-card-cta"), card.find(class_="svc-like-button")
    assert cta["data-in-basket-label"] and cta["data-not-in-basket-label"]
    # One name in both states (aria-pressed says which): a pressed heart named "remove" contradicted itself.
    assert like["data-like-label"].startswith("Ajouter") and not like.has_attr("data-unlike-label")

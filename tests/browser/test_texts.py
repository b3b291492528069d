"""The SDK's texts in Chromium (prerender/static/sdk/texts.js): plural arguments read with the browser's CLDR
rules (`Intl.PluralRules`) as the server reads them with Babel's (tests/unit/test_i18n.py): in French "one" is
every number below 2 (0, 1, 1,5), in English exactly 1; `#` is the number as the language writes it; an exact
value wins; a retailer's override is a whole message, plural or not; a malformed one is shown as written."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from .helpers import new_user, visit

# Runs the SDK's translator (sdk/svc.js exports it), imported from the URL the shop's page loads the SDK with: the
# page's own instance, as served (the release build bundles texts.js into svc.js).
FORMAT = """async ([languageId, key, counts, overrides]) => {
    const sdk = document.querySelector("script[src*='/sdk/svc.js']").src;
    const { translator } = await import(sdk);
    const t = translator(languageId, overrides);
    return counts.map((count) => t(key, { count, recipes: count, products: count, affiliate: "Le Magazine Cuisine" }));
}"""


@pytest.fixture
def shop_page(context: BrowserContext, page: Page, shop_url: str) -> Page:
    visit(context, page, shop_url, user=new_user())
    page.wait_for_function("() => Boolean(window.svc)")
    return page


def texts(page: Page, language: str, key: str, counts: list[Any], overrides: dict[str, str] | None = None) -> list[str]:
    return list(page.evaluate(FORMAT, [language, key, counts, overrides or {}]))


def test_the_sdks_plurals_follow_the_languages_rules(shop_page: Page) -> None:
    assert texts(shop_page, "fr", "toaster.added", [0, 1, 2, 1.5]) == [
        "0 produit ajouté à votre panier",
        "1 produit ajouté à votre panier",
        "2 produits ajoutés à votre panier",
        "1,5 produit ajouté à votre panier",
    ]
    assert texts(shop_page, "en", "toaster.added", [0, 1, 2, 1.5]) == [
        "0 products added to your cart",
        "1 product added to your cart",
        "2 products added to your cart",
        "1.5 products added to your cart",
    ]
    # A retailer's variant of a language has its plural rules; each count of a text its own plural.
    assert texts(shop_page, "fr-demo", "transfer.received", [1, 6]) == [
        "Votre panier de Le Magazine Cuisine : 1 recette, 1 produit",
        "Votre panier de Le Magazine Cuisine : 6 recettes, 6 produits",
    ]


def test_overrides_are_whole_messages_plural_or_not(shop_page: Page) -> None:
    exact = {
        "toaster.added": "{count, plural, =1 {Un produit ajouté} one {# produit ajouté} other {# produits ajoutés}}"
    }
    assert texts(shop_page, "fr", "toaster.added", [0, 1, 1000], exact) == [
        "0 produit ajouté",
        "Un produit ajouté",
        "1\u202f000 produits ajoutés",
    ]
    assert texts(shop_page, "fr", "toaster.added", [3], {"toaster.added": "{count} article(s)"}) == ["3 article(s)"]
    malformed = {"toaster.added": "{count, plural, one {# produit}}"}  # no `other`
    assert texts(shop_page, "fr", "toaster.added", [2], malformed) == ["{count, plural, one {# produit}}"]

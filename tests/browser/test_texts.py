"""The SDK's texts in Chromium (prerender/static/sdk/texts.js): plural arguments read with the browser's CLDR
rules (`Intl.PluralRules`) as the server reads them with Babel's (tests/unit/test_i18n.py): in French "one" is
every number below 2 (0, 1, 1,5), in English exactly 1; `#` is the number as the language writes it; an exact
value wins; a retailer's override is a whole message, plural or not; a malformed one is shown as written. And a
retailer's versions of the SDK's texts, written by prerender into its fragments, are what the shopper reads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from playwright.sync_api import BrowserContext, Page, expect

import prerender
from tests.live import TEST_BUDGETS

from .helpers import hydrated_cards, new_user, visit

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
        "Votre panier de Le Magazine Cuisine\u00a0: 1 recette, 1 produit",
        "Votre panier de Le Magazine Cuisine\u00a0: 6 recettes, 6 produits",
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


def test_a_retailers_versions_of_the_sdks_texts_reach_the_shopper(
    page: Page, context: BrowserContext, shop_url: str, coreapi_url: str, tmp_path: Path
) -> None:
    """A retailer's override file names the SDK's texts (`SDK.*`): a fragment asked with its language-id carries
    them, and once the page holds that fragment, what the SDK writes itself reads the retailer's way: the drawer's
    close button and what "add all" says."""
    (tmp_path / "fr-demo.json").write_text(
        json.dumps(
            {
                "SDK": {
                    "drawer.close": "Fermer la recette",
                    "toaster.added": "{count, plural, one {# article ajouté} other {# articles ajoutés}} au panier",
                }
            }
        ),
        encoding="utf-8",
    )
    service = prerender.create_app({"UPSTREAM_URL": coreapi_url, "I18N_OVERRIDES_DIR": str(tmp_path), **TEST_BUDGETS})
    fragment = service.test_client().get(
        "/v2/svc-window-bootstrap",
        headers={
            "supplier-token": "demo-retailer-token",
            "language-id": "fr-demo",
            "session-id": "texts",
            "authless-id": "texts-visitor",
        },
    )
    assert fragment.status_code == 200
    # Its texts block only: the rest (the SDK's tag, another visitor's credential) the shop's page has its own of.
    (block,) = BeautifulSoup(fragment.get_data(as_text=True), "html5lib").select("script.svc-sdk-texts")
    visit(context, page, shop_url)
    page.evaluate("(html) => document.body.insertAdjacentHTML('beforeend', html)", str(block))
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("button", name="Fermer la recette")).to_be_visible()
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(dialog.locator(".svc-drawer__message")).to_have_text(re.compile(r"^\d+ articles? ajoutés? au panier\b"))

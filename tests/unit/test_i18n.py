"""Texts: the overridable keys exist in every language (prerender/i18n/*.json); a retailer file replaces only
its keys."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from prerender.rendering.i18n import SUPPORTED_LANGUAGES, TextCatalog

SPEC_KEYS = {
    "RECIPE_PRICING": ["PER_GUESTS"],
    "RECIPE_CARD_CTA": ["IN_BASKET_ICON_ALT", "NOT_IN_BASKET_ICON_ALT"],
    "PLANNER_ENTRY": ["TITLE", "HOW_IT_WORKS", "DECREASE_GUESTS", "INCREASE_GUESTS"],
    "PLANNER_MENU_OPTION": ["SELECTION", "SELECTION_SUBTITLE", "CUSTOM", "CUSTOM_SUBTITLE", "CANCEL"],
    "PLANNER_CURRENT_MENU": ["ADD_MENU"],
    "PLANNER_RECIPE_LIST": ["SELECTION_TITLE", "MEAL_SINGULAR", "MEAL_PLURAL", "CHOOSE_FROM_RECIPES", "SUGGESTIONS"],
    "PLANNER_RECIPE_SUGGESTION": ["ADD", "OUR_SUGGESTIONS", "SEE_RECIPE", "SWAP"],
    "PLANNER_QUICK_MENU": ["SEE_MENU", "ADD_RECIPE_ARIA", "MENU_PREVIEW_ARIA"],
}


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_spec_key_exists(language):
    keys = TextCatalog(overrides_dir=None).keys(language)
    expected = {f"{group}.{key}" for group, names in SPEC_KEYS.items() for key in names}
    assert expected <= keys


def test_languages_have_the_same_keys():
    catalog = TextCatalog(overrides_dir=None)
    assert catalog.keys("fr") == catalog.keys("en")


def test_retailer_override_replaces_only_its_keys(tmp_path):
    (tmp_path / "fr-demo.json").write_text(json.dumps({"RECIPE_PRICING": {"PER_GUESTS": "par convive"}}))
    catalog = TextCatalog(overrides_dir=tmp_path)
    overridden, base = catalog.translator("fr", "demo"), catalog.translator("fr")
    assert overridden("RECIPE_PRICING.PER_GUESTS") == "par convive"
    assert base("RECIPE_PRICING.PER_GUESTS") != "par convive"
    assert overridden("PLANNER_ENTRY.TITLE") == base("PLANNER_ENTRY.TITLE")


def test_unknown_variant_falls_back_to_the_language_without_growing(tmp_path):
    catalog = TextCatalog(overrides_dir=tmp_path)
    assert catalog.translator("en", "nobody") is catalog.translator("en")
    assert len(catalog._translators) == len(SUPPORTED_LANGUAGES)


def test_override_with_an_unknown_parameter_does_not_break(tmp_path):
    (tmp_path / "fr-typo.json").write_text(json.dumps({"RECIPE_CARD": {"GUESTS": "{count} pers. {oops}"}}))
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "typo")
    assert t("RECIPE_CARD.GUESTS", count=2) == "2 pers. {oops}"
    assert t.get("RECIPE_CARD.TYPE_brunch") is None


def test_parameters_and_money():
    catalog = TextCatalog(overrides_dir=None)
    fr, en = catalog.translator("fr"), catalog.translator("en")
    assert fr("RECIPE_CARD.GUESTS", count=4) == "4 pers."
    assert fr.money(Decimal("2.475")) == "2,48\u00a0€"
    assert en.money(Decimal("12.5")) == "€12.50"

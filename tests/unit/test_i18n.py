"""Texts: the overridable keys exist in every language (prerender/i18n/*.json); a retailer file replaces only
its keys."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from prerender.rendering.i18n import SUPPORTED_LANGUAGES, TextCatalog, isolated

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


# A text key written whole in a template or a module ("PLANNER_PAGE.TITLE"; a prefix completed at run time, such as
# 'PLANNER_PAGE.TYPE_' ~ type, ends with "_" and is left out).
LITERAL_KEY = re.compile(r"""['"]([A-Z][A-Z0-9_]*\.[A-Z0-9_]*[A-Z0-9])['"]""")


def test_every_key_the_templates_and_modules_name_is_a_text():
    """A misspelled key renders as itself with a warning (prerender/rendering/i18n.py): caught here instead."""
    root = Path(__file__).resolve().parents[2] / "prerender"
    sources = [*root.glob("templates/**/*.html"), *root.glob("*/*.py")]
    named = {
        (match[1], str(path.relative_to(root)))
        for path in sources
        if path.name != "i18n.py"  # its docstrings' examples
        for match in LITERAL_KEY.finditer(path.read_text(encoding="utf-8"))
    }
    assert len(named) > 150  # the scan reads them
    keys = TextCatalog(overrides_dir=None).keys("fr")
    assert sorted((key, where) for key, where in named if key not in keys) == []


def test_french_punctuation_keeps_its_no_break_space():
    """French writes a space before `:`, `?`, `!`, `;` and inside « »: a no-break one, or a line could start with the
    sign (docs/decisions.md). The server's texts and the SDK's copy of them."""
    root = Path(__file__).resolve().parents[2] / "prerender"

    def leaves(node: object) -> list[str]:
        return [text for child in node.values() for text in leaves(child)] if isinstance(node, dict) else [str(node)]

    flat = leaves(json.loads((root / "i18n" / "fr.json").read_text(encoding="utf-8")))
    sdk = (root / "static" / "sdk" / "texts.js").read_text(encoding="utf-8")
    french_sdk = sdk[sdk.index("  fr: {") : sdk.index("  en: {")]
    for text in [*flat, french_sdk]:
        assert not re.search(r" [:?!;]|« | »", text), text


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


def test_override_with_an_unknown_parameter_does_not_break(tmp_path, caplog):
    """A parameter its text is not given would show as written: the base text stands in, and the log says so."""
    (tmp_path / "fr-typo.json").write_text(json.dumps({"RECIPE_CARD": {"GUESTS": "{count} pers. {oops}"}}))
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "typo")
    assert t("RECIPE_CARD.GUESTS", count=2) == "2 pers."
    assert t.get("RECIPE_CARD.TYPE_brunch") is None
    assert "RECIPE_CARD.GUESTS names parameters its text is not given (oops)" in caplog.text


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{ "RECIPE_PRICING": { "PER_GUESTS": "par convive", }', "is not read"),  # a trailing comma
        ('["par convive"]', "is not a JSON object"),
        (b"\xff\xfe", "is not read"),  # not UTF-8
    ],
)
def test_an_override_file_that_cannot_be_read_leaves_the_base_texts(tmp_path, caplog, content, said):
    """One retailer's broken file: the service starts, that retailer's pages read the base texts, every other file
    applies, and the log names the file once, at start."""
    broken = tmp_path / "fr-broken.json"
    if isinstance(content, bytes):
        broken.write_bytes(content)
    else:
        broken.write_text(content)
    (tmp_path / "fr-demo.json").write_text(json.dumps({"RECIPE_PRICING": {"PER_GUESTS": "par convive"}}))
    catalog = TextCatalog(overrides_dir=tmp_path)
    assert catalog.translator("fr", "broken")("RECIPE_PRICING.PER_GUESTS") == catalog.translator("fr")(
        "RECIPE_PRICING.PER_GUESTS"
    )
    assert catalog.translator("fr", "demo")("RECIPE_PRICING.PER_GUESTS") == "par convive"
    assert [record.levelname for record in caplog.records if str(broken) in record.getMessage()] == ["ERROR"]
    assert said in caplog.text


@pytest.mark.parametrize("text", ["{count!r} pers.", "{count:>9} pers.", "{count:100000000}", "{count:>{width}}"])
def test_an_override_text_with_a_conversion_or_a_format_is_left_out(tmp_path, caplog, text):
    """Quotes, padding, a nested field: none reads as a shopper's text; the base text stands in."""
    (tmp_path / "fr-odd.json").write_text(json.dumps({"RECIPE_CARD": {"GUESTS": text}}))
    assert TextCatalog(overrides_dir=tmp_path).translator("fr", "odd")("RECIPE_CARD.GUESTS", count=3) == "3 pers."
    assert "takes no conversion nor format" in caplog.text


def test_a_retailer_may_name_a_recipe_type_the_base_texts_do_not(tmp_path, caplog):
    """A card's badge is the optional text of its recipe's type (any type the upstream sends): an override may add
    one, as it may add nothing else."""
    (tmp_path / "fr-odd.json").write_text(json.dumps({"RECIPE_CARD": {"TYPE_apero": "Apéro"}}))
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "odd")
    assert t.get("RECIPE_CARD.TYPE_apero") == "Apéro"
    assert "TYPE_apero" not in caplog.text


def test_an_override_text_that_is_no_text_or_no_key_is_left_out(tmp_path, caplog):
    (tmp_path / "fr-odd.json").write_text(
        json.dumps({"LIKE_BUTTON": {"LIKE": 42}, "RECIPE_CARD": {"GUESTS": "{count} convives", "GUETS": "?"}})
    )
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "odd")
    base = TextCatalog(overrides_dir=None).translator("fr")
    assert t("LIKE_BUTTON.LIKE") == base("LIKE_BUTTON.LIKE")  # not "42"
    assert t("RECIPE_CARD.GUESTS", count=3) == "3 convives"  # the file's good texts apply
    assert "LIKE_BUTTON.LIKE is not a text (int)" in caplog.text
    assert "RECIPE_CARD.GUETS is no text of the service" in caplog.text


@pytest.mark.parametrize(
    ("minutes", "french", "english"),
    [
        (45, "45 min", "45 min"),
        (60, "1 h", "1 h"),
        (150, "2 h 30", "2 h 30 min"),
        (2000, "33 h 20", "33 h 20 min"),
    ],
)
def test_a_recipes_time_reads_in_hours_and_minutes(minutes, french, english):
    """Never "150 min": hours from 60 minutes on, each number bound to its unit (no line break between them); in
    French "2 h 30", as the demo blog writes it (examples/publisher/recipes.py)."""
    catalog = TextCatalog(overrides_dir=None)
    for language, expected in (("fr", french), ("en", english)):
        t = catalog.translator(language)
        said = t("RECIPE_CARD.TOTAL_TIME", minutes=minutes, duration=t.duration(minutes))
        assert said == expected.replace(" ", "\u00a0")
    fr = catalog.translator("fr")
    assert fr("RECIPE_DETAILS.COOKING_TIME", minutes=120, duration=fr.duration(120)) == "Cuisson 2\u00a0h"


def test_an_override_of_a_time_written_with_its_minutes_still_reads(tmp_path):
    """A retailer's text from before `{duration}` (docs/decisions.md, "a recipe's time in hours")."""
    (tmp_path / "fr-old.json").write_text(json.dumps({"RECIPE_CARD": {"TOTAL_TIME": "{minutes} minutes"}}))
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "old")
    assert t("RECIPE_CARD.TOTAL_TIME", minutes=150, duration=t.duration(150)) == "150 minutes"


def test_parameters_and_money():
    catalog = TextCatalog(overrides_dir=None)
    fr, en = catalog.translator("fr"), catalog.translator("en")
    assert fr("RECIPE_CARD.GUESTS", count=4) == "4 pers."
    assert fr.money(Decimal("2.475")) == "2,48\u00a0€"
    assert en.money(Decimal("12.5")) == "€12.50"
    assert fr.money(Decimal("1234.5")) == "1\u202f234,50\u00a0€"  # CLDR's French grouping: a narrow space
    assert en.money(Decimal("1234.5")) == "€1,234.50"
    assert fr.day(date(2026, 11, 20)) == "20 novembre 2026" and en.day(date(2026, 11, 20)) == "November 20, 2026"


BROWSER_FORMATS = """
const [amounts, days] = JSON.parse(process.argv[1]);
const out = {};
for (const language of ["fr", "en"]) {
  const money = new Intl.NumberFormat(language, { style: "currency", currency: "EUR" });
  const long = new Intl.DateTimeFormat(language, { dateStyle: "long", timeZone: "UTC" });
  out[language] = [amounts.map((a) => money.format(a)), days.map((d) => long.format(new Date(d)))];
}
console.log(JSON.stringify(out));
"""


def test_prices_and_days_read_as_the_browser_modules_write_them():
    """The server's prices and days are the browser's `Intl` ones (components/ui.js `money`; Node's ICU is the
    browser's CLDR data), so a price rendered in a fragment and one the drawer formats after a swap agree."""
    node = shutil.which("node")
    assert node, "node is needed (make install)"
    amounts, days = ["0.5", "2.47", "12", "999.99", "1234.5", "20450"], ["2026-01-01", "2026-11-20", "2027-08-09"]
    browser = json.loads(
        subprocess.run(
            [node, "-e", BROWSER_FORMATS, json.dumps([[float(a) for a in amounts], days])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    catalog = TextCatalog(overrides_dir=None)
    for language in ("fr", "en"):
        t = catalog.translator(language)
        server = [[t.money(Decimal(a)) for a in amounts], [t.day(date.fromisoformat(d)) for d in days]]
        assert server == browser[language], language


# --- plural messages (prerender/rendering/plurals.py) ----------------------------------------------------------

# French "one" is every number below 2 (0, 1, 1,5); English "one" is exactly 1. The number as the language writes it.
PLURALS = {
    ("fr", 0): "0 recette · 0 produit",
    ("fr", 1): "1 recette · 1 produit",
    ("fr", 2): "2 recettes · 2 produits",
    ("fr", 1.5): "1,5 recette · 1,5 produit",
    ("en", 0): "0 recipes · 0 products",
    ("en", 1): "1 recipe · 1 product",
    ("en", 2): "2 recipes · 2 products",
    ("en", 1.5): "1.5 recipes · 1.5 products",
}


@pytest.mark.parametrize(("language", "count"), list(PLURALS), ids=[f"{lang}-{n}" for lang, n in PLURALS])
def test_a_plural_text_takes_the_languages_cldr_category(language, count):
    t = TextCatalog(overrides_dir=None).translator(language)
    assert t("CATALOG_BASKET_PREVIEW.SUMMARY", recipes=count, products=count) == PLURALS[(language, count)]


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_no_base_text_writes_a_plural_with_parentheses(language):
    catalog = TextCatalog(overrides_dir=None)
    texts = {key: catalog.translator(language)(key) for key in catalog.keys(language)}
    assert [key for key, text in texts.items() if "(s)" in text] == []


def test_each_count_of_a_text_has_its_own_plural():
    t = TextCatalog(overrides_dir=None).translator("fr")
    assert t("CATALOG_BASKET_PREVIEW.SUMMARY", recipes=1, products=29) == "1 recette · 29 produits"
    assert t("PLANNER_PAGE.REMOVED_AT_STORE", count=2) == (
        "2 recettes retirées du menu\u00a0: indisponibles dans ce magasin."
    )
    assert t("BASKET_TRANSFER.RECEIVED", affiliate="Le Magazine Cuisine", recipes=1, products=6) == (
        "Votre panier de Le Magazine Cuisine\u00a0: 1 recette, 6 produits"
    )
    # A recipe whose products the cart already held adds none: said so, not "0 produit".
    assert t("BASKET_TRANSFER.RECEIVED", affiliate="Le Magazine Cuisine", recipes=1, products=0) == (
        "Votre panier de Le Magazine Cuisine\u00a0: 1 recette, aucun produit à ajouter"
    )
    # The drawer's section title and "add all" button: one ingredient, one product.
    assert [t("RECIPE_DETAILS.INGREDIENTS", count=n) for n in (1, 7)] == ["1 ingrédient", "7 ingrédients"]
    assert [t("RECIPE_DETAILS.ADD_ALL", count=n) for n in (1, 6)] == ["Ajouter le produit", "Ajouter les 6 produits"]
    en = TextCatalog(overrides_dir=None).translator("en")
    assert [en("RECIPE_DETAILS.ADD_ALL", count=n) for n in (1, 6)] == ["Add the product", "Add the 6 products"]
    assert TextCatalog(overrides_dir=None).translator("en")("PLANNER_PAGE.REMOVED_AT_STORE", count=1) == (
        "1 recipe left the menu: it is not available at this store."
    )
    # A card's guests, the catalog's count of its recipes (French reads 0 as one).
    assert [en("RECIPE_CARD.GUESTS", count=n) for n in (1, 4)] == ["1 person", "4 people"]
    assert [t("CATALOG.COUNT", count=n) for n in (0, 1, 57)] == ["0 recette", "1 recette", "57 recettes"]
    assert [en("CATALOG.COUNT", count=n) for n in (0, 1, 57)] == ["0 recipes", "1 recipe", "57 recipes"]


def test_an_exact_value_wins_and_the_number_is_written_as_the_language_does(tmp_path):
    (tmp_path / "fr-demo.json").write_text(
        json.dumps(
            {
                "CATALOG_BASKET_PREVIEW": {
                    "PRODUCTS": "{count, plural, =0 {aucun produit} one {# produit} other {# produits}}"
                }
            }
        )
    )
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "demo")
    assert [t("CATALOG_BASKET_PREVIEW.PRODUCTS", count=n) for n in (0, 1, 1000)] == [
        "aucun produit",
        "1 produit",
        "1\u202f000 produits",
    ]


def test_a_retailer_override_may_be_plural_or_plain_and_replaces_the_whole_message(tmp_path):
    (tmp_path / "fr-demo.json").write_text(
        json.dumps(
            {
                "CATALOG_BASKET_PREVIEW": {
                    "PRODUCTS": "{count, plural, one {# article} other {# articles}}",
                    "SUMMARY": "{recipes} plats",
                }
            }
        )
    )
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "demo")
    assert t("CATALOG_BASKET_PREVIEW.PRODUCTS", count=1) == "1 article"
    assert t("CATALOG_BASKET_PREVIEW.PRODUCTS", count=3) == "3 articles"
    assert t("CATALOG_BASKET_PREVIEW.SUMMARY", recipes=2, products=5) == "2 plats"


@pytest.mark.parametrize(
    "text",
    [
        "{count, plural, one {# recette}}",  # no `other`
        "{count, plural, one {# recette} other {# recettes}",  # not closed
        "{count, plural, one # recette other # recettes}",  # no braces around the messages
    ],
)
def test_a_malformed_plural_override_leaves_the_base_text(tmp_path, caplog, text):
    """Shown as written, it would read "{count, plural, …" to a shopper: the base text stands in."""
    (tmp_path / "fr-typo.json").write_text(json.dumps({"CATALOG_BASKET_PREVIEW": {"PRODUCTS": text}}))
    t = TextCatalog(overrides_dir=tmp_path).translator("fr", "typo")
    assert t("CATALOG_BASKET_PREVIEW.PRODUCTS", count=2) == "2 produits"
    assert "CATALOG_BASKET_PREVIEW.PRODUCTS cannot be read" in caplog.text


def test_a_plural_of_a_parameter_that_is_no_number_takes_other():
    t = TextCatalog(overrides_dir=None).translator("fr")
    assert t("CATALOG_BASKET_PREVIEW.PRODUCTS", count="beaucoup") == "beaucoup produits"


def test_a_parameter_that_could_reorder_the_sentence_keeps_its_own_direction():
    """An upstream name holding U+202E (or written right to left) between FSI and PDI: the words around it keep
    their order (as the browser side does, tests/js/texts.test.mjs); other names and numbers as they are."""
    t = TextCatalog(overrides_dir=None).translator("fr")
    assert t("BASKET_TRANSFER.RECEIVED", affiliate="Shop\u202e", recipes=1, products=7) == (
        "Votre panier de \u2068Shop\u202e\u2069\u00a0: 1 recette, 7 produits"
    )
    assert t("BASKET_TRANSFER.RECEIVED", affiliate="Le Magazine Cuisine", recipes=2, products=6) == (
        "Votre panier de Le Magazine Cuisine\u00a0: 2 recettes, 6 produits"
    )


BROWSER_ISOLATION = """
const { isolated } = await import(process.argv[1]);
console.log(JSON.stringify(JSON.parse(process.argv[2]).map((text) => isolated(text))));
"""


def test_the_browser_isolates_the_same_parameters_as_the_server():
    """One list of characters that can reorder a sentence, written twice (prerender/rendering/i18n.py and
    sdk/texts.js): every range's first and last character, and their neighbours outside, agree."""
    node = shutil.which("node")
    assert node, "node is needed (make install)"
    bounds = [(0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFC), (0x061C, 0x061C), (0x200E, 0x200F)]
    bounds += [(0x202A, 0x202E), (0x2066, 0x2069), (0x10800, 0x10FFF), (0x1E800, 0x1EFFF)]
    samples = ["plain", "Épicerie 2", "😀"] + [
        f"a{chr(point)}b" for low, high in bounds for point in (low - 1, low, high, high + 1)
    ]
    texts_js = Path(__file__).resolve().parents[2] / "prerender" / "static" / "sdk" / "texts.js"
    browser = json.loads(
        subprocess.run(
            [node, "--input-type=module", "-e", BROWSER_ISOLATION, texts_js.as_uri(), json.dumps(samples)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert browser == [isolated(text) for text in samples]
    assert browser[samples.index("a\u202eb")] == "\u2068a\u202eb\u2069" and browser[0] == "plain"


def test_a_retailers_versions_of_the_sdks_texts_are_kept_apart_for_the_browser(tmp_path, caplog):
    """An override file's `SDK.*` texts replace the browser SDK's own (its toasts, the drawer's close button, the
    transfer's messages...): checked as any override is, against the base files' `SDK` section, which holds the
    SDK's texts (tests/js/texts.test.mjs keeps the two equal), and given to the fragments by the SDK's keys."""
    (tmp_path / "fr-demo.json").write_text(
        json.dumps(
            {
                "SDK": {
                    "toaster.added": "{count, plural, one {# article ajouté} other {# articles ajoutés}}",
                    "drawer.close": "Fermer la recette",
                    "drawer.retry": "Encore {oops}",  # a parameter the SDK never gives: left out
                    "no.such.key": "?",  # not an SDK text: left out
                    "drawer.loading": "{{count}} en cours",  # the server reads one brace, the SDK would show two
                    # In a plural message too; a message that starts with a field (`{{count}`) is no escape.
                    "details.unavailable-show": "{count, plural, one {{count} seul} other {{{count}}}}",
                },
                "RECIPE_PRICING": {"PER_GUESTS": "par convive"},
            }
        )
    )
    catalog = TextCatalog(overrides_dir=tmp_path)
    assert catalog.translator("fr", "demo").sdk == {
        "toaster.added": "{count, plural, one {# article ajouté} other {# articles ajoutés}}",
        "drawer.close": "Fermer la recette",
    }
    assert catalog.translator("fr").sdk == {} and catalog.translator("en", "demo").sdk == {}
    assert "SDK.drawer.retry names parameters its text is not given (oops)" in caplog.text
    assert "SDK.no.such.key is no text of the service" in caplog.text
    assert "SDK.details.unavailable-show cannot be read by the browser SDK" in caplog.text
    assert "SDK.drawer.loading cannot be read by the browser SDK (a brace written `{{` or `}}`)" in caplog.text

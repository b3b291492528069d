"""Texts by language, with per-retailer overrides of any key.

Base texts live in `prerender/i18n/<lang>.json`. A retailer's `<lang>-<retailer>.json` (chosen by a
`language-id: fr-<retailer>` header) replaces only the keys it names. Override files are looked up in the
configured overrides folder, then beside the base texts. A text may hold plural arguments,
`{count, plural, one {# recette} other {# recettes}}` (`prerender/rendering/plurals.py`), in base and
override files alike.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Context, Decimal, getcontext, localcontext
from pathlib import Path
from typing import Any

from babel.dates import format_date
from babel.numbers import format_currency
from flask import Flask, current_app

from prerender.rendering.plurals import escapes_braces, format_plurals, parameters
from prerender.schemas.headers import SUPPORTED_LANGUAGES
from prerender.web.context import RequestContext

log = logging.getLogger(__name__)

# Money is written to the cent.
CENT = Decimal("0.01")

BASE_DIR = Path(__file__).parent.parent / "i18n"
# The section of the browser SDK's own texts.
SDK_PREFIX = "SDK."
EXTENSION_KEY = "prerender.rendering.i18n"


def _leaves(tree: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """{"A": {"B": "x"}} -> [("A.B", "x")], the values as they are."""
    leaves: list[tuple[str, Any]] = []
    for key, value in tree.items():
        if isinstance(value, dict):
            leaves.extend(_leaves(value, f"{prefix}{key}."))
        else:
            leaves.append((f"{prefix}{key}", value))
    return leaves


def _read(path: Path) -> dict[str, str]:
    """The service's own texts of a language: {"A": {"B": "x"}} -> {"A.B": "x"}."""
    with path.open(encoding="utf-8") as handle:
        return {key: str(value) for key, value in _leaves(json.load(handle))}


def _read_override(path: Path, base: dict[str, str]) -> dict[str, str]:
    """The texts of a retailer's override file that can be shown. A file that is no JSON object of texts is left out
    whole, and a text that is no string, names no key of the base texts, or cannot be read (unbalanced braces, a
    malformed plural argument) is left out alone: the base text stands in, and the log says which and why, once, at
    start. One retailer's typo never stops the service nor reaches a shopper as written."""
    try:
        with path.open(encoding="utf-8") as handle:
            tree = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        log.error("text override %s is not read (%s): the base texts stand in for all of it", path, error)
        return {}
    if not isinstance(tree, dict):
        log.error("text override %s is not a JSON object: the base texts stand in for all of it", path)
        return {}
    texts: dict[str, str] = {}
    for key, value in _leaves(tree):
        reason = _unusable(key, value, base)
        if reason:
            log.warning("text override %s: %s %s, the base text stands in", path, key, reason)
        else:
            texts[key] = str(value)
    return texts


# Parameters a text is given beyond those of its base text: the time texts read `{duration}` since it was added,
# and still get `{minutes}` for the overrides written before (templates/recipe_card/card.html...).
ALSO_GIVEN = {
    "RECIPE_CARD.TOTAL_TIME": {"minutes"},
    "RECIPE_DETAILS.PREPARATION_TIME": {"minutes"},
    "RECIPE_DETAILS.COOKING_TIME": {"minutes"},
}


# Keys a retailer may add beside the base texts': the optional texts the service looks up by a value of the
# upstream (a card's badge for a recipe type, `RECIPE_CARD.TYPE_<type>`, prerender/rendering/cards.py).
OPTIONAL_KEY_PREFIXES = ("RECIPE_CARD.TYPE_",)


def _unusable(key: str, value: Any, base: dict[str, str]) -> str | None:
    """Why an override's text cannot stand for the base text of `key`, or None: it must be a text that reads, and
    name only parameters the base text is given (a name it is not given would show as written); an optional text
    takes none."""
    if key not in base and not key.startswith(OPTIONAL_KEY_PREFIXES):
        return "is no text of the service"
    if not isinstance(value, str):
        return f"is not a text ({type(value).__name__})"
    try:
        unknown = parameters(value) - parameters(base.get(key, "")) - ALSO_GIVEN.get(key, set())
    except ValueError as error:
        return f"cannot be read ({error})"
    if unknown:
        return f"names parameters its text is not given ({', '.join(sorted(unknown))})"
    if key.startswith(SDK_PREFIX) and escapes_braces(value):
        return "cannot be read by the browser SDK (a brace written `{{` or `}}`)"
    return None


# A character that can reorder the text around it: a letter written right to left (Hebrew, Arabic, Syriac,
# Thaana, N'Ko...), or a bidirectional formatting character (marks, embeddings, overrides, isolates).
BIDI_SENSITIVE = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"


def isolated(value: Any) -> Any:
    """A text parameter that could reorder the sentence around it (a store, recipe or supplier name in Arabic,
    or one holding U+202E) between FSI and PDI, as the browser side does (sdk/texts.js): its direction then
    stays its own, and whatever it opens closes at its end. Other values as they are."""
    if isinstance(value, str) and BIDI_SENSITIVE.search(value):
        return f"{FIRST_STRONG_ISOLATE}{value}{POP_DIRECTIONAL_ISOLATE}"
    return value


class _KeepUnknown(dict[str, Any]):
    """format_map mapping that leaves an unknown {name} as written (a retailer override's typo must not
    break a page)."""

    def __missing__(self, name: str) -> str:
        log.warning("text parameter {%s} is not provided", name)
        return "{" + name + "}"


@dataclass(frozen=True)
class Translator:
    """The texts of one language (and retailer variant): `t("RECIPE_PRICING.PER_GUESTS")`."""

    language: str
    texts: dict[str, str] = field(repr=False)
    # A retailer's own versions of the browser SDK's texts (its override file's `SDK.*`), by the SDK's keys: written
    # into the fragments for the SDK to take (templates/scripts.html, static/sdk/texts.js). The base texts' `SDK`
    # section is the SDK's own texts, for the override check to read.
    sdk: dict[str, str] = field(default_factory=dict, repr=False)

    def __call__(self, key: str, **params: Any) -> str:
        text = self.get(key, **params)
        if text is None:
            log.warning("missing text %s for %s", key, self.language)
            return key
        return text

    def get(self, key: str, **params: Any) -> str | None:
        """The text of a key, or None when no language file has it (for optional texts); its plural arguments
        take the message of their parameter's number in the language."""
        text = self.texts.get(key)
        if text is None or not params:
            return text
        try:
            texts = {name: isolated(value) for name, value in params.items()}
            return format_plurals(text, params, self.language).format_map(_KeepUnknown(texts))
        except ValueError:  # unbalanced braces (a retailer override's typo must not break a page)
            log.warning("text %s for %s is malformed: shown as written", key, self.language)
            return text

    def duration(self, minutes: int) -> str:
        """A recipe's time as a cook reads it: "45 min", "2 h", "2 h 30" ("2 h 30 min" in English; DURATION.*), never
        "150 min". The time texts take it as `{duration}`, and `{minutes}` as before for a retailer's override
        written with it."""
        hours, rest = divmod(minutes, 60)
        if not hours:
            return self("DURATION.MINUTES", minutes=minutes)
        if not rest:
            return self("DURATION.HOURS", hours=hours)
        return self("DURATION.HOURS_MINUTES", hours=hours, minutes=rest)

    def time(self, key: str, minutes: int) -> str:
        """A time text (`RECIPE_CARD.TOTAL_TIME`...) for `minutes`: given `{duration}`, and `{minutes}` for the
        overrides written with it (`ALSO_GIVEN`)."""
        return self(key, minutes=minutes, duration=self.duration(minutes))

    def money(self, amount: Decimal, currency: str = "EUR") -> str:
        """A price as the language writes it (2,47 € in French, €2.47 in English; 1 234,50 € and €1,234.50):
        the Unicode CLDR's format, which Babel and the browser's `Intl.NumberFormat` both follow, so a price the
        server renders reads as the same price the browser modules format (components/ui.js, `money`)."""
        digits = amount.adjusted() + 4  # its whole digits, its cents, and one for the rounding
        if digits <= getcontext().prec:
            return money_text(self.language, currency, amount.quantize(CENT, rounding=ROUND_HALF_UP))
        # An amount past the default context's digits (an upstream's absurd total): formatted in a wider one.
        with localcontext(Context(prec=digits)):
            return money_text(self.language, currency, amount.quantize(CENT, rounding=ROUND_HALF_UP))

    def day(self, day: date) -> str:
        """A day as the language writes it in full: "20 novembre 2026", "November 20, 2026" (CLDR's long date,
        as `Intl.DateTimeFormat`'s `dateStyle: "long"`)."""
        return day_text(self.language, day)


@functools.lru_cache(maxsize=8192)
def money_text(language: str, currency: str, cents: Decimal) -> str:
    """Babel's currency format, once per language, currency and amount: formatting costs about 75 µs, and a
    drawer shows dozens of prices, most of them the same from one request to the next."""
    return format_currency(cents, currency, locale=language)


@functools.lru_cache(maxsize=2048)
def day_text(language: str, day: date) -> str:
    return format_date(day, format="long", locale=language)


class TextCatalog:
    """Every language and override file, read once at application start: a `language-id` header can
    only select one of them (an unknown retailer variant gets the base texts)."""

    def __init__(self, *, overrides_dir: Path | None) -> None:
        base = {lang: _read(BASE_DIR / f"{lang}.json") for lang in SUPPORTED_LANGUAGES}
        self._translators: dict[tuple[str, str | None], Translator] = {
            (lang, None): Translator(lang, texts) for lang, texts in base.items()
        }
        # Overrides beside the base texts first, so the operator's folder wins.
        for folder in (BASE_DIR, overrides_dir):
            if folder is None or not folder.is_dir():
                continue
            for path in sorted(folder.glob("*-*.json")):
                language, _, variant = path.stem.partition("-")
                if language in base:
                    texts = _read_override(path, base[language])
                    sdk = {
                        key.removeprefix(SDK_PREFIX): text for key, text in texts.items() if key.startswith(SDK_PREFIX)
                    }
                    self._translators[(language, variant)] = Translator(language, {**base[language], **texts}, sdk)

    def translator(self, language: str, variant: str | None = None) -> Translator:
        """The Translator for `fr` or `fr-<variant>`; an unknown variant falls back to the base texts."""
        return self._translators.get((language, variant)) or self._translators[(language, None)]

    def keys(self, language: str) -> set[str]:
        """The text keys of a base language."""
        return set(self._translators[(language, None)].texts)


def init_i18n(app: Flask) -> None:
    """Load the base texts once (called by the factory). Overrides: I18N_OVERRIDES_DIR or instance/i18n."""
    folder = app.config["I18N_OVERRIDES_DIR"] or Path(app.instance_path) / "i18n"
    app.extensions[EXTENSION_KEY] = TextCatalog(overrides_dir=Path(folder))
    # An upstream name written beside other text in a template (`{{ ingredient.name|isolated }} 100 g`), as the
    # texts' parameters are.
    app.add_template_filter(isolated, "isolated")


def translator(language: str, variant: str | None) -> Translator:
    """The texts of a language-id for the current app."""
    catalog: TextCatalog = current_app.extensions[EXTENSION_KEY]
    return catalog.translator(language, variant)


def translator_for(ctx: RequestContext) -> Translator:
    """The texts of the request's language-id."""
    return translator(ctx.language, ctx.i18n_variant)

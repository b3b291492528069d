"""Texts by language (spec: overridable text keys; DESIGN section 4).

Base texts live in `prerender/i18n/<lang>.json`. A retailer's `<lang>-<retailer>.json` (chosen by a
`language-id: fr-<retailer>` header) replaces only the keys it names. Override files are looked up in the
configured overrides folder, then beside the base texts.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from flask import Flask, current_app

log = logging.getLogger(__name__)

SUPPORTED_LANGUAGES = ("fr", "en")
BASE_DIR = Path(__file__).parent / "i18n"
EXTENSION_KEY = "prerender.i18n"


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """{"A": {"B": "x"}} -> {"A.B": "x"}."""
    flat: dict[str, str] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


def _read(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8") as handle:
        return _flatten(json.load(handle))


@dataclass(frozen=True)
class Translator:
    """The texts of one language (and retailer variant): `t("RECIPE_PRICING.PER_GUESTS")`."""

    language: str
    texts: dict[str, str] = field(repr=False)

    def __call__(self, key: str, **params: Any) -> str:
        text = self.texts.get(key)
        if text is None:
            log.warning("missing text %s for %s", key, self.language)
            return key
        return text.format_map(params) if params else text

    def money(self, amount: Decimal) -> str:
        """A price in euros as the language writes it: 2,47 € in French, €2.47 in English."""
        cents = amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if self.language == "fr":
            return f"{cents:.2f}".replace(".", ",") + "\u00a0€"
        return f"€{cents:.2f}"


class TextCatalog:
    """All base texts, loaded once by the application factory; overrides read lazily and kept."""

    def __init__(self, *, overrides_dir: Path | None) -> None:
        self._base = {lang: _read(BASE_DIR / f"{lang}.json") for lang in SUPPORTED_LANGUAGES}
        self._overrides_dir = overrides_dir
        self._translators: dict[tuple[str, str | None], Translator] = {}

    def translator(self, language: str, variant: str | None = None) -> Translator:
        """The Translator for `fr` or `fr-<variant>`; an unknown variant falls back to the base texts."""
        key = (language, variant)
        if key not in self._translators:
            texts = dict(self._base[language])
            if variant:
                texts.update(self._override(language, variant))
            self._translators[key] = Translator(language, texts)
        return self._translators[key]

    def keys(self, language: str) -> set[str]:
        """The text keys of a base language."""
        return set(self._base[language])

    def _override(self, language: str, variant: str) -> dict[str, str]:
        for folder in (self._overrides_dir, BASE_DIR):
            if folder is None:
                continue
            path = folder / f"{language}-{variant}.json"
            if path.is_file():
                return _read(path)
        return {}


def init_i18n(app: Flask) -> None:
    """Load the base texts once (called by the factory). Overrides: I18N_OVERRIDES_DIR or instance/i18n."""
    folder = app.config["I18N_OVERRIDES_DIR"] or Path(app.instance_path) / "i18n"
    app.extensions[EXTENSION_KEY] = TextCatalog(overrides_dir=Path(folder))


def translator(language: str, variant: str | None) -> Translator:
    """The texts of a language-id for the current app."""
    catalog: TextCatalog = current_app.extensions[EXTENSION_KEY]
    return catalog.translator(language, variant)

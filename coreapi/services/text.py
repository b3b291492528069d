"""Language and text helpers shared by the catalog services."""

from __future__ import annotations

import unicodedata

DEFAULT_LANGUAGE = "fr"

# Ligatures that Unicode does not decompose: "cœur" is found by "coeur".
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae"})


def localized(french: str, english: str | None, language: str) -> str:
    """The English text when asked for and present, the French one otherwise."""
    if language == "en" and english:
        return english
    return french


def search_key(*texts: str | None) -> str:
    """Lower-cased, accent-free text, so a search behaves the same on SQLite and PostgreSQL."""
    joined = " ".join(text for text in texts if text)
    decomposed = unicodedata.normalize("NFKD", joined.casefold().translate(_LIGATURES))
    return "".join(char for char in decomposed if not unicodedata.combining(char))

"""Upstream picture URLs made safe for `src` attributes, for every component that shows one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from prerender.gateway.models import Recipe

# The most ingredient pictures a recipe card shows (`recipes.shouldDisplayIngredientPicturesOnRecipeCard`).
CARD_INGREDIENT_PICTURES = 4

# How a fragment's picture loads (docs/decisions.md, "Pictures: their size, lazy loading and the first card in
# view"; templates/macros/picture.html writes the attributes):
# the likely Largest Contentful Paint of the page: fetched at once, before the other pictures;
HIGH = "high"
# in the first viewport but not the first: fetched at once, at the browser's own priority;
EAGER = "eager"
# below the fold, or where the fragment goes is unknown: fetched when it nears the viewport.
LAZY = "lazy"


def safe_picture_url(url: str) -> str | None:
    """Only absolute http(s) URLs, never javascript: or data: (None: the component's picture placeholder)."""
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def card_ingredient_pictures(recipe: Recipe, limit: int = CARD_INGREDIENT_PICTURES) -> tuple[str, ...]:
    """The ingredient pictures a recipe card may show: the answer's `ingredient_pictures` (summaries and details
    list them, docs/upstream.md), else those of its ingredients; safe URLs only, distinct, at most `limit`."""
    if not recipe.ingredient_pictures:
        return ingredient_pictures(recipe.ingredients, limit)
    safe = (safe_picture_url(url) for url in recipe.ingredient_pictures)
    return tuple(dict.fromkeys(url for url in safe if url))[:limit]


def ingredient_pictures(
    ingredients: Iterable[Mapping[str, Any]], limit: int = CARD_INGREDIENT_PICTURES
) -> tuple[str, ...]:
    """Up to `limit` distinct pictures of a recipe's ingredients, in the recipe's order: each ingredient's first
    candidate product with a safe picture (docs/upstream.md, a detail's `ingredients`)."""
    pictures: dict[str, None] = {}
    for ingredient in ingredients:
        products = ingredient.get("products") if isinstance(ingredient, Mapping) else None
        for product in products if isinstance(products, list) else ():
            url = safe_picture_url(str(product.get("picture_url") or "")) if isinstance(product, Mapping) else None
            if url:
                pictures.setdefault(url)
                break
        if len(pictures) >= limit:
            break
    return tuple(pictures)

"""What a shopper is told of a basket transferred from an affiliated publisher's site (docs/browser-api.md,
"Basket transfers"): the redeem's answer carries the message, in the texts of the request's language and retailer
variant, and the SDK shows it (prerender/static/sdk/transfer.js)."""

from __future__ import annotations

from typing import Any

from prerender.rendering.i18n import Translator


def added_products(changes: list[Any]) -> int:
    """The products a basket write adds to the cart: its `changes` of a positive quantity, each counted once."""
    return sum(1 for change in changes if isinstance(change, dict) and _positive(change.get("quantity")))


def received_message(t: Translator, source: str, *, recipes: int, products: int) -> str:
    """ "Votre panier de <source> : 1 recette, 6 produits" (plural texts), or that it arrived empty."""
    if recipes == 0 and products == 0:
        return t("BASKET_TRANSFER.RECEIVED_EMPTY", affiliate=source)
    return t("BASKET_TRANSFER.RECEIVED", affiliate=source, recipes=recipes, products=products)


def _positive(quantity: object) -> bool:
    return isinstance(quantity, int | float) and not isinstance(quantity, bool) and quantity > 0

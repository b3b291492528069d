"""Store prices and recipe pricing: pure arithmetic on ``Decimal``, no database."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
CURRENCY = "EUR"


def to_cents(amount: Decimal) -> Decimal:
    """Round half up to the cent, the way a till does."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def money_number(amount: Decimal | None) -> float | None:
    """An amount as a JSON number, rounded to the cent."""
    return None if amount is None else float(to_cents(amount))


def shelf_price(base_price: Decimal, price_factor: Decimal) -> Decimal:
    """The price of a product at a store applying ``price_factor`` to the base price."""
    return to_cents(base_price * price_factor)


def prorated_cost(price: Decimal, quantity: Decimal, size: Decimal) -> Decimal:
    """The cost of the part of a product a recipe uses: ``price * quantity / size``."""
    return price * quantity / size


@dataclass(frozen=True)
class Offer:
    """A candidate product for an ingredient, as sold at one store."""

    product_id: int
    size: Decimal
    price: Decimal | None
    available: bool
    promoted: bool

    @property
    def purchasable(self) -> bool:
        return self.available and self.price is not None


NO_FAVORITES: frozenset[int] = frozenset()


def choose(offers: Iterable[Offer], favorites: Collection[int] = NO_FAVORITES) -> Offer | None:
    """The offer an ingredient is bought with, among its candidates best ranked first: the first available,
    priced one that is among the shopper's ``favorites`` (product keys), else the first available, priced one.

    The one place that picks a product for an ingredient: basket lines, menus and recipe details all ask it.
    Reads ``offers`` lazily and stops at the first purchasable one when there are no favorites.
    """
    first: Offer | None = None
    for offer in offers:
        if not offer.purchasable:
            continue
        if offer.product_id in favorites:
            return offer
        if first is None:
            first = offer
            if not favorites:
                break
    return first


@dataclass(frozen=True)
class Line:
    """An ingredient of a recipe: the quantity used and its candidate offers, best ranked first, and the
    shopper's favorite products (keys) when the product is picked for a shopper."""

    quantity: Decimal
    offers: Sequence[Offer]
    favorites: Collection[int] = field(default=NO_FAVORITES)

    @property
    def chosen(self) -> Offer | None:
        """The product the recipe is priced with (``choose``)."""
        return choose(self.offers, self.favorites)


@dataclass(frozen=True)
class Pricing:
    guests: int
    total: Decimal
    price_per_guest: Decimal
    currency: str = CURRENCY


def price_recipe(lines: Iterable[Line], guests: int) -> Pricing | None:
    """Total and price per guest of a recipe, or ``None`` when an ingredient cannot be bought.

    Each ingredient is priced with its chosen product (``Line.chosen``), prorated to the quantity used;
    the sum is rounded to the cent, then divided by the guests and rounded again.
    """
    total = Decimal(0)
    for line in lines:
        offer = line.chosen
        if offer is None or offer.price is None:
            return None
        total += prorated_cost(offer.price, line.quantity, offer.size)
    total = to_cents(total)
    return Pricing(guests=guests, total=total, price_per_guest=to_cents(total / guests))


def is_promoted(lines: Iterable[Line]) -> bool:
    """Whether any product the recipe is priced with is promoted."""
    return any(line.chosen is not None and line.chosen.promoted for line in lines)

"""Quantities: scaling to a number of guests and the text a shopper reads ("600 g", "1,5 kg")."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache

HALF = Decimal("0.5")


@dataclass(frozen=True)
class DisplayUnit:
    """A kitchen measure: how many base units one of it holds, and its names per language."""

    size: Decimal
    names: dict[str, tuple[str, str]]  # language -> (singular, plural)


DISPLAY_UNITS: dict[str, DisplayUnit] = {
    "c. à soupe": DisplayUnit(Decimal(15), {"fr": ("c. à soupe", "c. à soupe"), "en": ("tbsp", "tbsp")}),
    "c. à café": DisplayUnit(Decimal(5), {"fr": ("c. à café", "c. à café"), "en": ("tsp", "tsp")}),
    "pincée": DisplayUnit(Decimal(1), {"fr": ("pincée", "pincées"), "en": ("pinch", "pinches")}),
}

PIECES = {"fr": ("pièce", "pièces"), "en": ("piece", "pieces")}


def scale(quantity: Decimal, guests: int, serves: int) -> Decimal:
    """The quantity for ``serves`` people of a quantity written for ``guests``."""
    if serves == guests:
        return quantity
    return quantity * serves / guests


def packages(quantity: Decimal, guests: int, serves: int, size: Decimal) -> int:
    """The packages of ``size`` that hold ``quantity`` (written for ``guests``) for ``serves``.

    ``ceil(needed / size)``, computed on exact fractions: a recipe needing exactly two packages
    never buys a third through a rounding error.
    """
    quantity_num, quantity_den = _ratio(quantity)
    size_num, size_den = _ratio(size)
    # needed / size = (qn / qd) * serves / (guests * sn / sd), ceiled with integer division.
    return -(-(quantity_num * serves * size_den) // (quantity_den * guests * size_num))


def _ratio(value: Decimal) -> tuple[int, int]:
    """``value`` as an exact ``(numerator, denominator)``, like ``Fraction(value)`` but cheaper."""
    try:
        return value.as_integer_ratio()
    except AttributeError:
        return Fraction(value).as_integer_ratio()


def round_to(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def quantity_number(value: Decimal | None) -> int | float | None:
    """A quantity as a JSON number: an integer when whole, else rounded to three decimals."""
    if value is None:
        return None
    rounded = round_to(value, 3)
    return int(rounded) if rounded == rounded.to_integral_value() else float(rounded)


def round_to_half(value: Decimal) -> Decimal:
    """Nearest half unit, never below one half (there is always something to buy)."""
    halves = (value / HALF).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return max(halves * HALF, HALF)


def format_number(value: Decimal, language: str, places: int = 2) -> str:
    """``value`` with at most ``places`` decimals, no trailing zeros, a decimal comma in French."""
    text = format(round_to(value, places), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", ",") if language == "fr" else text


def _plural(names: tuple[str, str], count: Decimal) -> str:
    return names[1] if count > 1 else names[0]


@lru_cache(maxsize=8192, typed=True)  # a few hundred quantities, for a few numbers of guests
def format_quantity(quantity: Decimal, unit: str, language: str, display_unit: str | None = None) -> str:
    """How a recipe's quantity reads: "600 g", "1,5 kg", "25 ml", "2 c. à soupe", "3"."""
    measure = DISPLAY_UNITS.get(display_unit or "")
    if measure is not None:
        count = round_to_half(quantity / measure.size)
        names = measure.names.get(language, measure.names["fr"])
        return f"{format_number(count, language)} {_plural(names, count)}"
    if unit == "piece":
        return format_number(round_to_half(quantity), language)
    return format_size(quantity, unit, language)


@lru_cache(maxsize=4096)  # a few hundred products, shown again and again
def format_size(value: Decimal, unit: str, language: str) -> str:
    """A product's size or a metric quantity: "500 g", "1 kg", "750 ml", "1,5 l", "6 pièces"."""
    if unit == "piece":
        return f"{format_number(value, language)} {_plural(PIECES.get(language, PIECES['fr']), value)}"
    large = {"g": "kg", "ml": "l"}.get(unit)
    if large is not None and value >= 1000:
        return f"{format_number(value / 1000, language)} {large}"
    places = 0 if value >= 10 else 1
    return f"{format_number(value, language, places)} {unit}"

"""Where the recipe cards go on the shelf: which products surround each card, and the final item list.

The grid is 2 columns on phones and 4 or 5 on desktops. The slots below are chosen so that on desktop
the horizontal card (2 cells wide) starts on a row with room for it, and the "Idées recettes" band starts
on a fresh row at 4 and at 5 columns (20 cells before it); the CSS grid fills any remaining hole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .catalog_client import Product
from .prerender_client import CardContext


@dataclass(frozen=True)
class CardSlot:
    """A card of the single route inserted after `after` products of the shelf."""

    after: int
    display_variant: int
    orientation: str = "vertical"
    # In the first viewport, phone and desktop: its picture is fetched at once and first (prerender's above_fold).
    above_fold: bool = False


SINGLE_SLOTS: tuple[CardSlot, ...] = (
    CardSlot(after=3, display_variant=2, above_fold=True),
    CardSlot(after=7, display_variant=1),
    CardSlot(after=10, display_variant=2, orientation="horizontal"),
    CardSlot(after=13, display_variant=3),
)
# The band of the multiple route comes after this many products...
BAND_AFTER = 15
BAND_SIZE = 4
BAND_DISPLAY_VARIANT = 1
# ...and these are the slot numbers of its cards (the `position` of the multiple route: any unique numbers).
BAND_POSITIONS: tuple[int, ...] = (10, 20, 30, 40)
# The first screen of a phone and of a desktop: the products before the band and the cards among them (at 1280 px
# and wider the band starts some 1 700 px down). The page is painted once they are parsed, not before, and not
# only once the whole page is (templates/shelf.html, after_first_screen).
FIRST_SCREEN_PRODUCTS = BAND_AFTER
# The band starts about 1 650 px down at 1280 px and wider, 2 050 px at 1080, 3 250 px on a phone: no screen less
# tall than this reaches it at any width. A taller one (a monitor in portrait) may: painted at the band, its first
# screen would show the band half parsed, which then grows, so there the first paint waits for the whole shelf
# (templates/shelf.html). One height for every width, with room for a taller header: a 1080x1920 screen waits
# too, though its band is below its first screen.
TALL_SCREEN_PX = 1500


@dataclass(frozen=True)
class ProductItem:
    product: Product
    kind: str = "product"


@dataclass(frozen=True)
class CardItem:
    html: str
    slot: CardSlot
    product_ids: tuple[str, str]
    kind: str = "card"


@dataclass(frozen=True)
class BandCard:
    position: int
    html: str


@dataclass(frozen=True)
class BandItem:
    cards: tuple[BandCard, ...]
    kind: str = "band"


ShelfItem = ProductItem | CardItem | BandItem


def single_requests(products: Sequence[Product]) -> list[tuple[CardSlot, tuple[str, str]]]:
    """The single-route cards to ask for: each slot with the ids of the products on its left and right."""
    return [
        (slot, (products[slot.after - 1].id, products[slot.after].id))
        for slot in SINGLE_SLOTS
        if 0 < slot.after < len(products)
    ]


def alternative_pairs(products: Sequence[Product], slot: CardSlot) -> list[tuple[str, str]]:
    """Other choices of surrounding products for a slot whose first card repeats a recipe of the page:
    neighbours one or two steps further away, nearest first (the random element is seeded by them)."""
    offsets = ((-2, 1), (1, 2), (-3, -2), (2, 3))
    pairs = []
    for left, right in offsets:
        i, j = slot.after + left, slot.after + right
        if 0 <= i < len(products) and 0 <= j < len(products):
            pairs.append((products[i].id, products[j].id))
    return pairs


_CARD_ID = re.compile(r"""\bid\s*=\s*["']?[a-z0-9_-]*?-recipe-card-([^"'\s>]+)""", re.IGNORECASE)


def recipe_id_of(html: str) -> str | None:
    """The recipe of a card fragment, from the id attribute every card carries (`svc-recipe-card-<id>`, README.md)."""
    match = _CARD_ID.search(html)
    return match.group(1) if match else None


def band_contexts(products: Sequence[Product]) -> list[CardContext]:
    """The contexts of the multiple route: pairs of neighbouring products after the band (then before it)."""
    if len(products) <= BAND_AFTER:
        return []
    starts = [*range(BAND_AFTER, len(products) - 1, 2), *range(0, BAND_AFTER - 1, 2)]
    pairs = [(products[i].id, products[i + 1].id) for i in starts][:BAND_SIZE]
    return [
        CardContext(product_ids=pair, position=position) for pair, position in zip(pairs, BAND_POSITIONS, strict=False)
    ]


def assemble(
    products: Sequence[Product], singles: Mapping[CardSlot, tuple[tuple[str, str], str]], band: Mapping[int, str]
) -> list[ShelfItem]:
    """The shelf in display order. Slots without a card (no suggestion, prerender down) are left out;
    the band keeps its cards in ascending `position`, whatever order they arrived in."""
    by_after = {slot.after: (slot, ids, html) for slot, (ids, html) in singles.items() if html}
    band_cards = tuple(BandCard(position, band[position]) for position in sorted(band) if band[position])
    items: list[ShelfItem] = []
    for index, product in enumerate(products):
        if index in by_after:
            slot, ids, html = by_after[index]
            items.append(CardItem(html=html, slot=slot, product_ids=ids))
        if index == BAND_AFTER and band_cards:
            items.append(BandItem(cards=band_cards))
        items.append(ProductItem(product))
    return items


def after_first_screen(items: Sequence[ShelfItem]) -> int | None:
    """The index in `items` of the first item after the first screen (FIRST_SCREEN_PRODUCTS): the band, or the
    next product. Chromium paints once that item's start is parsed, so the whole first screen is. None on a
    shelf with nothing after its first screen, which is painted once parsed whole."""
    products = 0
    for index, item in enumerate(items):
        if products == FIRST_SCREEN_PRODUCTS:
            return index
        if isinstance(item, ProductItem):
            products += 1
    return None

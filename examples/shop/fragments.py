"""Fetching the prerender fragments of one shelf page: concurrently, within a time budget, without
showing the same recipe twice.

Wave 1 asks for everything at once (single cards, the multiple-route band, the stylesheets). A single card
whose recipe is already on the page (the band's, or another card's) is asked again with a few other pairs
of nearby products at once (wave 2); the first new recipe wins, else the slot stays empty. Two cards of one recipe
would also give two elements the same id (`svc-recipe-card-<recipe_id>`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass
from typing import Any

from .catalog_client import Product
from .prerender_client import PrerenderClient
from .shelf import BAND_DISPLAY_VARIANT, CardSlot, alternative_pairs, band_contexts, recipe_id_of, single_requests
from .visitor import Visitor

log = logging.getLogger(__name__)

STYLE_COMPONENTS = ("base", "recipe-card")


@dataclass(frozen=True)
class ShelfFragments:
    # slot -> (the surrounding product ids actually sent, the card's HTML); slots without a card are absent
    singles: dict[CardSlot, tuple[tuple[str, str], str]]
    # position -> HTML of the band's cards (only positions that got a card)
    band: dict[int, str]
    # the <link> tags of prerender's stylesheets
    styles_html: str


def _result(future: Future, default: Any) -> Any:
    """A fragment's answer, or the empty default when it is late (the client already logs failures)."""
    if not future.done():
        log.warning("a prerender fragment missed the page budget; left out")
        return default
    error = future.exception()
    if error is not None:
        log.error("prerender fragment failed unexpectedly: %r", error)
        return default
    return future.result()


def fetch_shelf_fragments(
    prerender: PrerenderClient,
    pool: Executor,
    visitor: Visitor,
    products: Sequence[Product],
    *,
    budget: float,
    request_id: str | None = None,
) -> ShelfFragments:
    deadline = time.monotonic() + budget

    def remaining() -> float:
        return max(0.0, deadline - time.monotonic())

    def ask(slot: CardSlot, ids: tuple[str, str]) -> Future:
        return pool.submit(
            prerender.recipe_card,
            visitor,
            ids,
            store_id=visitor.store_id,
            display_variant=slot.display_variant,
            orientation=slot.orientation,
            above_fold=slot.above_fold,
            request_id=request_id,
        )

    singles = {slot: (ids, ask(slot, ids)) for slot, ids in single_requests(products)}
    band_future = pool.submit(
        prerender.recipe_cards,
        visitor,
        band_contexts(products),
        store_id=visitor.store_id,
        display_variant=BAND_DISPLAY_VARIANT,
        request_id=request_id,
    )
    style_futures = [pool.submit(prerender.styles, visitor, name, request_id=request_id) for name in STYLE_COMPONENTS]
    wait([f for _, f in singles.values()] + [band_future, *style_futures], timeout=remaining())

    band: dict[int, str] = _result(band_future, {})
    seen = {rid for rid in map(recipe_id_of, band.values()) if rid}
    chosen: dict[CardSlot, tuple[tuple[str, str], str]] = {}

    def keep(slot: CardSlot, ids: tuple[str, str], html: str) -> bool:
        recipe_id = recipe_id_of(html)
        if recipe_id is not None and recipe_id in seen:
            return False
        if recipe_id is not None:
            seen.add(recipe_id)
        chosen[slot] = (ids, html)
        return True

    # The horizontal card first (one per page, the widest), then the others in display order.
    retries: dict[CardSlot, list[tuple[tuple[str, str], Future]]] = {}
    for slot in sorted(singles, key=lambda s: (s.orientation != "horizontal", s.after)):
        ids, future = singles[slot]
        html = _result(future, "")
        if html and not keep(slot, ids, html) and remaining() > 0:
            retries[slot] = [(pair, ask(slot, pair)) for pair in alternative_pairs(products, slot)]
    if retries:
        wait([f for attempts in retries.values() for _, f in attempts], timeout=remaining())
        for slot, attempts in retries.items():
            if not any((html := _result(f, "")) and keep(slot, ids, html) for ids, f in attempts):
                log.info("no other recipe for the card after product %d: slot left empty", slot.after)

    found = {slot: chosen[slot] for slot in singles if slot in chosen}
    # No card, no stylesheet: links kept from an earlier page would point at a prerender that may not answer now,
    # and a stylesheet in <head> holds the whole page's first paint until it arrives.
    styles = "".join(_result(f, "") for f in style_futures) if found or band else ""
    return ShelfFragments(singles=found, band=band, styles_html=styles)

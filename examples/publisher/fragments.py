"""The prerender fragments of a recipe page: the no-supplier add-to-cart button and its stylesheets, asked
concurrently, within what is left of the page's budget.

The button comes with the links of prerender's `base` and `recipe-card` stylesheets (the latter holds the
button's and its drawer's styles), or not at all: a recipe prerender does not know (an empty body), a failure,
a late answer or missing stylesheets all leave the page without it, never with an error.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor, Future, wait
from dataclasses import dataclass
from typing import Any

from .prerender_client import PrerenderClient
from .reader import Reader

log = logging.getLogger(__name__)

# The button's stylesheets: the design system, and the recipe card's (the button and the drawer).
STYLE_COMPONENTS = ("base", "recipe-card")


@dataclass(frozen=True)
class RecipeFragments:
    # The button's HTML (its element, module scripts and the reader's credential), or "".
    cta_html: str = ""
    # The <link> tags for <head>, "" without a button.
    styles_html: str = ""


def _result(future: Future, default: Any) -> Any:
    """A fragment's answer, or the empty default when it is late (the client already logs failures)."""
    if not future.done():
        future.cancel()
        log.warning("a prerender fragment missed the page budget; left out")
        return default
    error = future.exception()
    if error is not None:
        log.error("prerender fragment failed unexpectedly: %r", error)
        return default
    return future.result()


def fetch_recipe_fragments(
    prerender: PrerenderClient,
    pool: Executor,
    reader: Reader,
    recipe_id: str,
    *,
    guests: int,
    budget: float,
    request_id: str | None = None,
) -> RecipeFragments:
    """The button of `recipe_id` for `guests` and its stylesheets, within `budget` seconds. Nothing for a reader
    without an authless id (prerender could not issue one)."""
    if not reader.authless_id or budget <= 0:
        return RecipeFragments()
    cta = pool.submit(prerender.add_to_cart_cta, reader, recipe_id, guests=guests, request_id=request_id)
    styles = [pool.submit(prerender.styles, reader, name, request_id=request_id) for name in STYLE_COMPONENTS]
    wait([cta, *styles], timeout=budget)
    html: str = _result(cta, "")
    links: list[str] = [_result(future, "") for future in styles]
    if not html:
        return RecipeFragments()
    if not all(links):
        # Unstyled, the button and its drawer would spill over the article: better no button.
        log.warning("prerender stylesheets missing (request %s): the recipe goes without its button", request_id)
        return RecipeFragments()
    return RecipeFragments(cta_html=html, styles_html="".join(links))

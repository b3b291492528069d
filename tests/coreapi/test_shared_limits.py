"""prerender's documented limits (prerender/schemas/limits.py) against the reference upstream's (coreapi/schemas/):
a value prerender accepts and forwards must be one the upstream takes, or the shopper gets the upstream's 400 for a
request prerender said was valid. Each service keeps its own constants, as any upstream may sit behind prerender;
this test is what ties them. Where prerender is stricter (fewer contexts or events per call) that is its choice."""

from __future__ import annotations

import pytest

from coreapi.models import MAX_FAVORITE_ITEMS as UPSTREAM_FAVORITE_ITEMS
from coreapi.schemas import baskets, events, recipes, suggestions
from coreapi.services.identity import MAX_ID_LENGTH as UPSTREAM_ID_LENGTH
from prerender.schemas import limits

# (prerender's limit, the upstream's, what it bounds)
FORWARDED = [
    (limits.MAX_SERVES, recipes.MAX_SERVES, "a recipe's guests"),
    (limits.MAX_LINE_QUANTITY, baskets.MAX_LINE_QUANTITY, "a basket line's packages"),
    (limits.MAX_RECIPE_LINES, baskets.MAX_RECIPE_LINES, "the choices sent with a recipe"),
    (limits.MAX_CART_QUANTITY, baskets.MAX_CART_QUANTITY, "a retailer cart line's quantity"),
    (limits.MAX_CART_LINES, baskets.MAX_CART_LINES, "a retailer cart's lines"),
    (limits.MAX_REPORTED_AT, baskets.MAX_REPORTED_AT, "when a browser reported its cart"),
    (limits.MAX_ORDER_ID, UPSTREAM_ID_LENGTH, "an order id"),
    (limits.MAX_ID_LENGTH, UPSTREAM_ID_LENGTH, "a shopper's id"),
    (limits.MAX_CONTEXTS, suggestions.MAX_CONTEXTS, "the multiple route's product contexts"),
    (limits.MAX_SURROUNDING_PRODUCT_IDS, suggestions.MAX_SURROUNDING, "a context's surrounding products"),
    (limits.MAX_CURRENT_PRODUCT_IDS, suggestions.MAX_CURRENT, "the products already shown"),
    (limits.MAX_EVENTS, events.MAX_EVENTS, "the events of one call"),
    (limits.MAX_EVENT_PATH, events.MAX_PATH_LENGTH, "an event's path"),
    (limits.MAX_EVENT_PROPS, events.MAX_PROPS, "an event's properties"),
    (limits.MAX_FAVORITE_ITEMS, UPSTREAM_FAVORITE_ITEMS, "a shopper's favorite products"),
]


@pytest.mark.parametrize(("ours", "upstream", "what"), FORWARDED, ids=[what for _, _, what in FORWARDED])
def test_prerender_accepts_no_more_than_the_upstream_takes(ours: float, upstream: float, what: str) -> None:
    assert ours <= upstream, f"{what}: prerender accepts {ours}, the upstream takes {upstream}"

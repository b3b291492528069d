"""The shopper's own catalog pages in v2 (rendering/my_space.py): my-space and the basket preview."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.my_space import basket_preview_fragment, my_space_fragment
from prerender.schemas.catalog import BasketPreviewQuery, MySpaceQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, Callers, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("my_space", __name__, url_prefix="/catalog")

BAD_REQUEST = {400: problem("Invalid parameters or headers, or an unknown store.")}


@bp.get("/my-space")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="My space: favorites and history (v2)",
    query=MySpaceQuery(),
    answers={
        200: html(
            "The Favorites and History tabs (none with show_tab_selector=false: the title names the section) and "
            "the active tab: the liked recipes, or the recipes of the shopper's confirmed baskets, newest first, "
            "as a list or a grid (history_style)."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def my_space(query: dict[str, Any]) -> Response:
    """The shopper's favorites or history."""
    return fragment_response(lambda: my_space_fragment(current_context(), query))


@bp.get("/my-space/basket-preview")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The basket preview (v2)",
    query=BasketPreviewQuery(),
    answers={
        200: html(
            "The recipes in the shopper's basket with their guests, products and price, each removable, the total "
            "and a link to the retailer's cart; embed=true: without page chrome."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def basket_preview(query: dict[str, Any]) -> Response:
    """The shopper's basket, recipe by recipe."""
    return fragment_response(lambda: basket_preview_fragment(current_context(), query))

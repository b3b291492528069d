"""The basket preview, v2 only (rendering/my_space.py): the shopper's basket, recipe by recipe."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.my_space import basket_preview_fragment
from prerender.schemas.catalog import BasketPreviewQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, Callers, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("basket_preview", __name__, url_prefix="/catalog")


@bp.get("/my-space/basket-preview", head=False)  # with store_id, it moves the basket
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The basket preview (v2)",
    query=BasketPreviewQuery(),
    answers={
        200: html(
            "The recipes in the shopper's basket with their guests, products and price, each removable, the total "
            "and a link to the retailer's cart; embed=true: without page chrome. At a store the service does not "
            "know: the empty basket."
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters or headers."),
    },
)
def basket_preview(query: dict[str, Any]) -> Response:
    """The shopper's basket, recipe by recipe."""
    return fragment_response(lambda: basket_preview_fragment(current_context(), query))

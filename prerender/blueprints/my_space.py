"""The shopper's own catalog page, v1 and v2 (rendering/my_space.py): my-space, its Favorites and History tabs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.my_space import my_space_fragment
from prerender.schemas.catalog import MY_SPACE_QUERIES
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, Callers, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("my_space", __name__, url_prefix="/catalog")


@bp.get("/my-space")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="My space: favorites and history",
    query=MY_SPACE_QUERIES,
    answers={
        200: html(
            "The Favorites and History tabs (none with show_tab_selector=false: the title names the section) and "
            "the active tab: the liked recipes, or the recipes of the shopper's confirmed baskets, newest first, "
            "as a list or a grid (history_style: `list` by default in v2, `grid` in v1)."
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters or headers, or an unknown store."),
    },
)
def my_space(query: dict[str, Any]) -> Response:
    """The shopper's favorites or history."""
    return fragment_response(lambda: my_space_fragment(current_context(), query))

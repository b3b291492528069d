"""The favorites page (v1 only: v2 answers 410, prerender/blueprints/removed.py; its my-space has the
favorites tab)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.my_space import favorites_fragment
from prerender.schemas.catalog import FavoritesQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, Callers, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("favorites", __name__, url_prefix="/catalog")

BAD_REQUEST = {400: problem("Invalid parameters or headers, or an unknown store.")}


@bp.get("/favorites")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The user's favorite recipes (v1)",
    query=FavoritesQuery(),
    answers={
        200: html(
            "The liked recipes of the connected user as cards, most recent first (20 a page), or a prompt to log "
            "in for a logged-out shopper; then the shopper's credential."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def favorites(query: dict[str, Any]) -> Response:
    """The connected user's liked recipes."""
    return fragment_response(lambda: favorites_fragment(current_context(), query))

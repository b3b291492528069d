"""GET /{v}/recipe-details: the drawer's content for a recipe (docs/browser-api.md)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.exceptions import NotFound

from prerender.rendering.details import load_details, render_details
from prerender.schemas.actions import DetailsQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, UPSTREAM_FAILURES, Callers, declare, html, problem
from prerender.web.degraded import marked_if_degraded
from prerender.web.http_caching import PUBLIC, cache_policy

bp = Blueprint("recipe_details", __name__)


@bp.get("/recipe-details")
@cache_policy(PUBLIC)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The recipe drawer's content",
    query=DetailsQuery(),
    answers={
        200: html("The <svc-recipe-details> fragment."),
        304: NOT_MODIFIED,
        404: problem("Unknown recipe."),
        **UPSTREAM_FAILURES,
    },
)
def get_details(query: dict[str, Any]) -> Response:
    """Shopping and cooking tabs of one recipe at a store for a number of guests."""
    ctx = current_context()
    details = load_details(ctx, query["recipe_id"], store_id=query["store_id"], guests=query["guests"])
    if details is None:
        raise NotFound(f"No recipe {query['recipe_id']}.")
    response = Response(render_details(details, ctx), mimetype="text/html")
    # Made from the last good copy while the upstream fails: said so, and not shared (prerender/web/degraded.py).
    return marked_if_degraded(response)

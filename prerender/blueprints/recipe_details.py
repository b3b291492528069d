"""GET /{v}/recipe-details: the drawer's content for a recipe (docs/browser-api.md)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.exceptions import NotFound

from prerender.rendering.cards import CardOptions, fixed_recipe, translator_for
from prerender.web.context import current_context
from prerender.rendering.details import build_details, render_details
from prerender.web.errors import ValidationProblem
from prerender.gateway import UnknownStore
from prerender.web.http_caching import PUBLIC, cache_policy
from prerender.schemas.actions import DetailsQuery
from prerender.web.parsing import use_args

bp = Blueprint("recipe_details", __name__)


@bp.get("/recipe-details")
@cache_policy(PUBLIC)
@use_args(DetailsQuery(), location="query")
def get_details(args: dict[str, Any]) -> Response:
    """Shopping and cooking tabs of one recipe at a store for a number of guests."""
    ctx = current_context()
    options = CardOptions(display_variant=1, orientation="vertical", store_id=args["store_id"],
                          serves=args["guests"])
    try:
        recipe = fixed_recipe(ctx, args["recipe_id"], options)
    except UnknownStore as error:
        raise ValidationProblem({"query": {"store_id": ["Unknown store."]}}) from error
    if recipe is None:
        raise NotFound(f"No recipe {args['recipe_id']}.")
    details = build_details(recipe, ctx, store_id=args["store_id"], guests=args["guests"], t=translator_for(ctx))
    return Response(render_details(details, ctx), mimetype="text/html")

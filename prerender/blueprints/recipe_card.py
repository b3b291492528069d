"""GET /{v}/recipe-card: one recipe card as HTML (spec: GET recipe-card)."""
from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response

from ..cards import CardOptions, build_card, is_displayable, render_card, translator_for, wants_likes
from ..context import current_context
from ..errors import ValidationProblem
from ..gateway import Recipe, SuggestionContext, UnknownStore, UpstreamError, get_gateway
from ..schemas.parsing import use_args
from ..schemas.recipe_card import card_query

log = logging.getLogger(__name__)

bp = Blueprint("recipe_card", __name__)

UNKNOWN_STORE = {"query": {"store_id": ["Unknown store."]}}


def html(body: str) -> Response:
    return Response(body, mimetype="text/html")


@bp.get("/recipe-card")
@use_args(card_query, location="query")
def get_card(args: dict[str, Any]) -> Response:
    """One card: a fixed recipe (recipe_id) or one suggested for the surrounding products."""
    ctx = current_context()
    gateway = get_gateway()
    options = CardOptions(display_variant=args["display_variant"], orientation=args["orientation"],
                          store_id=args["store_id"], serves=args["serves"])
    try:
        recipe = _choose_recipe(args, options)
        if not is_displayable(recipe, options):
            return html("")
        liked = wants_likes(ctx) and recipe.id in gateway.liked_recipe_ids(ctx.upstream, [recipe.id])
    except UnknownStore as error:
        raise ValidationProblem(UNKNOWN_STORE) from error
    except UpstreamError as error:
        log.error("recipe card rendered empty, request %s: %s", ctx.request_id, error)
        return html("")
    t = translator_for(ctx)
    return html(render_card(build_card(recipe, options, ctx, liked=liked, t=t), t))


def _choose_recipe(args: dict[str, Any], options: CardOptions) -> Recipe | None:
    """recipe_id wins when both selectors are given (a fixed recipe always shows the same recipe)."""
    ctx = current_context()
    gateway = get_gateway()
    recipe_id = args.get("recipe_id")
    if recipe_id is None:
        context = SuggestionContext(key="0", surrounding_product_ids=tuple(args["surrounding_products_ids"]),
                                    current_product_ids=tuple(args["current_products_ids"]))
        recipe_id = gateway.suggest(ctx.upstream, [context], store_id=options.store_id).get("0")
        if recipe_id is None:
            return None
    return gateway.recipe(ctx.upstream, recipe_id, store_id=options.store_id, serves=options.serves)

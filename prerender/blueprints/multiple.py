"""POST /{v}/recipe-card/multiple: many cards as JSON, one per product context (spec: multiple route)."""
from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import UnsupportedMediaType

from ..cards import CardOptions, build_card, is_displayable, render_card, translator_for, wants_likes
from ..context import current_context
from ..errors import ValidationProblem
from ..gateway import SuggestionContext, UnknownStore, UpstreamError, get_gateway
from ..schemas.parsing import parser
from ..schemas.recipe_card import multiple_body, multiple_query

log = logging.getLogger(__name__)

bp = Blueprint("multiple", __name__)

OPTION_DEFAULTS: dict[str, Any] = {"store_id": None, "display_variant": 1, "orientation": "vertical",
                                   "serves": None}


@bp.post("/recipe-card/multiple")
def post_multiple() -> Response:
    """Cards for many contexts in a fixed number of upstream calls, sorted by position."""
    if not request.is_json:
        raise UnsupportedMediaType("Send the body as JSON with 'Content-Type: application/json'.")
    body = parser.parse(multiple_body, request, location="json")
    query = parser.parse(multiple_query, request, location="query")
    options = CardOptions(**_merge_options(query, body))
    ctx = current_context()
    gateway = get_gateway()
    contexts = [SuggestionContext(key=str(c["position"]), surrounding_product_ids=tuple(c["productIds"]))
                for c in body["contexts"]]
    html_by_position = {c["position"]: "" for c in body["contexts"]}
    try:
        chosen = gateway.suggest(ctx.upstream, contexts, store_id=options.store_id,
                                 category_id=body["categoryId"], keyword=body["keyword"])
        recipes = gateway.recipes(ctx.upstream, [rid for rid in chosen.values() if rid],
                                  store_id=options.store_id, serves=options.serves)
        shown = {key: recipes.get(rid) for key, rid in chosen.items() if rid}
        shown = {key: recipe for key, recipe in shown.items() if is_displayable(recipe, options)}
        liked = (gateway.liked_recipe_ids(ctx.upstream, [r.id for r in shown.values()])
                 if wants_likes(ctx) and shown else set())
    except UnknownStore as error:
        raise ValidationProblem({"query": {"store_id": ["Unknown store."]}}) from error
    except UpstreamError as error:
        log.error("multiple cards rendered empty, request %s: %s", ctx.request_id, error)
        shown, liked = {}, set()
    t = translator_for(ctx)
    for key, recipe in shown.items():
        card = build_card(recipe, options, ctx, liked=recipe.id in liked, t=t)
        html_by_position[int(key)] = render_card(card, t)
    return jsonify(data=[{"html": html_by_position[p], "position": p} for p in sorted(html_by_position)])


def _merge_options(query: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """Display options may come in the query or the body; both with different values is a 400."""
    merged: dict[str, Any] = {}
    conflicts: dict[str, list[str]] = {}
    for name, default in OPTION_DEFAULTS.items():
        in_query, in_body = query.get(name), body.get(name)
        if in_query is not None and in_body is not None and in_query != in_body:
            conflicts[name] = ["Given in the query and in the body with different values."]
        merged[name] = in_body if in_body is not None else in_query if in_query is not None else default
    if conflicts:
        raise ValidationProblem({"json": conflicts})
    return merged

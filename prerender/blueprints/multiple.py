"""POST /{v}/recipe-card/multiple: many cards as JSON, one per product context (spec: multiple route)."""
from __future__ import annotations

import logging

from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import UnsupportedMediaType

from prerender.rendering.cards import CardOptions, suggested_cards
from prerender.web.context import current_context
from prerender.web.errors import ValidationProblem
from prerender.gateway import SuggestionContext, UnknownStore, UpstreamError
from prerender.web.parsing import parser
from prerender.schemas.recipe_card import merge_multiple_options, multiple_body, multiple_query

log = logging.getLogger(__name__)

bp = Blueprint("multiple", __name__)


@bp.post("/recipe-card/multiple")
def post_multiple() -> Response:
    """Cards for many contexts in a fixed number of upstream calls, sorted by position."""
    if not request.is_json:
        raise UnsupportedMediaType("Send the body as JSON with 'Content-Type: application/json'.")
    body = parser.parse(multiple_body, request, location="json")
    options, sources = merge_multiple_options(parser.parse(multiple_query, request, location="query"), body)
    options = CardOptions(**options)
    ctx = current_context()
    contexts = [SuggestionContext(key=str(c["position"]), surrounding_product_ids=tuple(c["productIds"]))
                for c in body["contexts"]]
    try:
        html = suggested_cards(ctx, contexts, options, category_id=body["categoryId"], keyword=body["keyword"])
    except UnknownStore as error:
        raise ValidationProblem({sources["store_id"]: {"store_id": ["Unknown store."]}}) from error
    except UpstreamError as error:
        log.error("multiple cards rendered empty, request %s: %s", ctx.request_id, error)
        html = {context.key: "" for context in contexts}
    positions = sorted(c["position"] for c in body["contexts"])
    return jsonify(data=[{"html": html[str(p)], "position": p} for p in positions])

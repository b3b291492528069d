"""GET /{v}/recipe-card: one recipe card as HTML (spec: GET recipe-card)."""
from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response

from prerender.rendering.cards import CardOptions, fixed_card, suggested_cards
from prerender.web.context import current_context
from prerender.web.errors import ValidationProblem
from prerender.rendering.fragments import fragment_etag
from prerender.gateway import SuggestionContext, UnknownStore, UpstreamError
from prerender.web.http_caching import PRIVATE, PUBLIC, set_policy
from prerender.web.parsing import use_args
from prerender.schemas.recipe_card import card_query

log = logging.getLogger(__name__)

bp = Blueprint("recipe_card", __name__)


@bp.get("/recipe-card")
@use_args(card_query, location="query")
def get_card(args: dict[str, Any]) -> Response:
    """One card: a fixed recipe (recipe_id wins when both are sent) or one suggested for the products."""
    ctx = current_context()
    options = CardOptions(display_variant=args["display_variant"], orientation=args["orientation"],
                          store_id=args["store_id"], serves=args["serves"])
    # Shared caches may keep a fixed recipe's card of a supplier with personalization disabled: it is the
    # same for every user (spec, item 8). Suggestions depend on the session, hearts on the user.
    fixed = "recipe_id" in args
    set_policy(PUBLIC if fixed and ctx.supplier is not None and not ctx.supplier.personalization else PRIVATE)
    try:
        if fixed:
            html = fixed_card(ctx, args["recipe_id"], options)
        else:
            context = SuggestionContext(key="card", surrounding_product_ids=tuple(args["surrounding_products_ids"]),
                                        current_product_ids=tuple(args["current_products_ids"]))
            html = suggested_cards(ctx, [context], options)["card"]
    except UnknownStore as error:
        raise ValidationProblem({"query": {"store_id": ["Unknown store."]}}) from error
    except UpstreamError as error:
        log.error("recipe card rendered empty, request %s: %s", ctx.request_id, error)
        set_policy(PRIVATE)  # an outage's empty card must not be shared by caches as the answer
        html = ""
    response = Response(html, mimetype="text/html")
    response.set_etag(fragment_etag(html))  # what http_caching would compute, without hashing a known card
    return response

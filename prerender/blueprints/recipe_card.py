"""GET /{v}/recipe-card: one recipe card as HTML."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response

from prerender.gateway import SuggestionContext, UnknownStore, UpstreamError
from prerender.rendering.cards import CardOptions, fixed_card, suggested_cards
from prerender.rendering.fragments import fragment_etag
from prerender.rendering.shopper import with_shopper
from prerender.schemas.recipe_card import CARD_QUERIES
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html, problem
from prerender.web.http_caching import PRIVATE, PUBLIC, set_policy

log = logging.getLogger(__name__)

bp = Blueprint("recipe_card", __name__)


@bp.get("/recipe-card")
@declare(
    summary="One recipe card",
    query=CARD_QUERIES,
    answers={
        200: html("The card fragment; an empty body when no recipe fits or the upstream failed."),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters or headers, neither selector, or an unknown store."),
    },
)
def get_card(query: dict[str, Any]) -> Response:
    """One card: a fixed recipe (recipe_id wins when both are sent) or one suggested for the products."""
    ctx = current_context()
    options = CardOptions(
        display_variant=query["display_variant"],
        orientation=query["orientation"],
        store_id=query["store_id"],
        serves=query["serves"],
        above_fold=query["above_fold"],
    )
    # Shared caches may keep a fixed recipe's card of a supplier with personalization disabled: it is the
    # same for every user. Suggestions depend on the session, hearts on the user.
    fixed = "recipe_id" in query
    public = fixed and ctx.supplier is not None and not ctx.supplier.personalization
    set_policy(PUBLIC if public else PRIVATE)
    try:
        if fixed:
            fragment = fixed_card(ctx, query["recipe_id"], options)
        else:
            context = SuggestionContext(
                key="card",
                surrounding_product_ids=tuple(query["surrounding_products_ids"]),
                current_product_ids=tuple(query["current_products_ids"]),
            )
            fragment = suggested_cards(ctx, [context], options)["card"]
    except UnknownStore:
        raise  # the customer's integration has a bug it should see: 400 (prerender/web/errors.py)
    except UpstreamError as error:
        log.error("recipe card rendered empty, request %s: %s", ctx.request_id, error)
        set_policy(PRIVATE)  # an outage's empty card must not be shared by caches as the answer
        fragment = ""
    etag = fragment_etag(fragment)  # what http_caching would compute, without hashing a known card
    if fragment and not public:  # a private card brings the browser its shopper's credential
        fragment, etag = with_shopper(fragment, etag, ctx)
    response = Response(fragment, mimetype="text/html")
    response.set_etag(etag)
    return response

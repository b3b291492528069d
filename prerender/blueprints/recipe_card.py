"""GET /{v}/recipe-card: one recipe card as HTML."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.gateway import SuggestionContext
from prerender.rendering.cards import CardOptions, fixed_card, suggested_cards
from prerender.schemas.recipe_card import CARD_QUERIES
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html, problem
from prerender.web.fragment_response import fragment_response

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
    if fixed:
        return fragment_response(
            lambda: fixed_card(ctx, query["recipe_id"], options),
            shared=ctx.supplier is not None and not ctx.supplier.personalization,
        )
    context = SuggestionContext(
        key="card",
        surrounding_product_ids=tuple(query["surrounding_products_ids"]),
        current_product_ids=tuple(query["current_products_ids"]),
    )
    return fragment_response(lambda: suggested_cards(ctx, [context], options)["card"])

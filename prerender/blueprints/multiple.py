"""POST /{v}/recipe-card/multiple: many cards as JSON, one per product context."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from plumbing.problems import ValidationProblem
from prerender.gateway import SuggestionContext
from prerender.rendering.cards import CardOptions, suggested_cards
from prerender.schemas.recipe_card import MULTIPLE_BODIES, MULTIPLE_OPTION_DEFAULTS, MULTIPLE_QUERIES
from prerender.schemas.responses import CardsSchema
from prerender.web.context import current_context
from prerender.web.contract import declare, json_answer, problem
from prerender.web.degraded import marked_if_degraded
from prerender.web.fragment_response import rendered_or_degraded
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.web.shopper import shopper_element

bp = Blueprint("multiple", __name__)

DEMO_BODY = {
    "contexts": [
        {"productIds": ["100001", "100002"], "position": 4},
        {"productIds": ["100010", "100011"], "position": 1},
    ],
    "keyword": None,
    "categoryId": None,
    "display_variant": 2,
    "store_id": "1001",
}


@bp.post("/recipe-card/multiple")
@cache_policy(PRIVATE)  # each card carries the shopper's credential
@declare(
    summary="Many recipe cards in one call",
    query=MULTIPLE_QUERIES,
    body=MULTIPLE_BODIES,
    body_example=DEMO_BODY,
    answers={
        200: json_answer(CardsSchema, "One card per context, sorted by position."),
        400: problem("Invalid parameters or headers, an option given twice, or an unknown store."),
    },
)
def post_multiple(query: dict[str, Any], body: dict[str, Any]) -> Response:
    """Cards for many contexts in a fixed number of upstream calls, sorted by position."""
    options = CardOptions(**merge_options(query, body))
    ctx = current_context()
    contexts = [
        SuggestionContext(key=str(c["position"]), surrounding_product_ids=tuple(c["productIds"]))
        for c in body["contexts"]
    ]
    positions = sorted(c["position"] for c in body["contexts"])
    # An unknown store is the customer's bug, which it should see: a 400 (prerender/web/errors.py); any other
    # upstream failure is every card empty, as a fragment route answers its empty fragment.
    html, failed = rendered_or_degraded(
        lambda: suggested_cards(
            ctx,
            contexts,
            options,
            category_id=body["categoryId"],
            keyword=body["keyword"],
            order=[str(p) for p in positions],  # above the fold, the lowest position's card comes first
        ),
        lambda: {context.key: "" for context in contexts},
    )
    # Each card brings the shopper's credential (the page may insert any of them): suggestions are private.
    element = shopper_element(ctx)
    response = jsonify(
        data=[{"html": html[str(p)] + element if html[str(p)] else "", "position": p} for p in positions]
    )
    # As every fragment route does (prerender/web/fragment_response.py): said so, and kept by no cache.
    return marked_if_degraded(response, failed=failed)


def merge_options(query: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The display options, from the query or the body (either may carry them, docs/decisions.md); the
    same option with different values in both is a 400 rather than a silent choice."""
    options: dict[str, Any] = {}
    conflict = ["Given in the query and in the body with different values."]
    for name, default in MULTIPLE_OPTION_DEFAULTS.items():
        in_query, in_body = query.get(name), body.get(name)
        if in_query is not None and in_body is not None and in_query != in_body:
            raise ValidationProblem({"query": {name: conflict}, "json": {name: conflict}})
        options[name] = in_body if in_body is not None else in_query if in_query is not None else default
    return options

"""The browser's basket routes (docs/browser-api.md): validated forwards to the upstream basket, for the
shopper of the browser's credential only (docs/security.md); the merge is also the customer's server's."""

from __future__ import annotations

import functools
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from prerender.gateway import baskets
from prerender.schemas.actions import (
    AddRecipeBody,
    ConfirmBody,
    IngredientLineBody,
    IngredientPath,
    MergeAuthlessQuery,
    RecipePath,
    ReconcileBody,
    RequiredStoreQuery,
    RescaleBody,
    StoreQuery,
)
from prerender.schemas.headers import MergeHeaders, WriteHeaders
from prerender.schemas.responses import BasketChangeSchema, BasketSchema, ConfirmationSchema
from prerender.web import upstream_answers
from prerender.web.context import basket_owner
from prerender.web.contract import (
    NOT_MODIFIED,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    json_answer,
    problem,
)
from prerender.web.forwarding import ForwardedRoute, add_forwarded_route, forward
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.web.merge_proof import MERGE_REFUSALS, merge_response

bp = Blueprint("basket", __name__, url_prefix="/basket")


# Every write takes an optional Idempotency-Key, passed upstream (docs/browser-api.md: retrying a write).
WRITE_HEADERS = WriteHeaders()


MERGE_HEADERS = MergeHeaders()
NO_SUPPLIER = {403: problem("No known supplier (supplier-token), or refused by the recipe service.")}
CHANGE_ANSWERS = {
    200: json_answer(BasketChangeSchema, "The basket and what the retailer cart must do."),
    **PASSED_THROUGH,
    **NO_SUPPLIER,
    **UPSTREAM_FAILURES,
}


@bp.get("", head=False)  # with store_id, it moves the basket there
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="The user's basket at a store",
    query=StoreQuery(),
    answers={200: json_answer(BasketSchema), 304: NOT_MODIFIED, **NO_SUPPLIER, **UPSTREAM_FAILURES},
)
def get_basket(query: dict[str, Any]) -> dict[str, Any]:
    """The user's basket at the store; empty without a store or for a store the upstream does not know."""
    if query["store_id"] is None:
        return baskets.EMPTY_BASKET
    return upstream_answers.basket(basket_owner().upstream, store_id=query["store_id"])


# The writes: each forwards its validated request to the upstream basket and answers the upstream's answer once
# it matches the schema (prerender/web/forwarding.py). Every basket write shares its answers, its idempotency key
# and a basket owner's identity.
basket_write = functools.partial(ForwardedRoute, answers=CHANGE_ANSWERS, headers=WRITE_HEADERS, owner=basket_owner)

FORWARDED = (
    basket_write(
        "/recipes",
        "add_recipe",
        summary="Add a recipe to the basket",
        description="Add a recipe's ingredients with the shopper's choices (or re-scale it when already there), "
        "in one write.",
        call=baskets.ADD_RECIPE,
        body=AddRecipeBody(),
        body_example={
            "recipe_id": "5",
            "guests": 4,
            "store_id": "1001",
            "lines": [{"ingredient_id": "carotte", "product_id": "100040", "quantity": 1}],
        },
    ),
    basket_write(
        "/recipes/<recipe_id>",
        "rescale_recipe",
        summary="Re-scale a recipe of the basket",
        description="Re-scale a recipe of the basket to a number of guests.",
        call=baskets.RESCALE_RECIPE,
        path=RecipePath(),
        body=RescaleBody(),
        body_example={"guests": 6, "store_id": "1001"},
    ),
    basket_write(
        "/recipes/<recipe_id>",
        "remove_recipe",
        summary="Remove a recipe from the basket",
        description="Remove a recipe and its products from the basket.",
        call=baskets.REMOVE_RECIPE,
        path=RecipePath(),
        query=RequiredStoreQuery(),
    ),
    basket_write(
        "/recipes/<recipe_id>/ingredients/<ingredient_id>",
        "set_ingredient",
        summary="Set the product of one ingredient",
        description="Add, remove (quantity 0) or replace the product of one ingredient.",
        call=baskets.SET_INGREDIENT,
        path=IngredientPath(),
        body=IngredientLineBody(),
        body_example={"product_id": "100001", "quantity": 1, "store_id": "1001"},
    ),
    basket_write(
        "/reconcile",
        "reconcile",
        summary="Follow the retailer cart",
        description="Follow the retailer cart: what it removed or reduced leaves the basket.",
        call=baskets.RECONCILE,
        body=ReconcileBody(),
        body_example={
            "store_id": "1001",
            "cart": [{"id": "100001", "quantity": 1}],
            "reported": {"by": "0b9e4c1e-5f0e-4a7c-9d43-2c1f3e8a6b10", "at": 1764580000000},
        },
    ),
    basket_write(
        "/confirm",
        "confirm",
        summary="Confirm the basket after payment",
        description="The user paid: confirm the basket (once per order id; never an empty one).",
        call=baskets.CONFIRM,
        answers={
            200: json_answer(ConfirmationSchema, "The confirmation."),
            **PASSED_THROUGH,
            **NO_SUPPLIER,
            409: problem(
                "The total paid does not cover the basket's (`expected_total`), or the order is being confirmed."
            ),
            **UPSTREAM_FAILURES,
        },
        body=ConfirmBody(),
        body_example={"store_id": "1001", "total": 12.5, "order_id": "order-1"},
    ),
)
for route in FORWARDED:
    add_forwarded_route(bp, route)


@bp.get("/merge-authless-basket", head=False)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="Merge the logged-out basket into the user's",
    headers=MERGE_HEADERS,
    query=MergeAuthlessQuery(),
    answers={
        **CHANGE_ANSWERS,
        **{status: problem(description) for status, description in MERGE_REFUSALS.items()},
    },
)
def merge_authless_basket(query: dict[str, Any], headers: dict[str, Any]) -> ResponseReturnValue:
    """End of the auth flow: the logged-out basket joins the user's (a GET, as integrations call it). Never cached."""
    return merge_response(
        query,
        headers,
        lambda caller, params, key: forward(baskets.MERGE_AUTHLESS, BasketChangeSchema, caller, params=params, key=key),
    )

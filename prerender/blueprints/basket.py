"""The browser's basket routes (docs/browser-api.md): validated forwards to the upstream basket, for the
shopper of the browser's credential only (docs/security.md); the merge is also the customer's server's."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from prerender.gateway import UnknownStore, get_gateway
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
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.web.merge_proof import MERGE_REFUSALS, merge_response

log = logging.getLogger(__name__)

bp = Blueprint("basket", __name__, url_prefix="/basket")


EMPTY_BASKET: dict[str, Any] = {
    "store_id": None,
    "recipes": [],
    "products": [],
    "recipe_count": 0,
    "total": 0,
    "currency": "EUR",
}
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


@bp.get("")
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
        return EMPTY_BASKET
    try:
        return get_gateway().basket(basket_owner().upstream, store_id=query["store_id"])
    except UnknownStore:
        log.warning("basket asked at an unknown store %s, answered empty", query["store_id"])
        return {**EMPTY_BASKET, "store_id": query["store_id"], "unknown_store": True}


@bp.post("/recipes")
@declare(
    callers=Callers.BROWSER,
    summary="Add a recipe to the basket",
    headers=WRITE_HEADERS,
    body=AddRecipeBody(),
    answers=CHANGE_ANSWERS,
    body_example={
        "recipe_id": "5",
        "guests": 4,
        "store_id": "1001",
        "lines": [{"ingredient_id": "carotte", "product_id": "100040", "quantity": 1}],
    },
)
def add_recipe(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe's ingredients with the shopper's choices (or re-scale it when already there), in one write."""
    return get_gateway().add_recipe_to_basket(basket_owner().upstream, body=body, key=headers["idempotency_key"])


@bp.patch("/recipes/<recipe_id>")
@declare(
    callers=Callers.BROWSER,
    summary="Re-scale a recipe of the basket",
    headers=WRITE_HEADERS,
    path=RecipePath(),
    body=RescaleBody(),
    answers=CHANGE_ANSWERS,
    body_example={"guests": 6, "store_id": "1001"},
)
def rescale_recipe(recipe_id: str, body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Re-scale a recipe of the basket to a number of guests."""
    return get_gateway().rescale_basket_recipe(
        basket_owner().upstream, recipe_id, body=body, key=headers["idempotency_key"]
    )


@bp.delete("/recipes/<recipe_id>")
@declare(
    callers=Callers.BROWSER,
    summary="Remove a recipe from the basket",
    headers=WRITE_HEADERS,
    path=RecipePath(),
    query=RequiredStoreQuery(),
    answers=CHANGE_ANSWERS,
)
def remove_recipe(recipe_id: str, query: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Remove a recipe and its products from the basket."""
    return get_gateway().remove_basket_recipe(
        basket_owner().upstream, recipe_id, params=query, key=headers["idempotency_key"]
    )


@bp.put("/recipes/<recipe_id>/ingredients/<ingredient_id>")
@declare(
    callers=Callers.BROWSER,
    summary="Set the product of one ingredient",
    headers=WRITE_HEADERS,
    path=IngredientPath(),
    body=IngredientLineBody(),
    answers=CHANGE_ANSWERS,
    body_example={"product_id": "100001", "quantity": 1, "store_id": "1001"},
)
def set_ingredient(recipe_id: str, ingredient_id: str, body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Add, remove (quantity 0) or replace the product of one ingredient."""
    return get_gateway().set_basket_ingredient(
        basket_owner().upstream, recipe_id, ingredient_id, body=body, key=headers["idempotency_key"]
    )


@bp.post("/reconcile")
@declare(
    callers=Callers.BROWSER,
    summary="Follow the retailer cart",
    headers=WRITE_HEADERS,
    body=ReconcileBody(),
    answers=CHANGE_ANSWERS,
    body_example={"store_id": "1001", "cart": [{"id": "100001", "quantity": 1}]},
)
def reconcile(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Follow the retailer cart: what it removed or reduced leaves the basket."""
    return get_gateway().reconcile_basket(basket_owner().upstream, body=body, key=headers["idempotency_key"])


@bp.post("/confirm")
@declare(
    callers=Callers.BROWSER,
    summary="Confirm the basket after payment",
    headers=WRITE_HEADERS,
    body=ConfirmBody(),
    body_example={"store_id": "1001", "total": 12.5, "order_id": "order-1"},
    answers={
        200: json_answer(ConfirmationSchema, "The confirmation."),
        **PASSED_THROUGH,
        **NO_SUPPLIER,
        409: problem("The total paid does not cover the basket's (`expected_total`), or the order is being confirmed."),
        **UPSTREAM_FAILURES,
    },
)
def confirm(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """The user paid: confirm the basket (once per order id; never an empty one)."""
    return get_gateway().confirm_basket(
        basket_owner().upstream, body={**body, "total": float(body["total"])}, key=headers["idempotency_key"]
    )


@bp.get("/merge-authless-basket")
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
        lambda caller, params, key: get_gateway().merge_authless_basket(caller, params=params, key=key),
    )

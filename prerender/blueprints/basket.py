"""The browser's basket routes (docs/browser-api.md): thin, validated forwards to the upstream basket."""
from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from prerender.web.context import current_context
from prerender.web.errors import ValidationProblem
from prerender.gateway import UnknownStore, get_gateway, segment
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.schemas.actions import (AddRecipeBody, ConfirmBody, IngredientLineBody, MergeAuthlessQuery, ReconcileBody,
                               RequiredStoreQuery, RescaleBody, StoreQuery)
from prerender.schemas.fields import Identifier
from prerender.web.parsing import use_args, use_kwargs

log = logging.getLogger(__name__)

bp = Blueprint("basket", __name__, url_prefix="/basket")

EMPTY_BASKET: dict[str, Any] = {"store_id": None, "recipes": [], "products": [], "recipe_count": 0,
                                "total": 0, "currency": "EUR"}
RECIPE_ID = {"recipe_id": Identifier(required=True)}
INGREDIENT = {"recipe_id": Identifier(required=True), "ingredient_id": Identifier(required=True)}


@bp.get("")
@cache_policy(PRIVATE)
@use_args(StoreQuery(), location="query")
def get_basket(args: dict[str, Any]) -> dict[str, Any]:
    """The user's basket at the store; empty without a store or for a store the upstream does not know."""
    if args["store_id"] is None:
        return EMPTY_BASKET
    ctx = current_context()
    try:
        return get_gateway().basket(ctx.upstream, store_id=args["store_id"])
    except UnknownStore:
        log.warning("basket asked at an unknown store %s, answered empty", args["store_id"])
        return {**EMPTY_BASKET, "store_id": args["store_id"]}


@bp.post("/recipes")
@use_args(AddRecipeBody(), location="json")
def add_recipe(body: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe's ingredients (or re-scale it when already there)."""
    return _change("POST", "/recipes", body=body)


@bp.patch("/recipes/<recipe_id>")
@use_kwargs(RECIPE_ID, location="view_args")
@use_args(RescaleBody(), location="json")
def rescale_recipe(body: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Re-scale a recipe of the basket to a number of guests."""
    return _change("PATCH", f"/recipes/{segment(recipe_id)}", body=body)


@bp.delete("/recipes/<recipe_id>")
@use_kwargs(RECIPE_ID, location="view_args")
@use_args(RequiredStoreQuery(), location="query")
def remove_recipe(query: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Remove a recipe and its products from the basket."""
    return _change("DELETE", f"/recipes/{segment(recipe_id)}", params=query)


@bp.put("/recipes/<recipe_id>/ingredients/<ingredient_id>")
@use_kwargs(INGREDIENT, location="view_args")
@use_args(IngredientLineBody(), location="json")
def set_ingredient(body: dict[str, Any], recipe_id: str, ingredient_id: str) -> dict[str, Any]:
    """Add, remove (quantity 0) or replace the product of one ingredient."""
    return _change("PUT", f"/recipes/{segment(recipe_id)}/ingredients/{segment(ingredient_id)}", body=body)


@bp.post("/reconcile")
@use_args(ReconcileBody(), location="json")
def reconcile(body: dict[str, Any]) -> dict[str, Any]:
    """Follow the retailer cart: what it removed or reduced leaves the basket."""
    return _change("POST", "/reconcile", body=body)


@bp.post("/confirm")
@use_args(ConfirmBody(), location="json")
def confirm(body: dict[str, Any]) -> dict[str, Any]:
    """The user paid: confirm the basket (once per order id; never an empty one)."""
    return _change("POST", "/confirm", body={**body, "total": float(body["total"])})


@bp.get("/merge-authless-basket")
@use_args(MergeAuthlessQuery(), location="query")
def merge_authless_basket(query: dict[str, Any]) -> ResponseReturnValue:
    """End of the auth flow: the logged-out basket joins the user's (spec: GET, not POST). Never cached."""
    if not current_context().is_connected:
        raise Forbidden("Merging needs the logged-in user (authorization: user_id <USER_ID>).")
    response = jsonify(_change("GET", "/merge-authless-basket", params=query))
    response.cache_control.no_store = True
    return response


def _change(method: str, path: str, *, body: dict[str, Any] | None = None,
            params: dict[str, Any] | None = None) -> dict[str, Any]:
    ctx = current_context()
    try:
        return get_gateway().change_basket(ctx.upstream, method, path, body=body, params=params)
    except UnknownStore as error:
        location = "query" if params and "store_id" in params else "json"
        raise ValidationProblem({location: {"store_id": ["Unknown store."]}}) from error

"""The identity's basket: recipe entries, their product lines, the retailer cart's changes."""

from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from coreapi.context import connected_users_only, current, current_identity, require_identity
from coreapi.errors import BadRequest, NotFound, field_error, handle_problem
from coreapi.extensions import db
from coreapi.schemas.baskets import (
    AddRecipeArgs,
    BasketArgs,
    BasketSchema,
    BasketUpdateSchema,
    ConfirmArgs,
    ConfirmationSchema,
    GuestsArgs,
    IngredientLineArgs,
    MergeArgs,
    ReconcileArgs,
)
from coreapi.schemas.common import dump_one
from coreapi.schemas.parsing import use_args
from coreapi.services import baskets

bp = Blueprint("baskets", __name__, url_prefix="/basket")
# Identity first: 401 before any validation of the arguments.
bp.before_request(require_identity)


@bp.errorhandler(baskets.BasketError)
def refused(error: baskets.BasketError) -> ResponseReturnValue:
    """Unknown recipe or ingredient, recipe not in the basket: 404; not a candidate: 400."""
    if isinstance(error, baskets.NotACandidate):
        return handle_problem(BadRequest(str(error), errors=field_error("json", "product_id", str(error))))
    return handle_problem(NotFound(str(error)))


def _update(update: baskets.BasketUpdate) -> dict[str, Any]:
    return dump_one(BasketUpdateSchema(), update)


@bp.get("")
@use_args(BasketArgs(), location="query")
def show(args: dict[str, Any]) -> dict[str, Any]:
    """The basket at ``store_id`` (an empty one when the identity has none)."""
    basket = baskets.get_basket(db.session(), current_identity(), args["store"], current().language)
    return dump_one(BasketSchema(), basket)


@bp.post("/recipes")
@use_args(AddRecipeArgs(), location="json")
def add_recipe(args: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe for ``guests`` (re-scale it when it is already in the basket)."""
    return _update(
        baskets.add_recipe(
            db.session(),
            current_identity(),
            args["store"],
            args["recipe_id"],
            args["guests"],
            current().language,
        )
    )


@bp.patch("/recipes/<recipe_id>")
@use_args(GuestsArgs(), location="json")
def rescale_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Re-scale a recipe of the basket to ``guests``, keeping its products."""
    return _update(
        baskets.rescale_recipe(
            db.session(),
            current_identity(),
            args["store"],
            recipe_id,
            args["guests"],
            current().language,
        )
    )


@bp.delete("/recipes/<recipe_id>")
@use_args(BasketArgs(), location="query")
def remove_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Remove a recipe and its lines."""
    return _update(
        baskets.remove_recipe(db.session(), current_identity(), args["store"], recipe_id, current().language)
    )


@bp.put("/recipes/<recipe_id>/ingredients/<ingredient_id>")
@use_args(IngredientLineArgs(), location="json")
def set_ingredient(args: dict[str, Any], recipe_id: str, ingredient_id: str) -> dict[str, Any]:
    """Set one ingredient's line: its product and quantity (0 removes it)."""
    return _update(
        baskets.set_ingredient(
            db.session(),
            current_identity(),
            args["store"],
            recipe_id,
            ingredient_id,
            args["product_id"],
            args["quantity"],
            current().language,
        )
    )


@bp.post("/reconcile")
@use_args(ReconcileArgs(), location="json")
def reconcile(args: dict[str, Any]) -> dict[str, Any]:
    """Follow the retailer cart: reduce what it holds less of, newest entries first."""
    cart = [(line["id"], line["quantity"]) for line in args["cart"]]
    return _update(baskets.reconcile(db.session(), current_identity(), args["store"], cart, current().language))


@bp.post("/confirm")
@use_args(ConfirmArgs(), location="json")
def confirm(args: dict[str, Any]) -> dict[str, Any]:
    """The user paid: confirm the basket once per order id; an empty one is not confirmed."""
    confirmation = baskets.confirm(db.session(), current_identity(), args["store"], args["total"], args["order_id"])
    return dump_one(ConfirmationSchema(), confirmation)


@bp.get("/merge-authless-basket")
@connected_users_only
@use_args(MergeArgs(), location="query")
def merge_authless_basket(args: dict[str, Any]) -> dict[str, Any]:
    """Move a logged-out visitor's entries into the connected user's basket."""
    return _update(
        baskets.merge_authless(db.session(), current_identity(), args["authless_id"], args["store"], current().language)
    )

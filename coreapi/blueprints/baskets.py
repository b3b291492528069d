"""The shopper's basket: recipe entries, their product lines, the retailer cart's changes.

A basket belongs to the identity of ``Authorization`` under the calling supplier (both required):
that of ``Supplier-Token``, or the ``Supplier-Id`` of a service (``X-Service-Key``). Each route is
one transaction, committed once its answer is built; the writes take an optional ``Idempotency-Key``
(``coreapi.blueprints.writes``). Transfers hand a basket over to the calling supplier's affiliated
retailer, whose shopper redeems it (``coreapi.services.transfers``).
"""

from __future__ import annotations

import datetime as dt
from http import HTTPStatus
from typing import Any

from flask import Blueprint, Response, current_app

from coreapi.blueprints import writes
from coreapi.context import (
    connected_users_only,
    current,
    current_identity,
    current_supplier,
    require_identity,
    require_supplier,
)
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
    RedeemArgs,
    RedeemedSchema,
    ShowArgs,
    TransferArgs,
    TransferSchema,
)
from coreapi.schemas.common import dump_one
from coreapi.schemas.parsing import use_args
from coreapi.services import baskets, preferences, transfers
from coreapi.services.pricing import money_number
from plumbing.problems import BadRequest, Conflict, Gone, NotFound, Problem, field_error, handle_problem

bp = Blueprint("baskets", __name__, url_prefix="/basket")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


def _owner() -> baskets.BasketOwner:
    return baskets.BasketOwner(current_supplier().id, current_identity())


def _problem(error: baskets.BasketError) -> Problem:
    """Unknown recipe or ingredient, recipe not in the basket, no transfer of that token for the
    supplier: 404; not a candidate, or a choice sent with a recipe that names another recipe's ingredient or
    a product that is not a candidate: 400 (the field named); a confirmation's total that is not the basket's: 409; a
    transfer the supplier or the basket cannot make: 409 with a ``reason``; a transfer's token that
    no longer redeems: 410 with a ``reason``."""
    if isinstance(error, transfers.TransferConflict):
        return Conflict(str(error), extensions={"reason": error.reason})
    if isinstance(error, transfers.TransferGone):
        return Gone(str(error), extensions={"reason": error.reason})
    if isinstance(error, baskets.TotalMismatch):
        return Conflict(
            str(error),
            errors=field_error("json", "total", f"Expected {error.expected:.2f}."),
            extensions={"expected_total": money_number(error.expected)},
        )
    if isinstance(error, baskets.BadChoice):
        return BadRequest(str(error), errors=field_error("json", error.field, str(error)))
    if isinstance(error, baskets.NotACandidate):
        return BadRequest(str(error), errors=field_error("json", "product_id", str(error)))
    return NotFound(str(error))


@bp.errorhandler(baskets.BasketError)
def refused(error: baskets.BasketError) -> Response:
    return handle_problem(_problem(error))


idempotent_write = writes.idempotent_writes(baskets.BasketError, refused)
idempotent_creation = writes.idempotent_writes(baskets.BasketError, refused, status=HTTPStatus.CREATED)
transactional = writes.transactional


# --- routes --------------------------------------------------------------------------------


def _update(update: baskets.BasketUpdate) -> dict[str, Any]:
    return dump_one(BasketUpdateSchema(), update)


@bp.get("")
@use_args(ShowArgs(), location="query")
@transactional
def show(args: dict[str, Any]) -> dict[str, Any]:
    """The basket at ``store_id`` (an empty one when the shopper has none); without ``store_id``, at
    its own store (an empty one at no store when the shopper has none)."""
    basket = baskets.get_basket(db.session(), _owner(), args["store"], current().language)
    return dump_one(BasketSchema(), basket)


@bp.post("/recipes")
@idempotent_write
@use_args(AddRecipeArgs(), location="json")
def add_recipe(args: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe for ``guests`` (re-scale it when it is already in the basket), with the shopper's ``lines``."""
    choices = [baskets.Choice(**line) for line in args.get("lines") or ()]
    return _update(
        baskets.add_recipe(
            db.session(),
            _owner(),
            args["store"],
            args["recipe_id"],
            args["guests"],
            current().language,
            choices,
        )
    )


@bp.patch("/recipes/<recipe_id>")
@idempotent_write
@use_args(GuestsArgs(), location="json")
def rescale_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Re-scale a recipe of the basket to ``guests``, keeping its products."""
    return _update(
        baskets.rescale_recipe(
            db.session(),
            _owner(),
            args["store"],
            recipe_id,
            args["guests"],
            current().language,
        )
    )


@bp.delete("/recipes/<recipe_id>")
@idempotent_write
@use_args(BasketArgs(), location="query")
def remove_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Remove a recipe and its lines."""
    return _update(baskets.remove_recipe(db.session(), _owner(), args["store"], recipe_id, current().language))


@bp.put("/recipes/<recipe_id>/ingredients/<ingredient_id>")
@idempotent_write
@use_args(IngredientLineArgs(), location="json")
def set_ingredient(args: dict[str, Any], recipe_id: str, ingredient_id: str) -> dict[str, Any]:
    """Set one ingredient's line: its product and quantity (0 removes it)."""
    return _update(
        baskets.set_ingredient(
            db.session(),
            _owner(),
            args["store"],
            recipe_id,
            ingredient_id,
            args["product_id"],
            args["quantity"],
            current().language,
            guests=args["guests"],
        )
    )


@bp.post("/reconcile")
@idempotent_write
@use_args(ReconcileArgs(), location="json")
def reconcile(args: dict[str, Any]) -> dict[str, Any]:
    """Follow the retailer cart: reduce what it holds less of, newest entries first (what it is still asked to
    add, or its browser's newer cart showed, excepted)."""
    cart = [(line["id"], line["quantity"]) for line in args["cart"]]
    return _update(baskets.reconcile(db.session(), _owner(), args["store"], cart, current().language, args["reported"]))


@bp.post("/confirm")
@idempotent_write
@use_args(ConfirmArgs(), location="json")
def confirm(args: dict[str, Any]) -> dict[str, Any]:
    """The user paid: confirm the basket once per order id, at its own total (the one sent must
    match it); an empty one is not confirmed."""
    cart = None if args["cart"] is None else [(line["id"], line["quantity"]) for line in args["cart"]]
    confirmation = baskets.confirm(db.session(), _owner(), args["store"], args["total"], args["order_id"], cart)
    return dump_one(ConfirmationSchema(), confirmation)


@bp.get("/merge-authless-basket")
@connected_users_only
@idempotent_write
@use_args(MergeArgs(), location="query")
def merge_authless_basket(args: dict[str, Any]) -> dict[str, Any]:
    """Move the supplier's logged-out visitor's entries into the connected user's basket (the
    caller vouches that the user holds ``authless_id``), with what else a first login carries: its
    favorite products, its order history and, for a user without any, its preferences."""
    session, user, authless_id = db.session(), _owner(), args["authless_id"]
    merged = baskets.merge_authless(session, user, authless_id, args["store"], current().language)
    preferences.merge_authless(session, user, authless_id, enabled=current_supplier().personalization)
    return _update(merged)


@bp.post("/transfers")
@idempotent_creation
@use_args(TransferArgs(), location="json")
def create_transfer(args: dict[str, Any]) -> dict[str, Any]:
    """Hand the basket, moved to ``store_id``, over to the supplier's affiliated retailer: a one-time
    token (``201``), redeemable for ``TRANSFER_TTL_SECONDS``."""
    created = transfers.create(
        db.session(), _owner(), current_supplier().affiliated_supplier_id, args["store"], _transfer_ttl()
    )
    return dump_one(TransferSchema(), created)


@bp.post("/transfers/redeem")
@idempotent_write
@use_args(RedeemArgs(), location="json")
def redeem_transfer(args: dict[str, Any]) -> dict[str, Any]:
    """Redeem a transfer's token for the calling shopper of its retailer: the handed-over entries join
    the shopper's basket at ``store_id``."""
    redeemed = transfers.redeem(db.session(), _owner(), args["token"], args["store"], current().language)
    return dump_one(RedeemedSchema(), redeemed)


def _transfer_ttl() -> dt.timedelta:
    return dt.timedelta(seconds=float(current_app.config["TRANSFER_TTL_SECONDS"]))

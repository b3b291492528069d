"""The shopper's basket: recipe entries, their product lines, the retailer cart's changes.

A basket belongs to the identity of ``Authorization`` under the calling supplier (both required):
that of ``Supplier-Token``, or the ``Supplier-Id`` of a service (``X-Service-Key``). Each route is
one transaction, committed once its answer is built; the writes take an optional ``Idempotency-Key``
(``idempotent_write``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, ParamSpec

from flask import Blueprint, Response, current_app, json, request
from flask.typing import ResponseReturnValue

from coreapi.context import (
    connected_users_only,
    current,
    current_identity,
    current_supplier,
    require_identity,
    require_supplier,
)
from coreapi.errors import (
    PROBLEM_MIMETYPE,
    BadRequest,
    Conflict,
    NotFound,
    Problem,
    UnprocessableContent,
    field_error,
    handle_problem,
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
)
from coreapi.schemas.common import dump_one
from coreapi.schemas.parsing import use_args
from coreapi.services import baskets, idempotency
from coreapi.services.pricing import money_number

P = ParamSpec("P")
log = logging.getLogger(__name__)

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"

bp = Blueprint("baskets", __name__, url_prefix="/basket")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


def _owner() -> baskets.BasketOwner:
    return baskets.BasketOwner(current_supplier().id, current_identity())


def _problem(error: baskets.BasketError) -> Problem:
    """Unknown recipe or ingredient, recipe not in the basket: 404; not a candidate: 400; a
    confirmation's total that is not the basket's: 409."""
    if isinstance(error, baskets.TotalMismatch):
        return Conflict(
            str(error),
            errors=field_error("json", "total", f"Expected {error.expected:.2f}."),
            extensions={"expected_total": money_number(error.expected)},
        )
    if isinstance(error, baskets.NotACandidate):
        return BadRequest(str(error), errors=field_error("json", "product_id", str(error)))
    return NotFound(str(error))


@bp.errorhandler(baskets.BasketError)
def refused(error: baskets.BasketError) -> Response:
    return handle_problem(_problem(error))


# --- transactions and idempotency keys -----------------------------------------------------


def _in_transaction(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``work`` in one transaction: committed after it answers, rolled back when it fails."""
    session = db.session()
    try:
        body = work()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return body


def transactional(view: Callable[P, dict[str, Any]]) -> Callable[P, dict[str, Any]]:
    """A route that may write (``GET /basket`` moves the basket to the store asked)."""

    @functools.wraps(view)
    def run(*args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
        return _in_transaction(lambda: view(*args, **kwargs))

    return run


def idempotency_key() -> str | None:
    """The request's ``Idempotency-Key``; ``400`` when present but not 1 to 128 printable ASCII
    characters without space (an empty one too: a client that sends the header means a key)."""
    value = request.headers.get(IDEMPOTENCY_KEY_HEADER)
    if value is None:
        return None
    if not idempotency.valid_key(value):
        message = "Must be 1 to 128 printable ASCII characters, without spaces."
        raise BadRequest(
            "The request has an invalid header.", errors=field_error("headers", IDEMPOTENCY_KEY_HEADER, message)
        )
    return value


def idempotent_write(view: Callable[P, dict[str, Any]]) -> Callable[P, ResponseReturnValue]:
    """A basket write, in one transaction; with an ``Idempotency-Key``, applied once per key.

    The key's outcome (``coreapi.services.idempotency``) is stored in the transaction of the
    write: a 200, or a refusal of the basket (404, 400 not a candidate, 409 wrong total; stored in
    a transaction of its own after the write's rollback). The same key again answers the stored
    outcome with ``Idempotent-Replayed: true``, whatever the basket became meanwhile; for another
    request (method, path, query, body) it is 422; while its first request is still running (past
    ``IDEMPOTENCY_WAIT_SECONDS``), 409. Invalid arguments (400), 401/403 and server errors store
    nothing: the key stays free, as nothing was written.
    """

    @functools.wraps(view)
    def write(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
        key = idempotency_key()
        if key is None:
            return _in_transaction(lambda: view(*args, **kwargs))
        scope = idempotency.Scope(current_supplier().id, current_identity(), key)
        fingerprint = idempotency.Fingerprint.of(
            request.method, request.path, request.args.items(multi=True), request.get_data()
        )
        session = db.session()
        try:
            try:
                answer = _apply_once(scope, fingerprint, lambda: view(*args, **kwargs))
            except idempotency.KeyReused as error:
                raise UnprocessableContent(
                    f"This Idempotency-Key was used for another request ({error.method} {error.path}, or "
                    "another query or body); use a new key for a new request.",
                    errors=field_error("headers", IDEMPOTENCY_KEY_HEADER, "Used for another request."),
                ) from None
            except idempotency.KeyInProgress:
                raise Conflict(
                    "A request with this Idempotency-Key is in progress; retry it in a moment.",
                    headers={"Retry-After": "1"},
                ) from None
        except BaseException:
            session.rollback()
            raise
        _prune_now_and_then()
        return answer

    return write


def _apply_once(
    scope: idempotency.Scope, fingerprint: idempotency.Fingerprint, work: Callable[[], dict[str, Any]]
) -> ResponseReturnValue:
    session = db.session()
    wait = float(current_app.config["IDEMPOTENCY_WAIT_SECONDS"])
    stored = idempotency.claim(session, scope, fingerprint, wait_seconds=wait)
    if stored is not None:
        session.rollback()
        return _replay(stored)
    try:
        body = work()
    except baskets.BasketError as error:
        session.rollback()  # the write, and the claim with it
        refusal = refused(error)
        stored = idempotency.claim(session, scope, fingerprint, wait_seconds=wait)
        if stored is not None:  # the same request, retried meanwhile, was stored first
            session.rollback()
            return _replay(stored)
        idempotency.record(session, scope, idempotency.Outcome(refusal.status_code, refusal.get_json()))
        session.commit()
        return refusal
    idempotency.record(session, scope, idempotency.Outcome(200, body))
    session.commit()
    return body


def _replay(outcome: idempotency.Outcome) -> Response:
    mimetype = PROBLEM_MIMETYPE if outcome.status >= 400 else "application/json"
    response = current_app.response_class(json.dumps(outcome.body), status=outcome.status, mimetype=mimetype)
    response.headers[REPLAYED_HEADER] = "true"
    return response


def _prune_now_and_then() -> None:
    """Forget the outcomes past their retention, now and then (after a keyed write)."""
    try:
        idempotency.prune_now_and_then(
            db.session(),
            current_app.extensions,
            every_seconds=float(current_app.config["IDEMPOTENCY_PRUNE_INTERVAL_SECONDS"]),
            retention_seconds=float(current_app.config["IDEMPOTENCY_RETENTION_SECONDS"]),
        )
    except Exception:  # the write is done: a failed pruning waits for the next one
        db.session.rollback()
        log.warning("Pruning old idempotency keys failed", exc_info=True)


# --- routes --------------------------------------------------------------------------------


def _update(update: baskets.BasketUpdate) -> dict[str, Any]:
    return dump_one(BasketUpdateSchema(), update)


@bp.get("")
@use_args(BasketArgs(), location="query")
@transactional
def show(args: dict[str, Any]) -> dict[str, Any]:
    """The basket at ``store_id`` (an empty one when the shopper has none)."""
    basket = baskets.get_basket(db.session(), _owner(), args["store"], current().language)
    return dump_one(BasketSchema(), basket)


@bp.post("/recipes")
@idempotent_write
@use_args(AddRecipeArgs(), location="json")
def add_recipe(args: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe for ``guests`` (re-scale it when it is already in the basket)."""
    return _update(
        baskets.add_recipe(
            db.session(),
            _owner(),
            args["store"],
            args["recipe_id"],
            args["guests"],
            current().language,
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
        )
    )


@bp.post("/reconcile")
@idempotent_write
@use_args(ReconcileArgs(), location="json")
def reconcile(args: dict[str, Any]) -> dict[str, Any]:
    """Follow the retailer cart: reduce what it holds less of, newest entries first."""
    cart = [(line["id"], line["quantity"]) for line in args["cart"]]
    return _update(baskets.reconcile(db.session(), _owner(), args["store"], cart, current().language))


@bp.post("/confirm")
@idempotent_write
@use_args(ConfirmArgs(), location="json")
def confirm(args: dict[str, Any]) -> dict[str, Any]:
    """The user paid: confirm the basket once per order id, at its own total (the one sent must
    match it); an empty one is not confirmed."""
    confirmation = baskets.confirm(db.session(), _owner(), args["store"], args["total"], args["order_id"])
    return dump_one(ConfirmationSchema(), confirmation)


@bp.get("/merge-authless-basket")
@connected_users_only
@idempotent_write
@use_args(MergeArgs(), location="query")
def merge_authless_basket(args: dict[str, Any]) -> dict[str, Any]:
    """Move the supplier's logged-out visitor's entries into the connected user's basket (the
    caller vouches that the user holds ``authless_id``)."""
    return _update(
        baskets.merge_authless(db.session(), _owner(), args["authless_id"], args["store"], current().language)
    )

"""The planner's menus: the shopper's current menu, its recipes and their products, finalized into
the basket.

A menu belongs to the identity of ``Authorization`` under the calling supplier (both required), like
a basket. Each route is one transaction; the writes take an optional ``Idempotency-Key``
(``coreapi.blueprints.writes``). Every route but finalize answers the whole menu.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from coreapi.blueprints import writes
from coreapi.blueprints.preferences import applied, applied_guests
from coreapi.context import (
    connected_users_only,
    current,
    current_identity,
    current_supplier,
    require_identity,
    require_supplier,
)
from coreapi.extensions import db
from coreapi.models import Store
from coreapi.schemas.baskets import BasketUpdateSchema
from coreapi.schemas.common import dump_one
from coreapi.schemas.menus import (
    FROM_SUGGESTIONS,
    AddRecipeArgs,
    CurrentMenuArgs,
    GuestsArgs,
    MenuPatchArgs,
    MenuSchema,
    MergeArgs,
    SuggestionsArgs,
    SwapArgs,
)
from coreapi.schemas.parsing import use_args
from coreapi.schemas.recipes import RecipeSummarySchema
from coreapi.services import menus, recipes
from coreapi.services.baskets import BasketOwner
from coreapi.services.recipes import RecipePreferences
from coreapi.services.suggestions import suggest_for_menu
from plumbing.problems import Conflict, NotFound, Problem, handle_problem

bp = Blueprint("menus", __name__, url_prefix="/menus")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


def _owner() -> BasketOwner:
    return BasketOwner(current_supplier().id, current_identity())


def _problem(error: menus.MenuError) -> Problem:
    """No menu, unknown recipe, recipe not in the menu, not a product of the recipe: 404; what the
    menu cannot do as it is (full, no store, unavailable at its store, nothing to finalize): 409
    with a ``reason``."""
    if isinstance(error, menus.MenuConflict):
        return Conflict(str(error), extensions={"reason": error.reason})
    return NotFound(str(error))


@bp.errorhandler(menus.MenuError)
def refused(error: menus.MenuError) -> Response:
    return handle_problem(_problem(error))


idempotent_write = writes.idempotent_writes(menus.MenuError, refused)


def _menu(view: menus.MenuView) -> dict[str, Any]:
    return dump_one(MenuSchema(), view)


def _suggest(
    store: Store | None,
    limit: int,
    *,
    types: tuple[str, ...] = (),
    exclude: tuple[int, ...] = (),
    preferences: RecipePreferences | None = None,
) -> list[int]:
    """The calling shopper's menu suggestions (``coreapi.services.suggestions.suggest_for_menu``),
    among the recipes its ``preferences`` keep when they apply."""
    ctx = current()
    identity = current_identity()
    return suggest_for_menu(
        db.session(),
        limit=limit,
        session_id=ctx.session_id,
        seed=f"{identity.kind.value} {identity.value}",
        user_id=ctx.user_id,
        supplier_id=current_supplier().id,
        profiling=ctx.profiling,
        store=store,
        types=types,
        exclude=exclude,
        preferences=preferences,
    )


# --- the current menu ----------------------------------------------------------------------


@bp.get("/current")
@use_args(CurrentMenuArgs(), location="query")
@writes.transactional
def show(args: dict[str, Any]) -> dict[str, Any]:
    """The shopper's menu (moved to ``store_id`` when given); created when it has none, from the
    shopper's suggestions (``from=suggestions``, the default; kept by its preferences with
    ``preferences=apply``) or empty (``from=scratch``), for ``guests`` (without: the shopper's
    preferred guests with ``preferences=apply``, else 4)."""
    suggester: menus.Suggester | None = None
    if args["origin"] == FROM_SUGGESTIONS:

        def suggester(store: Store | None, limit: int) -> list[int]:
            return _suggest(store, limit, preferences=applied(args["preferences"]))

    view = menus.current_menu(
        db.session(),
        _owner(),
        store=args["store"],
        guests=args["guests"],
        preferred_guests=lambda: applied_guests(args["preferences"]),
        suggester=suggester,
        language=current().language,
    )
    return _menu(view)


@bp.patch("/current")
@idempotent_write
@use_args(MenuPatchArgs(), location="json")
def update(args: dict[str, Any]) -> dict[str, Any]:
    """Change the store, the guests (every recipe's too) or the budget."""
    return _menu(menus.update_menu(db.session(), _owner(), **args, language=current().language))


@bp.get("/current/suggestions")
@use_args(SuggestionsArgs(), location="query")
def suggestions(args: dict[str, Any]) -> dict[str, Any]:
    """Recipes to add: the shopper's suggestions that are not in the menu, at ``store_id`` (the
    menu's store by default), kept by its preferences with ``preferences=apply``; read-only, no menu
    is created."""
    menu = menus.find_menu(db.session(), _owner())
    store = args["store"]
    if store is None and menu is not None and menu.store_id is not None:
        store = db.session.get(Store, menu.store_id)
    exclude = tuple(entry.recipe_id for entry in menu.recipes) if menu is not None else ()
    ids = _suggest(
        store, args["limit"], types=tuple(args["type"]), exclude=exclude, preferences=applied(args["preferences"])
    )
    summaries = recipes.summaries(db.session(), ids, current().language)
    return {"data": RecipeSummarySchema(many=True).dump(summaries)}


# --- recipes and products ------------------------------------------------------------------


@bp.post("/current/recipes")
@idempotent_write
@use_args(AddRecipeArgs(), location="json")
def add_recipe(args: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe at the end of the menu (re-scale it when it is there already)."""
    view = menus.add_recipe(db.session(), _owner(), args["recipe_id"], args["guests"], current().language)
    return _menu(view)


@bp.patch("/current/recipes/<recipe_id>")
@idempotent_write
@use_args(GuestsArgs(), location="json")
def rescale_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Set a recipe's guests."""
    return _menu(menus.rescale_recipe(db.session(), _owner(), recipe_id, args["guests"], current().language))


@bp.delete("/current/recipes/<recipe_id>")
@idempotent_write
def remove_recipe(recipe_id: str) -> dict[str, Any]:
    """Remove a recipe."""
    return _menu(menus.remove_recipe(db.session(), _owner(), recipe_id, current().language))


@bp.post("/current/recipes/<recipe_id>/swap")
@idempotent_write
@use_args(SwapArgs(), location="json")
def swap_recipe(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """Replace a recipe with another at the same position."""
    return _menu(menus.swap_recipe(db.session(), _owner(), recipe_id, args["recipe_id"], current().language))


@bp.put("/current/recipes/<recipe_id>/products/<product_id>")
@idempotent_write
def select_product(recipe_id: str, product_id: str) -> dict[str, Any]:
    """Select a product of a recipe (a candidate that is not the ingredient's product replaces it)."""
    view = menus.select_product(db.session(), _owner(), recipe_id, product_id, True, current().language)
    return _menu(view)


@bp.delete("/current/recipes/<recipe_id>/products/<product_id>")
@idempotent_write
def unselect_product(recipe_id: str, product_id: str) -> dict[str, Any]:
    """Leave a product of a recipe out of the total and of the basket."""
    view = menus.select_product(db.session(), _owner(), recipe_id, product_id, False, current().language)
    return _menu(view)


# --- the end of a menu ---------------------------------------------------------------------


@bp.post("/current/finalize")
@connected_users_only
@idempotent_write
def finalize() -> dict[str, Any]:
    """Move the selected products into the connected user's basket at the menu's store, and close
    the menu; answers the basket's ``{basket, changes}``."""
    update = menus.finalize(db.session(), _owner(), current().language)
    return dump_one(BasketUpdateSchema(), update)


@bp.get("/merge-authless-menu")
@connected_users_only
@idempotent_write
@use_args(MergeArgs(), location="query")
def merge_authless_menu(args: dict[str, Any]) -> dict[str, Any]:
    """Replace the connected user's menu with the supplier's logged-out visitor's (the caller vouches
    that the user holds ``authless_id``)."""
    view = menus.merge_authless(db.session(), _owner(), args["authless_id"], args["store"], current().language)
    return _menu(view)

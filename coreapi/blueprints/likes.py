"""The connected user's liked recipes, under the calling supplier (user ids are per supplier), and its
favorites."""

from typing import Any

from flask import Blueprint

from coreapi.context import (
    connected_user_id,
    current,
    current_supplier,
    require_connected_user,
    require_supplier,
)
from coreapi.extensions import db
from coreapi.schemas.common import dump_one, dump_page
from coreapi.schemas.likes import FavoritesArgs, LikedRecipeSchema, LikedRecipesSchema, LikesArgs
from coreapi.schemas.parsing import use_args
from coreapi.services import likes
from plumbing.problems import NotFound

bp = Blueprint("likes", __name__, url_prefix="/likes")
# Supplier, then identity: 401/403 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_connected_user)


@bp.get("")
@use_args(LikesArgs(), location="query")
def index(args: dict[str, Any]) -> dict[str, Any]:
    """The asked recipe ids the user likes."""
    liked = likes.liked_among(db.session(), current_supplier().id, connected_user_id(), args["recipe_ids"])
    return dump_one(LikedRecipesSchema(), {"data": liked})


@bp.get("/recipes")
@use_args(FavoritesArgs(), location="query")
def favorites(args: dict[str, Any]) -> dict[str, Any]:
    """A page of the summaries of the recipes the user likes, the most recently liked first; the
    completion filter applies with ``store_id``."""
    page = likes.favorites(
        db.session(),
        current_supplier().id,
        connected_user_id(),
        page=args["page"],
        per_page=args["per_page"],
        store=args["store"],
        language=current().language,
    )
    return dump_page(LikedRecipeSchema(), page)


@bp.put("/<recipe_id>")
def like(recipe_id: str) -> tuple[str, int]:
    """Like a recipe (idempotent)."""
    if not likes.like(db.session(), current_supplier().id, connected_user_id(), recipe_id):
        raise NotFound(f"No recipe {recipe_id!r}.")
    return "", 204


@bp.delete("/<recipe_id>")
def unlike(recipe_id: str) -> tuple[str, int]:
    """Forget a like (idempotent)."""
    if not likes.unlike(db.session(), current_supplier().id, connected_user_id(), recipe_id):
        raise NotFound(f"No recipe {recipe_id!r}.")
    return "", 204

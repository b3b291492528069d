"""The connected user's liked recipes, under the calling supplier (user ids are per supplier)."""

from typing import Any

from flask import Blueprint

from coreapi.context import (
    connected_user_id,
    current_supplier,
    require_connected_user,
    require_supplier,
)
from coreapi.errors import NotFound
from coreapi.extensions import db
from coreapi.schemas.common import dump_one
from coreapi.schemas.likes import LikedRecipesSchema, LikesArgs
from coreapi.schemas.parsing import use_args
from coreapi.services import likes

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

"""The heart: like, unlike and read likes, for connected users only (spec: What the service does, 2)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.exceptions import Forbidden

from prerender.web.context import RequestContext, current_context
from prerender.gateway import get_gateway
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.schemas.actions import LikesQuery
from prerender.schemas.fields import Identifier
from prerender.web.parsing import use_args, use_kwargs

bp = Blueprint("likes", __name__, url_prefix="/likes")

RECIPE_ID = {"recipe_id": Identifier(required=True)}


def liking_user() -> RequestContext:
    """The request's context when it may like: a connected user of a known supplier. With personalization
    disabled the heart is still there, rendered client-side (spec, item 8), so likes keep working."""
    ctx = current_context()
    if not ctx.is_connected:
        raise Forbidden("Likes are for connected users (authorization: user_id <USER_ID>).")
    if ctx.supplier is None:
        raise Forbidden("Likes need a valid supplier-token: they belong to a supplier's users.")
    return ctx


@bp.get("")
@cache_policy(PRIVATE)
@use_args(LikesQuery(), location="query")
def liked(args: dict[str, Any]) -> dict[str, list[str]]:
    """Which of these recipes the user likes (none for a logged-out user or without a known supplier)."""
    ctx = current_context()
    if not (ctx.is_connected and ctx.supplier is not None):
        return {"data": []}
    liked_ids = get_gateway().liked_recipe_ids(ctx.upstream, args["recipe_ids"])
    return {"data": [rid for rid in args["recipe_ids"] if rid in liked_ids]}


@bp.put("/<recipe_id>")
@use_kwargs(RECIPE_ID, location="view_args")
def like(recipe_id: str) -> Response:
    """Like a recipe (idempotent)."""
    get_gateway().like(liking_user().upstream, recipe_id, liked=True)
    return Response(status=204)


@bp.delete("/<recipe_id>")
@use_kwargs(RECIPE_ID, location="view_args")
def unlike(recipe_id: str) -> Response:
    """Unlike a recipe (idempotent)."""
    get_gateway().like(liking_user().upstream, recipe_id, liked=False)
    return Response(status=204)

"""The heart: like, unlike and read likes, for connected users only."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.exceptions import Forbidden

from prerender.gateway import get_upstream
from prerender.schemas.actions import LikesQuery, RecipePath
from prerender.schemas.responses import LikedSchema
from prerender.web.context import RequestContext, current_context
from prerender.web.contract import (
    NO_CONTENT,
    NOT_MODIFIED,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    json_answer,
    no_content,
    problem,
)
from prerender.web.http_caching import PRIVATE, cache_policy

bp = Blueprint("likes", __name__, url_prefix="/likes")

LIKE_ANSWERS = {
    204: NO_CONTENT,
    **PASSED_THROUGH,
    **UPSTREAM_FAILURES,
    403: problem("Not a connected user of a known supplier."),
}


LOGIN_REQUIRED = (
    "Likes are for logged-in users, and this credential is a logged-out visitor's. Log the shopper in on your "
    "site, then give the page the credential of the user: the one your server's fragments carry when it asks them "
    "with `authorization: user_id <USER_ID>`."
)


def liking_user() -> RequestContext:
    """The request's context when it may like: a connected user of a known supplier. With personalization
    disabled the heart is still there, drawn by the browser, so likes keep working."""
    ctx = current_context()
    if not ctx.is_connected:
        raise Forbidden(LOGIN_REQUIRED)
    if ctx.supplier is None:
        raise Forbidden("Likes need a valid supplier-token: they belong to a supplier's users.")
    return ctx


@bp.get("")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="Which of these recipes the user likes",
    query=LikesQuery(),
    answers={200: json_answer(LikedSchema), 304: NOT_MODIFIED, **UPSTREAM_FAILURES},
)
def liked(query: dict[str, Any]) -> dict[str, list[str]]:
    """Which of these recipes the user likes (none for a logged-out user or without a known supplier)."""
    ctx = current_context()
    if not (ctx.is_connected and ctx.supplier is not None):
        return {"data": []}
    liked_ids = get_upstream().likes.liked_among(ctx.upstream, query["recipe_ids"])
    return {"data": [rid for rid in query["recipe_ids"] if rid in liked_ids]}


@bp.put("/<recipe_id>")
@declare(callers=Callers.BROWSER, summary="Like a recipe", path=RecipePath(), answers=LIKE_ANSWERS)
def like(recipe_id: str) -> Response:
    """Like a recipe (idempotent)."""
    get_upstream().likes.set_liked(liking_user().upstream, recipe_id, liked=True)
    return no_content()


@bp.delete("/<recipe_id>")
@declare(callers=Callers.BROWSER, summary="Unlike a recipe", path=RecipePath(), answers=LIKE_ANSWERS)
def unlike(recipe_id: str) -> Response:
    """Unlike a recipe (idempotent)."""
    get_upstream().likes.set_liked(liking_user().upstream, recipe_id, liked=False)
    return no_content()

"""The shopper's favorite products (the retailer's product ids), stored upstream per supplier and shopper (a user
or an authless visitor) and replaced whole on each PUT. Upstream, a favorite candidate of an ingredient is the
product a recipe added to the basket gets (docs/upstream.md, "Favorite products"). Never cached: no-store."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify
from werkzeug.exceptions import Forbidden

from prerender.gateway import get_upstream
from prerender.schemas.favorite_items import FavoriteItemsBody
from prerender.schemas.responses import FavoriteItemsSchema
from prerender.web.context import RequestContext, current_context
from prerender.web.contract import PASSED_THROUGH, UPSTREAM_FAILURES, Callers, declare, json_answer, problem

bp = Blueprint("favorite_items", __name__, url_prefix="/favorite-items")

NO_SHOPPER = {403: problem("No shopper (a user or an authless visitor) of a known supplier.")}


def favorites_shopper() -> RequestContext:
    """The request's context when it names a shopper of a known supplier (favorites are that shopper's)."""
    ctx = current_context()
    if ctx.supplier is None or not (ctx.is_connected or ctx.authless_id is not None):
        raise Forbidden("Favorite products belong to a shopper (a user or an authless visitor) of a known supplier.")
    return ctx


def stored(product_ids: tuple[str, ...]) -> Response:
    """The answer of both routes: the list as stored, never kept by any cache."""
    response = jsonify(product_ids=list(product_ids))
    response.cache_control.no_store = True
    return response


@bp.get("")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The shopper's favorite products",
    answers={200: json_answer(FavoriteItemsSchema, "The stored list (`no-store`)."), **NO_SHOPPER, **UPSTREAM_FAILURES},
)
def read() -> Response:
    """The shopper's favorite products, in the order stored."""
    return stored(get_upstream().catalog.favorite_items(favorites_shopper().upstream))


@bp.put("")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="Replace the shopper's favorite products",
    body=FavoriteItemsBody(),
    body_example={"product_ids": ["100042", "100118"]},
    answers={
        200: json_answer(FavoriteItemsSchema, "The stored list: the known products sent, in their order (`no-store`)."),
        **PASSED_THROUGH,
        **NO_SHOPPER,
        **UPSTREAM_FAILURES,
    },
)
def replace(body: dict[str, Any]) -> Response:
    """Replace the shopper's favorite products whole (a repeat is harmless; `[]` forgets them)."""
    return stored(get_upstream().catalog.save_favorite_items(favorites_shopper().upstream, body["product_ids"]))

"""An upstream's answer checked against the schema of the JSON a route documents it to be (prerender/schemas/).

The browser's reads answer the upstream's basket or menu as it came, and the planner page and the basket preview
draw from them: an answer of another shape (a count that is a word, a list that is not one) would reach a shopper's
SDK as a 200 or turn into a 500 while a template reads it. Checked here, it is `UpstreamBadResponse`, an upstream
failure like any other: a 502 problem on a browser route, the degraded fragment on a page (prerender/web/degraded.py,
fragment_response.py). The forwarded writes check theirs the same way (prerender/web/forwarding.py); the reads
that a browser route and a page both make are below, each checked in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from marshmallow import Schema

from prerender.gateway import CallerIdentity, UpstreamBadResponse, get_upstream
from prerender.schemas.menus import MenuSchema, MenuSuggestionsSchema
from prerender.schemas.responses import BasketSchema


def checked_answer(answer: type[Schema], payload: dict[str, Any], what: str) -> dict[str, Any]:
    """The payload, once it matches `answer` (members the schema does not declare are let through: AnswerSchema);
    else `UpstreamBadResponse` naming `what` (the upstream call) and the mismatched members."""
    errors = _schema(answer).validate(payload)
    if errors:
        raise UpstreamBadResponse(f"{what}: the answer does not match {answer.__name__}: {errors}")
    return payload


@functools.cache
def _schema(answer: type[Schema]) -> Schema:
    """One instance per answer schema (a schema is safe to share once built)."""
    return answer()


def basket(identity: CallerIdentity, *, store_id: str | None) -> dict[str, Any]:
    """The shopper's basket at `store_id` (moved there; the empty one at a store the upstream does not know), or
    where it is open without one; checked."""
    baskets = get_upstream().baskets
    answer = baskets.at_store(identity, store_id=store_id) if store_id else baskets.where_open(identity)
    return checked_answer(BasketSchema, answer, "GET /basket")


def current_menu(
    identity: CallerIdentity,
    *,
    store_id: str | None,
    origin: str | None = None,
    guests: int | None = None,
    apply_preferences: bool,
) -> dict[str, Any]:
    """The shopper's menu (prerender/gateway/menus.py, `current`); checked."""
    answer = get_upstream().menus.current(
        identity, store_id=store_id, origin=origin, guests=guests, apply_preferences=apply_preferences
    )
    return checked_answer(MenuSchema, answer, "GET /menus/current")


def menu_suggestions(
    identity: CallerIdentity, *, store_id: str | None, limit: int, types: Sequence[str] = (), apply_preferences: bool
) -> dict[str, Any]:
    """Recipes to add to the menu (prerender/gateway/menus.py, `suggestions`); checked."""
    answer = get_upstream().menus.suggestions(
        identity, store_id=store_id, limit=limit, types=types, apply_preferences=apply_preferences
    )
    return checked_answer(MenuSuggestionsSchema, answer, "GET /menus/current/suggestions")

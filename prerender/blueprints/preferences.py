"""The shopper's preferences (diets, ingredients to avoid, missing equipment, default guests), stored upstream
per supplier and shopper (a user or an authless visitor). The catalog's panel saves them here; the lists and
suggestions apply them upstream (rendering/preferences.py). A supplier with personalization off has none:
reading answers them empty and disabled, saving is refused (409)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from werkzeug.exceptions import Conflict, Forbidden

from prerender.gateway import Preferences, get_upstream
from prerender.rendering.preferences import has_preferences
from prerender.schemas.catalog import PreferencesBody
from prerender.schemas.responses import PreferencesSchema
from prerender.web.context import RequestContext, current_context
from prerender.web.contract import (
    NO_CONTENT,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    json_answer,
    no_content,
    problem,
)
from prerender.web.http_caching import NO_STORE, cache_policy

bp = Blueprint("preferences", __name__, url_prefix="/preferences")

DISABLED = Preferences(enabled=False)
# A removal is answered whatever the supplier's personalization (there is nothing to keep); a replacement is not.
REMOVE_ANSWERS = {
    **PASSED_THROUGH,
    **UPSTREAM_FAILURES,
    403: problem("No shopper (a user or an authless visitor) of a known supplier."),
}
REPLACE_ANSWERS = {
    **REMOVE_ANSWERS,
    400: problem("Invalid body or headers, or an unknown diet, ingredient or equipment."),
    409: problem("The supplier disabled personalization: no preferences."),
}


def shopper_of_known_supplier() -> RequestContext:
    """The request's context when it names a shopper (a user or an authless visitor) of a known supplier."""
    ctx = current_context()
    if ctx.supplier is None or not (ctx.is_connected or ctx.authless_id is not None):
        raise Forbidden("Preferences belong to a shopper (a user or an authless visitor) of a known supplier.")
    return ctx


def preferring_shopper() -> RequestContext:
    """The request's context when its shopper may change preferences: personalization on."""
    ctx = shopper_of_known_supplier()
    if not ctx.personalization:
        raise Conflict("Personalization is disabled for this supplier: there are no preferences to change.")
    return ctx


@bp.get("")
# Kept by no cache, a browser's disk cache included: a diet can tell of a health condition, and the next person at
# a shared device is someone else (as the favorite items).
@cache_policy(NO_STORE)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The shopper's preferences",
    answers={200: json_answer(PreferencesSchema, "The stored preferences (`no-store`)."), **UPSTREAM_FAILURES},
)
def read() -> dict[str, Any]:
    """The shopper's preferences (empty and disabled without personalization or without a shopper)."""
    ctx = current_context()
    if not has_preferences(ctx):
        return DISABLED.as_json()
    return get_upstream().catalog.preferences(ctx.upstream).as_json()


@bp.put("")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="Replace the shopper's preferences",
    body=PreferencesBody(),
    answers={200: json_answer(PreferencesSchema, "The stored preferences."), **REPLACE_ANSWERS},
)
def replace(body: dict[str, Any]) -> dict[str, Any]:
    """Replace the shopper's preferences whole (a repeat is harmless)."""
    body = {
        **body,
        **{name: list(dict.fromkeys(body[name])) for name in ("diets", "avoided_ingredients", "missing_equipment")},
    }
    return get_upstream().catalog.save_preferences(preferring_shopper().upstream, body).as_json()


@bp.delete("")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="Remove the shopper's preferences",
    answers={204: NO_CONTENT, **REMOVE_ANSWERS},
)
def remove() -> Response:
    """Remove the shopper's preferences (idempotent; also with personalization off, where none are kept)."""
    get_upstream().catalog.clear_preferences(shopper_of_known_supplier().upstream)
    return no_content()

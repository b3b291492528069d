"""The shopper's preferences, what it can choose from, and their application to the recipe reads.

Preferences belong to the identity of ``Authorization`` under the calling supplier (both required, as
for baskets), while the supplier has personalization on. ``GET /preferences/options`` is a catalog
read: no header needed. ``preferences=apply`` on the recipe list and the suggestions filters them with
the calling shopper's stored preferences (``applied``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from coreapi.blueprints import writes
from coreapi.context import (
    calling_supplier,
    current,
    current_identity,
    current_supplier,
    require_identity,
    require_supplier,
)
from coreapi.extensions import db
from coreapi.schemas.common import dump_one
from coreapi.schemas.parsing import use_args
from coreapi.schemas.preferences import APPLY, OptionsSchema, PreferencesArgs, PreferencesSchema
from coreapi.services import preferences
from coreapi.services.baskets import BasketOwner
from coreapi.services.recipes import RecipePreferences
from plumbing.problems import Conflict, handle_problem

options_bp = Blueprint("preference_options", __name__, url_prefix="/preferences")

bp = Blueprint("preferences", __name__, url_prefix="/preferences")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


def _owner() -> BasketOwner:
    return BasketOwner(current_supplier().id, current_identity())


def _enabled() -> bool:
    return current_supplier().personalization


@bp.errorhandler(preferences.PreferencesError)
def refused(error: preferences.PreferencesError) -> Response:
    """Personalization off: 409."""
    return handle_problem(Conflict(str(error)))


idempotent_write = writes.idempotent_writes(preferences.PreferencesError, refused)


def _applying(preferences_arg: str | None) -> tuple[BasketOwner, bool] | None:
    """The calling shopper and whether its supplier has personalization on, when the request says
    ``preferences=apply`` and names a shopper (a supplier and an identity); ``None`` otherwise."""
    supplier = calling_supplier()
    identity = current().identity
    if preferences_arg != APPLY or supplier is None or identity is None:
        return None
    return BasketOwner(supplier.id, identity), supplier.personalization


def applied(preferences_arg: str | None) -> RecipePreferences | None:
    """What the calling shopper's stored preferences ask of recipes, when the request says
    ``preferences=apply`` and names a shopper (a supplier with personalization on, and an identity);
    ``None`` otherwise: no condition."""
    shopper = _applying(preferences_arg)
    if shopper is None:
        return None
    owner, enabled = shopper
    return preferences.for_recipes(db.session(), owner, enabled=enabled)


def applied_guests(preferences_arg: str | None) -> int | None:
    """The calling shopper's preferred guests, under the same conditions as ``applied``; ``None``
    otherwise, or when it stored none."""
    shopper = _applying(preferences_arg)
    if shopper is None:
        return None
    owner, enabled = shopper
    return preferences.preferred_guests(db.session(), owner, enabled=enabled)


@options_bp.get("/options")
def options() -> dict[str, Any]:
    """The diets, ingredients and equipment a shopper can choose from, and the guests' bounds."""
    return dump_one(OptionsSchema(), preferences.options(db.session(), current().language))


@bp.get("")
def show() -> dict[str, Any]:
    """The shopper's preferences (the defaults when it has none, or personalization is off)."""
    view = preferences.get_preferences(db.session(), _owner(), enabled=_enabled())
    return dump_one(PreferencesSchema(), view)


@bp.put("")
@idempotent_write
@use_args(PreferencesArgs(), location="json")
def replace(args: dict[str, Any]) -> dict[str, Any]:
    """Replace the shopper's preferences (409 when personalization is off)."""
    view = preferences.replace_preferences(db.session(), _owner(), enabled=_enabled(), **args)
    return dump_one(PreferencesSchema(), view)


@bp.delete("")
def forget() -> tuple[str, int]:
    """Forget the shopper's preferences (idempotent)."""
    session = db.session()
    preferences.delete_preferences(session, _owner())
    session.commit()
    return "", 204

"""The ``/api/v1`` routes: every area's blueprint, behind one request-header guard."""

from typing import Any

from flask import Blueprint

from coreapi.blueprints import (
    baskets,
    categories,
    events,
    favorite_items,
    history,
    likes,
    menus,
    preferences,
    products,
    recipes,
    stores,
    suggestions,
    suppliers,
)
from coreapi.context import load_request_context
from plumbing.parsing import unstorable
from plumbing.problems import NotFound


def refuse_unstorable_names(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A path segment holding a text no database stores (a NUL character: werkzeug decodes `%00`) names no
    resource: a 404 before any query, which PostgreSQL would refuse with an error (a 500)."""
    if values and any(isinstance(value, str) and unstorable(value) for value in values.values()):
        raise NotFound("No resource is named with a NUL character.")


bp = Blueprint("api", __name__)
bp.url_value_preprocessor(refuse_unstorable_names)
bp.before_request(load_request_context)

bp.register_blueprint(suppliers.bp)
bp.register_blueprint(stores.bp)
bp.register_blueprint(categories.bp)
bp.register_blueprint(products.bp)
bp.register_blueprint(recipes.bp)
bp.register_blueprint(suggestions.bp)
bp.register_blueprint(likes.bp)
bp.register_blueprint(baskets.bp)
bp.register_blueprint(menus.bp)
bp.register_blueprint(history.bp)
bp.register_blueprint(preferences.options_bp)
bp.register_blueprint(preferences.bp)
bp.register_blueprint(favorite_items.bp)
bp.register_blueprint(events.bp)

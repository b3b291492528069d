"""The ``/api/v1`` routes: every area's blueprint, behind one request-header guard."""

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

bp = Blueprint("api", __name__)
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

"""Demo Market: a small French retailer site, a customer of prerender.

Its server calls prerender exactly as a customer's PHP or Java server would (mandatory headers,
stylesheet links in <head>, fragments inserted between its own products) and keeps working, without
cards, when prerender is down.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask

from . import cart, carts, ideas, planner, recipe_catalog, views
from .config import load_config
from .services import init_services


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the shop: configuration (defaults, SHOP_* environment, test mapping), clients, pages."""
    app = Flask(__name__)
    load_config(app, test_config)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger(__name__).setLevel(logging.INFO)
    init_services(app)
    carts.init_carts(app)
    app.register_blueprint(views.bp)
    app.register_blueprint(cart.bp)
    app.register_blueprint(ideas.bp)
    app.register_blueprint(planner.bp)
    app.register_blueprint(recipe_catalog.bp)
    return app

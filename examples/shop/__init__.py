"""Demo Market: a small French retailer site, a customer of prerender.

Its server calls prerender exactly as a customer's PHP or Java server would (mandatory headers,
stylesheet links in <head>, fragments inserted between its own products) and keeps working, without
cards, when prerender is down.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from examples.delivery import init_delivery, static_url_path

from . import cart, carts, ideas, planner, recipe_catalog, views
from .config import load_config
from .page_budget import register_page_budget
from .services import init_services

# Served under /static/<digest of its files>/ (examples/delivery.py).
STATIC_FOLDER = Path(__file__).resolve().parent / "static"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the shop: configuration (defaults, SHOP_* environment, test mapping), clients, pages."""
    app = Flask(__name__, static_url_path=static_url_path(STATIC_FOLDER))
    load_config(app, test_config)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger(__name__).setLevel(logging.INFO)
    init_delivery(app)
    init_services(app)
    register_page_budget(app)
    carts.init_carts(app)
    app.register_blueprint(views.bp)
    app.register_blueprint(cart.bp)
    app.register_blueprint(ideas.bp)
    app.register_blueprint(planner.bp)
    app.register_blueprint(recipe_catalog.bp)
    return app

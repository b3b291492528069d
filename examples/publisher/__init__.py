"""Le Magazine Cuisine: a demo recipe blog, a "publisher" customer of prerender.

It publishes its own recipes (texts, pictures, steps) and has no shop. On each recipe page its server inserts
prerender's no-supplier add-to-cart button: the reader opens a drawer with the recipe's ingredients, picks a
store of the publisher's affiliated retailer (the demo shop), adds the ingredients and is sent to the
retailer's site with the basket. The reader is always logged out: an authless identity issued by prerender,
kept in a cookie. When prerender is down or does not know a recipe, the page renders without the button.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from examples.delivery import init_delivery, static_url_path

from . import views
from .config import load_config
from .recipes import date_text, duration_text, quantity_text
from .services import init_services

# Served under /static/<digest of its files>/ (examples/delivery.py).
STATIC_FOLDER = Path(__file__).resolve().parent / "static"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the blog: configuration (defaults, PUBLISHER_* environment, `config`), client, pages."""
    app = Flask(__name__, static_url_path=static_url_path(STATIC_FOLDER))
    load_config(app, config)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger(__name__).setLevel(logging.INFO)
    init_delivery(app)
    init_services(app)
    app.register_blueprint(views.bp)
    app.jinja_env.filters.update(duration=duration_text, long_date=date_text, quantity=quantity_text)
    return app

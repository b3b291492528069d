"""coreapi: the reference upstream of prerender (catalog, pricing, suggestions, likes, baskets,
planner menus, events)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

from coreapi.blueprints import api, health, media
from coreapi.blueprints.writes import register_write_deadline
from coreapi.cli import register_commands
from coreapi.config import load_config
from coreapi.extensions import db, enforce_sqlite_foreign_keys
from coreapi.log import configure_logging, register_request_logging
from coreapi.schemas.fields import PUBLIC_ID_KEY
from coreapi.services.connection_watchdog import ConnectionWatchdog, bound_connection_holds
from coreapi.services.public_ids import PublicIdKey
from coreapi.services.write_deadline import bound_statements
from plumbing.problems import register_problem_handlers

# The repository's instance/ folder, wherever the app is started from; an installed coreapi names its own with
# COREAPI_INSTANCE_PATH (docs/operations.md, "Production install").
INSTANCE_PATH = Path(__file__).resolve().parent.parent / "instance"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the application: configuration, extensions, routes, error handlers, commands."""
    folder = instance_path()
    app = Flask(__name__, instance_path=str(folder), instance_relative_config=True, static_folder=None)
    folder.mkdir(parents=True, exist_ok=True)
    load_config(app, test_config)
    configure_logging(app)
    register_extensions(app)
    register_blueprints(app)
    register_problem_handlers(app)
    # The request id first (plumbing/request_id.py): a request the write deadline's hooks refuse keeps its id.
    register_request_logging(app)
    register_write_deadline(app)
    register_commands(app)
    return app


def instance_path() -> Path:
    """The instance folder (coreapi.cfg, the service key, the default SQLite file): the folder
    COREAPI_INSTANCE_PATH names, else the repository's instance/ (an installed wheel would put it in
    site-packages)."""
    configured = os.environ.get("COREAPI_INSTANCE_PATH")
    return Path(configured) if configured else INSTANCE_PATH


def register_extensions(app: Flask) -> None:
    db.init_app(app)
    with app.app_context():
        enforce_sqlite_foreign_keys(db.engine)
        bound_statements(db.engine)
        watchdog = ConnectionWatchdog(hold_seconds=float(app.config["DATABASE_HOLD_SECONDS"]))
        app.extensions["coreapi_connection_watchdog"] = watchdog
        bound_connection_holds(db.engine, watchdog)
    app.extensions[PUBLIC_ID_KEY] = PublicIdKey()


def register_blueprints(app: Flask) -> None:
    app.register_blueprint(health.bp)
    app.register_blueprint(media.bp)
    app.register_blueprint(api.bp, url_prefix="/api/v1")

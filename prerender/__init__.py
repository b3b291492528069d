"""prerender: pre-rendered HTML fragments of shoppable-recipe components (see README.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from plumbing.request_id import register_request_id
from prerender.blueprints import register_blueprints
from prerender.config import load_config
from prerender.extensions import cache, cors
from prerender.gateway import init_gateway
from prerender.rendering.assets import init_assets
from prerender.rendering.fragments import init_fragments
from prerender.rendering.i18n import init_i18n
from prerender.rendering.templates import read_templates
from prerender.schemas.headers import REQUEST_ID_PATTERN
from prerender.web.admission import register_admission
from prerender.web.cors_policy import allowed_headers, allowed_origins, register_cors_refusals
from prerender.web.credentials import init_credentials
from prerender.web.degraded import register_fallback_record
from prerender.web.errors import register_errorhandlers
from prerender.web.http_caching import register_http_caching
from prerender.web.request_framing import register_request_framing
from prerender.web.request_limits import Request, register_request_limits
from prerender.web.request_log import configure_logging, register_request_log
from prerender.web.routing import RouteRule
from prerender.web.security_headers import register_security_headers
from prerender.web.trace_context import register_trace_context
from prerender.web.upstream_budget import register_upstream_budget

# The instance folder of a checkout (development, `make run`); an installed prerender names its own with
# PRERENDER_INSTANCE_PATH (docs/operations.md, "Production install").
INSTANCE_PATH = Path(__file__).resolve().parent.parent / "instance"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the prerender application."""
    app = Flask(__name__, instance_path=str(instance_path()), instance_relative_config=True, static_folder=None)
    app.url_rule_class = RouteRule  # `head=False` for a GET that acts (prerender/web/routing.py)
    app.request_class = Request  # a body held to its Content-Length (prerender/web/request_limits.py)
    app.jinja_options = {**app.jinja_options, "trim_blocks": True, "lstrip_blocks": True}
    load_config(app, test_config)
    configure_logging(app)
    register_extensions(app)
    register_request_hooks(app)
    register_blueprints(app)
    register_errorhandlers(app)
    # Last, once every blueprint (and its template folder) is there: a running process renders the templates of the
    # release it started with, whatever is installed after it (prerender/rendering/templates.py).
    read_templates(app)
    return app


def instance_path() -> Path:
    """The instance folder (instance/config.py, the signing and service keys, text overrides): the folder
    PRERENDER_INSTANCE_PATH names, else the checkout's instance/ (beside the package, which an installed wheel
    would put in site-packages)."""
    configured = os.environ.get("PRERENDER_INSTANCE_PATH")
    return Path(configured) if configured else INSTANCE_PATH


def register_extensions(app: Flask) -> None:
    """Bind the extensions and the services built from the configuration."""
    cache.init_app(app)
    cors.init_app(
        app,
        origins=allowed_origins(app),  # every localhost origin and CORS_ALLOWED_ORIGINS (web/cors_policy.py)
        # The headers the service reads, `baggage`, and the configured ones (web/cors_policy.py): a page whose scripts
        # add one of them to every call would otherwise have every SDK call refused at the preflight.
        allow_headers=allowed_headers(app),
        # What a page on another origin may read: the request id, the planner panel's "more", and the headers
        # the browser routes' problems carry (when to retry a 503, what a 401 wants: docs/browser-api.md).
        expose_headers=["X-Request-Id", "X-Has-More", "Retry-After", "WWW-Authenticate"],
        methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        max_age=600,
        # No CORS headers on a request without Origin (it is not a CORS request, and they would
        # name a customer's origin). Vary: Origin is added by http_caching.vary_on_origin, to every
        # answer and in one line.
        always_send=False,
        vary_header=False,
    )
    init_gateway(app)
    init_assets(app)
    init_i18n(app)
    init_fragments(app)
    init_credentials(app)


def register_request_hooks(app: Flask) -> None:
    """The hooks every request goes through, in order: its id (plumbing/request_id.py), its caller's trace
    (web/trace_context.py), the request log (its timer starts before anything may refuse the request), the
    request's framing (method, Host, transfer coding), the size limits, admission (overload shed at the door), its
    upstream time budget, the record of what it does without when the upstream fails (degraded answers), HTTP
    caching, the security headers, and the refusals of origins CORS does not allow, said aloud (the header guard,
    and after it the admission of the fragment requests no supplier vouches for, are the versioned blueprints' own:
    prerender/blueprints/__init__.py)."""
    register_request_id(app, pattern=REQUEST_ID_PATTERN)
    register_trace_context(app)
    register_request_log(app)
    register_request_framing(app)
    register_request_limits(app)
    register_admission(app)
    register_upstream_budget(app)
    register_fallback_record(app)
    register_http_caching(app)
    register_security_headers(app)
    register_cors_refusals(app)

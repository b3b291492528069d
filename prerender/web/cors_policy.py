"""Which browser origins may read the service's answers (docs/decisions.md, CORS), and the refusals said aloud.

Every localhost origin is allowed, and the exact origins of `CORS_ALLOWED_ORIGINS`; flask-cors (prerender/__init__.py)
answers them. Any other origin gets no CORS headers, and its browser refuses the answers to the page: the cards
still read, but every drawer says the recipe could not be loaded, and nothing in the page can tell why (its scripts
see a network failure). So a refusal is said where the operator looks: a warning naming the origin and the setting
(at most once a minute per process, with how many more there were), the request's log line (`cors_refused`), and a
counter (`prerender_cors_refused_total`). Static files are open to every origin and never refused.
"""

from __future__ import annotations

import logging
import re

from flask import Flask, Response, current_app, g, request

from plumbing.log_text import clipped
from prerender.metrics import CORS_REFUSED
from prerender.web.throttled_log import ThrottledWarning

log = logging.getLogger(__name__)

# Every localhost origin, on any port (1 to 65535, written without leading zeros, as browsers serialize an
# origin), over http or https: `localhost` and the names under it (`shop.localhost`, which browsers resolve to the
# loopback themselves, RFC 6761), 127.0.0.1 and [::1]. flask-cors tries it with re.match: `\Z`, not `$`, which
# would also take a final newline.
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
LOCAL_ORIGINS = re.compile(rf"https?://(({LABEL}\.)*localhost|127\.0\.0\.1|\[::1\])(:{PORT})?\Z")

REFUSALS_KEY = "prerender.cors_refusals"
REFUSAL_WARNING_SECONDS = 60.0


def allowed_origins(app: Flask) -> list[str | re.Pattern[str]]:
    """The origins whose pages may read the answers, as flask-cors takes them."""
    return [LOCAL_ORIGINS, *app.config["CORS_ALLOWED_ORIGINS"]]


def origin_allowed(origin: str) -> bool:
    """Whether a page of `origin` may read the answers."""
    return LOCAL_ORIGINS.match(origin) is not None or origin in current_app.config["CORS_ALLOWED_ORIGINS"]


def note_refused_origin(response: Response) -> Response:
    """after_request: a browser request from an origin not allowed (a static file's answer, open to all, aside) is
    logged, counted and marked for the request's line."""
    origin = request.headers.get("Origin")
    if not origin or response.headers.get("Access-Control-Allow-Origin") == "*" or origin_allowed(origin):
        return response
    preflight = request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
    CORS_REFUSED.labels("preflight" if preflight else "request").inc()
    g.cors_refused = clipped(origin, 200)
    warning: ThrottledWarning = current_app.extensions[REFUSALS_KEY]
    warning.warn(
        "origin %s is not allowed (PRERENDER_CORS_ALLOWED_ORIGINS): its pages cannot read the answers to their SDK "
        "calls, and the shoppers there see every drawer fail (%s %s)",
        g.cors_refused,
        request.method,
        clipped(request.path, 200),
    )
    return response


def register_cors_refusals(app: Flask) -> None:
    """Attach the refusals' hook to the app, with its throttled warning."""
    app.extensions[REFUSALS_KEY] = ThrottledWarning(log, seconds=REFUSAL_WARNING_SECONDS)
    app.after_request(note_refused_origin)

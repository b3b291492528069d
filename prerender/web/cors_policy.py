"""Which browser origins may read the service's answers, and which headers their pages may send (docs/decisions.md,
CORS); the refusals said aloud.

Every localhost origin is allowed, and the exact origins of `CORS_ALLOWED_ORIGINS`; flask-cors (prerender/__init__.py)
answers them. Any other origin gets no CORS headers, and its browser refuses the answers to the page: the cards
still read, but every drawer says the recipe could not be loaded, and nothing in the page can tell why (its scripts
see a network failure). A page of an allowed origin whose scripts add a header the service does not allow (a
tracing tool's) fails the same way, at the preflight. So a refusal is said where the operator looks: a warning
naming the origin (or the headers) and the setting, at most once a minute per process with how many more there
were; the request's log line (`cors_refused`); and `prerender_cors_refused_total{kind}`. Only a browser's CORS
requests to the declared routes count (`Sec-Fetch-Mode: cors`, which every browser of the support floor sends):
a server that forwards an `Origin`, a scanner, or a static file (open to every origin) is none of them.
`GET /origin-check` (prerender/blueprints/origin_check.py) tells a page, or an integrator with curl, whether an
origin is allowed.
"""

from __future__ import annotations

import logging
import re

from flask import Flask, Response, current_app, g, request

from plumbing.log_text import clipped
from prerender.config_checks import HOST_LABEL
from prerender.metrics import CORS_REFUSED
from prerender.schemas.headers import request_header_names
from prerender.web.contract import request_contract
from prerender.web.throttled_log import ThrottledWarning

log = logging.getLogger(__name__)

# Every localhost origin, on any port (1 to 65535, written without leading zeros, as browsers serialize an
# origin), over http or https: `localhost` and the names under it (`shop.localhost`, which browsers resolve to the
# loopback themselves, RFC 6761), 127.0.0.1 and [::1]. flask-cors tries it with re.match: `\Z`, not `$`, which
# would also take a final newline.
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
LOCAL_ORIGINS = re.compile(rf"https?://(({HOST_LABEL}\.)*localhost|127\.0\.0\.1|\[::1\])(:{PORT})?\Z")

REFUSALS_KEY = "prerender.cors_refusals"
ALLOWED_HEADERS_KEY = "prerender.cors_allowed_headers"
REFUSAL_WARNING_SECONDS = 60.0


def allowed_origins(app: Flask) -> list[str | re.Pattern[str]]:
    """The origins whose pages may read the answers, as flask-cors takes them (CORS_ALLOWED_ORIGINS holds exact,
    lower-case origins: prerender/config_checks.py)."""
    return [LOCAL_ORIGINS, *app.config["CORS_ALLOWED_ORIGINS"]]


def allowed_headers(app: Flask) -> list[str]:
    """The request headers a page may send: those the service reads (their schemas: the W3C tracing headers among
    them), `content-type`, `baggage` (which a tracing tool sends with them; not read), and the configured ones."""
    return [*request_header_names(), "content-type", "baggage", *app.config["CORS_ALLOWED_HEADERS"]]


def origin_allowed(origin: str) -> bool:
    """Whether a page of `origin` may read the answers (compared as flask-cors does: without case)."""
    folded = origin.casefold()
    return LOCAL_ORIGINS.match(folded) is not None or folded in current_app.config["CORS_ALLOWED_ORIGINS"]


def headers_refused() -> list[str]:
    """The headers a preflight asks to send that the service does not allow."""
    asked = request.headers.get("Access-Control-Request-Headers", "")
    allowed: frozenset[str] = current_app.extensions[ALLOWED_HEADERS_KEY]
    return [name for name in (part.strip().lower() for part in asked.split(",")) if name and name not in allowed]


def note_refused_origin(response: Response) -> Response:
    """after_request: a browser's CORS request to a declared route from an origin not allowed, or a preflight asking
    for headers not allowed, is logged, counted and marked for the request's line."""
    origin = request.headers.get("Origin")
    if not origin or request.headers.get("Sec-Fetch-Mode") != "cors" or request_contract() is None:
        return response
    if response.headers.get("Access-Control-Allow-Origin") == "*":
        return response  # open to every origin (GET /origin-check)
    preflight = request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers
    warning: ThrottledWarning = current_app.extensions[REFUSALS_KEY]
    if not origin_allowed(origin):
        CORS_REFUSED.labels("preflight" if preflight else "request").inc()
        g.cors_refused = clipped(origin, 200)
        warning.warn(
            "origin %s is not allowed (PRERENDER_CORS_ALLOWED_ORIGINS): its pages cannot read the answers to their "
            "SDK calls, and the shoppers there see every drawer fail (%s %s)",
            g.cors_refused,
            request.method,
            clipped(request.path, 200),
        )
    elif preflight and (refused := headers_refused()):
        CORS_REFUSED.labels("header").inc()
        g.cors_refused = clipped(", ".join(refused), 200)
        warning.warn(
            "a page of %s asks to send headers this service does not allow (%s: PRERENDER_CORS_ALLOWED_HEADERS): a "
            "script of the page adds them to the SDK's calls, which its browser then refuses (%s)",
            clipped(origin, 200),
            g.cors_refused,
            clipped(request.path, 200),
        )
    return response


def register_cors_refusals(app: Flask) -> None:
    """Attach the refusals' hook to the app, with its throttled warning and the headers it allows (read once)."""
    app.extensions[REFUSALS_KEY] = ThrottledWarning(log, seconds=REFUSAL_WARNING_SECONDS)
    app.extensions[ALLOWED_HEADERS_KEY] = frozenset(name.lower() for name in allowed_headers(app))
    app.after_request(note_refused_origin)

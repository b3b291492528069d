"""Logs as JSON lines on stdout, one line per request, each with the request id.

Nothing secret is logged in clear: the supplier appears by id (never its token) and users by a short
hash of their id, enough to follow one user's requests without naming them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import sys
import time
from typing import Any

from flask import Flask, Response, current_app, g, has_request_context, request

from plumbing.log_text import clipped
from plumbing.pseudonyms import pseudonym as keyed_pseudonym
from prerender.gateway import trace
from prerender.metrics import REQUEST_SECONDS, REQUESTS, SUPPLIER_ANSWERS
from prerender.web.degraded import DEGRADED_HEADER
from prerender.web.queue_age import measured_queue_seconds
from prerender.web.versions import API_VERSIONS

# Attributes every LogRecord has; anything else on a record was passed in `extra=` and is logged too.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


PSEUDONYM_KEY = "prerender.log-pseudonym-key"


def pseudonym(value: str) -> str:
    """A stable stand-in for an identifier in logs (plumbing/pseudonyms.py), under a key derived from the app's
    signing key."""
    return keyed_pseudonym(current_app.extensions[PSEUDONYM_KEY], value)


def shopper_pseudonym(supplier_id: str | None, identity: str) -> str:
    """A shopper's stand-in in the request log: an identity is a shopper of its supplier only (docs/security.md),
    so the same id at two suppliers, two shoppers, reads as two, and no line links one retailer's shopper to
    another's."""
    return pseudonym(f"{supplier_id or '-'} {identity}")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC), level, logger, message, the request id, and any `extra` fields."""

    converter = staticmethod(time.gmtime)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if has_request_context() and "request_id" in g:
            entry["request_id"] = g.request_id
        entry.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(app: Flask) -> None:
    """The `prerender` loggers write JSON lines to stdout at the configured level (a container's log); users
    appear as pseudonyms keyed by the signing key, the last of SECRET_KEYS (the same on every node of a
    deployment): a rotation changes them once, when the new key starts signing (docs/security.md)."""
    signing_key = str(app.config["SECRET_KEYS"][-1]).encode()
    app.extensions[PSEUDONYM_KEY] = hmac.new(signing_key, b"prerender request log pseudonyms", hashlib.sha256).digest()
    logger = logging.getLogger("prerender")
    logger.setLevel(app.config["LOG_LEVEL"])
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.propagate = app.testing  # tests read records through pytest's caplog (root logger)


# The `supplier` label of a request no supplier vouches for (no token, a made-up or unchecked one, or a browser's
# request refused before its credential was read).
NO_SUPPLIER = "none"


def answer_outcome(response: Response) -> str:
    """How an API route answered, as prerender_supplier_answers_total counts it: `whole`, `degraded` (a 200 made
    without, stale or shed: prerender/web/degraded.py), `refused` (a 4xx: the caller's to mend) or `failed` (a
    5xx: ours or the upstream's)."""
    if response.status_code >= 500:
        return "failed"
    if response.status_code >= 400:
        return "refused"
    return "degraded" if response.headers.get(DEGRADED_HEADER) else "whole"


def start_timer() -> None:
    g.started = time.perf_counter()


def log_request(response: Response) -> Response:
    """after_request: the request's one line, and its request metrics."""
    ctx = g.get("ctx")
    seconds = time.perf_counter() - g.get("started", time.perf_counter())
    # Unmatched URLs share one label: a scanner must not create a series per path.
    endpoint = request.endpoint or "unmatched"
    outer = request.blueprints[-1] if request.blueprints else "-"
    version = ctx.api_version if ctx is not None else (outer if outer in API_VERSIONS else "-")
    REQUESTS.labels(endpoint, str(response.status_code), version).inc()
    REQUEST_SECONDS.labels(endpoint, version).observe(seconds)
    if version != "-":
        supplier = ctx.supplier.id if ctx is not None and ctx.supplier is not None else NO_SUPPLIER
        SUPPLIER_ANSWERS.labels(supplier, answer_outcome(response)).inc()
    fields: dict[str, Any] = {
        "method": request.method,
        "path": clipped(request.path),  # an unmatched path is the client's to choose (plumbing/log_text.py)
        "endpoint": request.endpoint,
        "status": response.status_code,
        "duration_ms": round(seconds * 1000, 1),
    }
    queued = measured_queue_seconds()  # what it waited before the worker read it
    if queued:
        fields["queued_ms"] = round(queued * 1000, 1)
    caller_trace = trace.current()  # the caller's trace, and prerender's span in it (prerender/web/trace_context.py)
    if caller_trace is not None:
        fields.update(trace_id=caller_trace.trace_id, span_id=caller_trace.span_id, parent_id=caller_trace.parent_id)
    if "cors_refused" in g:  # an origin its browser refuses the answer to (prerender/web/cors_policy.py)
        fields["cors_refused"] = g.cors_refused
    degraded = response.headers.get(DEGRADED_HEADER)  # a 200 made without, stale or shed (prerender/web/degraded.py)
    if degraded:
        fields["degraded"] = degraded
    if ctx is not None:
        fields["api_version"] = ctx.api_version
        supplier_id = ctx.supplier.id if ctx.supplier else None
        fields["supplier_id"] = supplier_id
        identity = ctx.user_id or ctx.authless_id
        fields["user"] = shopper_pseudonym(supplier_id, identity) if identity else None
    logging.getLogger("prerender.request").info("request", extra=fields)
    return response


def register_request_log(app: Flask) -> None:
    """Time every request and log it."""
    app.before_request(start_timer)
    app.after_request(log_request)

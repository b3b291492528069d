"""Logging to stdout, with the request id of every line, and the ``X-Request-Id`` header."""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid

from flask import Flask, Response, g, has_request_context, request

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-Id"
_VALID_REQUEST_ID = re.compile(r"^[\w.:@/+=-]{1,200}$")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record ("-" outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = g.get("request_id", "-") if has_request_context() else "-"
        return True


def configure_logging(app: Flask) -> None:
    """Send the ``coreapi`` loggers to stdout at ``LOG_LEVEL`` (once per process)."""
    logger = logging.getLogger("coreapi")
    logger.setLevel(str(app.config["LOG_LEVEL"]).upper())
    if not any(isinstance(f, RequestIdFilter) for h in logger.handlers for f in h.filters):
        handler = logging.StreamHandler(sys.stdout)
        handler.addFilter(RequestIdFilter())
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logger.addHandler(handler)


def assign_request_id() -> None:
    """Adopt the caller's ``X-Request-Id`` when it is sane, make one up otherwise."""
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = incoming if _VALID_REQUEST_ID.match(incoming) else uuid.uuid4().hex
    g.request_started = time.perf_counter()


def echo_request_id(response: Response) -> Response:
    """Return the request id and log the request."""
    request_id = g.get("request_id")
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    elapsed = (time.perf_counter() - g.get("request_started", time.perf_counter())) * 1000
    log.info(
        "%s %s %s %.1fms",
        request.method,
        request.full_path.rstrip("?"),
        response.status_code,
        elapsed,
    )
    return response


def register_request_logging(app: Flask) -> None:
    app.before_request(assign_request_id)
    app.after_request(echo_request_id)

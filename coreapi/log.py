"""Logging to stderr, with the request id of every line (given and echoed in ``X-Request-Id`` by
plumbing/request_id.py). stderr, so that a command's own output on stdout (``export-shopper``'s JSON document)
is never mixed with a log line; systemd's journal and ``make run``'s log file take both streams.

The logs name no shopper: an identity (an ``authless_id`` or ``user_id`` query parameter of the
request log, or any identity a message needs) is written as its pseudonym, ``~`` and the first 16
hex digits of its HMAC-SHA256 under ``LOG_PSEUDONYM_KEY`` (``COREAPI_LOG_PSEUDONYM_KEY``): the
same identity reads the same in every line, and cannot be read back without the key. Without a
configured key, a random one per process (and a warning, once). The request lines of werkzeug's
server (``flask run``, the test suites' live servers), when it serves coreapi, are pseudonymized
the same way.

No header is logged: not ``Authorization``, nor the secrets ``Supplier-Token`` and ``X-Service-Key``
(a refused service key is logged as refused, never written). The one exception is the caller's W3C trace: the trace
id and the calling span's id of a valid ``traceparent`` (hex only, plumbing/trace_context.py) end the request line.
"""

from __future__ import annotations

import logging
import re
import secrets
import sys
import time
from urllib.parse import unquote_plus

from flask import Flask, Response, current_app, g, has_request_context, request

from plumbing.log_text import clipped
from plumbing.pseudonyms import pseudonym as keyed_pseudonym
from plumbing.request_id import register_request_id
from plumbing.trace_context import TRACEPARENT, TRACESTATE, TraceContext, trace_of

log = logging.getLogger(__name__)

# The callers' request ids coreapi keeps (docs/upstream.md, X-Request-Id); another is replaced by a new one.
REQUEST_ID_PATTERN = re.compile(r"[\w.:@/+=-]{1,200}")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
# Query parameters pseudonymized in the request log (compared without case): those that carry an identity, and the
# free text a shopper typed (a search can tell of a diet or a health condition), which the pseudonym still lets one
# count without reading it.
PSEUDONYMIZED_PARAMETERS = frozenset({"authless_id", "user_id", "q", "keyword", "search"})
# A query parameter with a value, at the start of a query string or after its "?" or "&".
_QUERY_PARAMETER = re.compile(r"(^|[?&])([^=&?#\s]+)=([^&#\s]*)")
_PSEUDONYM_KEY = "coreapi.log.pseudonym_key"  # app.extensions
# The key of the processes without a configured one, and whether they were warned.
_process_key = secrets.token_bytes(32)
_warned_about_the_random_key = False
# The key of the application configured last, for werkzeug's request lines (no app context there).
_server_key = _process_key


def _configured_key(app: Flask) -> bytes:
    """``LOG_PSEUDONYM_KEY``, or the process's random key (with a warning, once per process)."""
    global _warned_about_the_random_key
    configured = app.config.get("LOG_PSEUDONYM_KEY")
    if configured is not None and str(configured) != "":
        return str(configured).encode()
    if not _warned_about_the_random_key:
        _warned_about_the_random_key = True
        log.warning(
            "COREAPI_LOG_PSEUDONYM_KEY is not set: identities in the logs are pseudonymized with a "
            "random key of this process, so the same identity reads differently in another process "
            "or after a restart. Set it (a long random secret) to follow one across the logs."
        )
    return _process_key


def pseudonym(identity: str) -> str:
    """What the logs write for ``identity`` (in an application context): 16 hex digits of its
    HMAC-SHA256 (the ``~`` that marks it in the request log is not part of it)."""
    return keyed_pseudonym(current_app.extensions.get(_PSEUDONYM_KEY, _process_key), identity)


def pseudonymize_query(text: str, key: bytes) -> str:
    """``text`` (a query string, or a request line holding a URL) with the value of every identity
    parameter replaced by ``~`` and its pseudonym; names and values are compared decoded."""

    def replace(match: re.Match[str]) -> str:
        start, name, value = match.groups()
        if unquote_plus(name).lower() not in PSEUDONYMIZED_PARAMETERS:
            return match.group(0)
        return f"{start}{name}=~{keyed_pseudonym(key, unquote_plus(value))}"

    return _QUERY_PARAMETER.sub(replace, text)


def loggable_path() -> str:
    """The request's path and query as they were sent, but for the identity parameters' values:
    their pseudonyms."""
    query = request.query_string.decode("utf-8", "replace")
    if not query:
        return clipped(request.path)
    key = current_app.extensions.get(_PSEUDONYM_KEY, _process_key)
    return clipped(f"{request.path}?{pseudonymize_query(query, key)}")


class ServerLinePseudonymFilter(logging.Filter):
    """Pseudonymizes the identities in werkzeug's request lines (``"GET /...?authless_id=..."``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                pseudonymize_query(arg, _server_key) if isinstance(arg, str) else arg for arg in record.args
            )
        if isinstance(record.msg, str):
            record.msg = pseudonymize_query(record.msg, _server_key)
        return True


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record ("-" outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = g.get("request_id", "-") if has_request_context() else "-"
        return True


def configure_logging(app: Flask) -> None:
    """Send the ``coreapi`` loggers to stderr at ``LOG_LEVEL`` (once per process); set the
    pseudonyms' key."""
    logger = logging.getLogger("coreapi")
    logger.setLevel(str(app.config["LOG_LEVEL"]).upper())
    if not any(isinstance(f, RequestIdFilter) for h in logger.handlers for f in h.filters):
        handler = logging.StreamHandler(sys.stderr)
        handler.addFilter(RequestIdFilter())
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logger.addHandler(handler)
    global _server_key
    _server_key = app.extensions[_PSEUDONYM_KEY] = _configured_key(app)
    server = logging.getLogger("werkzeug")
    if not any(isinstance(f, ServerLinePseudonymFilter) for f in server.filters):
        server.addFilter(ServerLinePseudonymFilter())


def start_request() -> None:
    """Start the request's timer; read its caller's trace (plumbing/trace_context.py), which its line names."""
    g.request_started = time.perf_counter()
    g.trace = trace_of(request.headers.getlist(TRACEPARENT), request.headers.getlist(TRACESTATE))


def log_request(response: Response) -> Response:
    """Log the request (identities pseudonymized), with its request id, and its caller's trace and span when it
    came with a valid `traceparent` (prerender's calls name prerender's span: its request log's `span_id`)."""
    elapsed = (time.perf_counter() - g.get("request_started", time.perf_counter())) * 1000
    trace: TraceContext | None = g.get("trace")
    log.info(
        "%s %s %s %.1fms%s",
        request.method,
        loggable_path(),
        response.status_code,
        elapsed,
        f" trace={trace.trace_id} parent={trace.parent_id}" if trace is not None else "",
    )
    return response


def register_request_logging(app: Flask) -> None:
    """The request id (plumbing/request_id.py: the caller's when it matches ``REQUEST_ID_PATTERN``), then one
    log line per request."""
    register_request_id(app, pattern=REQUEST_ID_PATTERN)
    app.before_request(start_request)
    app.after_request(log_request)

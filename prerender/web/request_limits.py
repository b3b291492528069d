"""Limits on the size of a request's URL, headers and body, checked before anything reads them.

The URL and header limits are stricter than gunicorn's own (gunicorn.conf.py), so a client over them gets a
problem+json that names what is too large (414, 431), never gunicorn's plain-text 400; header values are
never echoed back. The body's limit is Flask's MAX_CONTENT_LENGTH (413), whether the body has a
Content-Length or is streamed (Transfer-Encoding: chunked); a streamed body that is not valid chunked coding,
or a body shorter than its Content-Length, is a 400, on every route.
"""

from __future__ import annotations

import logging

from flask import Flask, current_app, request
from werkzeug.exceptions import (
    BadRequest,
    HTTPException,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestURITooLarge,
)

log = logging.getLogger(__name__)


def check_request_size() -> None:
    """before_request: 414 for a long URL, 431 for too many, too long or too large headers in all."""
    config = current_app.config
    target = request.environ.get("RAW_URI") or request.full_path
    if len(target.encode("latin-1", "replace")) > config["MAX_URL_BYTES"]:
        raise RequestURITooLarge(f"The URL (path and query) is longer than {config['MAX_URL_BYTES']} bytes.")
    fields = 0
    total = 0
    for name, value in request.headers.items():
        size = len(name) + len(value.encode("latin-1", "replace"))
        if size > config["MAX_HEADER_FIELD_BYTES"]:
            raise RequestHeaderFieldsTooLarge(
                f"Header {name.lower()!r} is larger than {config['MAX_HEADER_FIELD_BYTES']} bytes."
            )
        fields += 1
        total += size
    if fields > config["MAX_HEADER_FIELDS"]:
        raise RequestHeaderFieldsTooLarge(f"More than {config['MAX_HEADER_FIELDS']} headers.")
    if total > config["MAX_HEADER_BYTES"]:
        raise RequestHeaderFieldsTooLarge(f"The headers are larger than {config['MAX_HEADER_BYTES']} bytes in all.")


def check_body_size() -> None:
    """before_request: 413 for a body larger than MAX_CONTENT_LENGTH, sent with a Content-Length or not.

    werkzeug refuses a Content-Length over the limit when the body is first read, but holds a streamed body
    (no Content-Length; the server ends the stream, `wsgi.input_terminated`, as gunicorn and werkzeug's
    server do for a chunked one) to it by stopping there: reading it whole returns its first
    MAX_CONTENT_LENGTH bytes without an error, so every reader of the body (the webargs parser,
    prerender/web/parsing.py; a beacon's headers, prerender/web/context.py) would get a cut body and answer
    "invalid JSON". So such a body is read here, once, before them (they get the same bytes,
    `get_data(cache=True)`); a body that fills the limit and has one more byte on the connection is a 413, and
    one the server's reader refuses (not chunked coding, or cut short) a 400 rather than a trace."""
    limit = request.max_content_length
    if limit is None:
        return
    if request.content_length is not None:
        if request.content_length > limit:
            raise RequestEntityTooLarge(f"The body is larger than {limit} bytes.")
        check_body_complete(request.content_length)
        return
    if "Transfer-Encoding" not in request.headers or "wsgi.input_terminated" not in request.environ:
        return  # no body; or a server that does not end the stream, where werkzeug reads none
    try:
        body = request.get_data(cache=True)  # at most `limit` bytes (werkzeug's LimitedStream)
        more = len(body) >= limit and request.environ["wsgi.input"].read(1)
    except HTTPException:
        raise  # werkzeug's own answers about the body (a client that disconnected: 400)
    except Exception as error:
        # What the server's chunked reader raises on bytes that are not chunked coding (gunicorn:
        # InvalidChunkSize, ChunkMissingTerminator..., exceptions of its own; werkzeug's server: OSError) or
        # on a stream cut short. Nothing but that reader runs here, so it is the client's body, not a bug.
        log.info("malformed chunked body: %s", error)
        raise BadRequest("The body is not valid chunked transfer coding, or ends before its last chunk.") from error
    if more:
        raise RequestEntityTooLarge(f"The body is larger than {limit} bytes.")


def check_body_complete(length: int) -> None:
    """A body that ends before its Content-Length (the client closed its side early) is incomplete (RFC 9112,
    section 6.3): a 400, never a write acted on. werkzeug's own server says so when the body is read; gunicorn,
    which ends the stream itself (`wsgi.input_terminated`), gives the bytes it got as the whole body, so under it
    the body is read here, once, before any reader (they get the same bytes, `get_data(cache=True)`)."""
    if length == 0 or "wsgi.input_terminated" not in request.environ:
        return
    body = request.get_data(cache=True)
    if len(body) < length:
        raise BadRequest(f"The body ends after {len(body)} of the {length} bytes its Content-Length announced.")


def register_request_limits(app: Flask) -> None:
    """Check sizes before any hook that reads the request (the two registered before only read the request id's
    header and start the request log's timer: prerender/__init__.py, `register_request_hooks`)."""
    app.before_request(check_request_size)
    app.before_request(check_body_size)

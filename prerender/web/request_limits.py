"""Limits on the size of a request's URL, headers and body, checked before anything reads them.

The URL and header limits are stricter than gunicorn's own (gunicorn.conf.py), so a client over them gets a
problem+json that names what is too large (414, 431), never gunicorn's plain-text 400; header values are
never echoed back. The body's limit is Flask's MAX_CONTENT_LENGTH (413), whether the body has a
Content-Length or is streamed (Transfer-Encoding: chunked); a streamed body that is not valid chunked coding
is a 400, on every route, and so is a body shorter than its Content-Length, when it is read (`Request`).
"""

from __future__ import annotations

import logging
from typing import IO, cast

import flask
from flask import Flask, current_app, request
from werkzeug.exceptions import (
    BadRequest,
    HTTPException,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    RequestURITooLarge,
)
from werkzeug.utils import cached_property
from werkzeug.wsgi import LimitedStream

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


class IncompleteBody(BadRequest):
    """A body that ended before its Content-Length: the client stopped sending, or its connection broke."""


class AnnouncedLength(LimitedStream):
    """A body read up to its Content-Length, and no shorter: one that ends sooner is incomplete (RFC 9112,
    section 6.3), a 400 rather than a write acted on."""

    def on_disconnect(self, error: Exception | None = None) -> None:
        raise IncompleteBody(f"The body ends before the {self.limit} bytes its Content-Length announced.") from error


class Request(flask.Request):
    """Flask's request, whose body is held to its Content-Length under every server.

    werkzeug holds a body to its Content-Length itself, unless the server says it ends the body
    (`wsgi.input_terminated`); gunicorn says so and ends it where the client stopped, so a body cut short would be
    read whole and acted on. Here such a body is read as announced, and one that ends sooner raises
    `IncompleteBody` when a reader gets there, after routing, the header guard and admission had their say: a
    request refused before its body is read never reads it (gunicorn.conf.py invites an `Expect: 100-continue`
    body at its first read only)."""

    @cached_property
    def stream(self) -> IO[bytes]:
        stream = super().stream  # werkzeug's, held to MAX_CONTENT_LENGTH (a larger Content-Length is its 413)
        length = self.content_length
        if length is None or "wsgi.input_terminated" not in self.environ:
            return stream
        return cast(IO[bytes], AnnouncedLength(stream, length))


def register_request_limits(app: Flask) -> None:
    """Check sizes before any hook that reads the request (the three registered before read the request id's header,
    start the request log's timer and check the request's framing: prerender/__init__.py,
    `register_request_hooks`)."""
    app.before_request(check_request_size)
    app.before_request(check_body_size)

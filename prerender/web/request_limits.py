"""Limits on the size of a request's URL and headers, checked before anything reads them.

The body's limit is Flask's MAX_CONTENT_LENGTH (413). These are stricter than gunicorn's own
(gunicorn.conf.py), so a client over them gets a problem+json that names what is too large, never
gunicorn's plain-text 400; header values are never echoed back.
"""

from __future__ import annotations

from flask import Flask, current_app, request
from werkzeug.exceptions import RequestHeaderFieldsTooLarge, RequestURITooLarge


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


def register_request_limits(app: Flask) -> None:
    """Check sizes before any other request hook (the request id hook only reads its own header)."""
    app.before_request(check_request_size)

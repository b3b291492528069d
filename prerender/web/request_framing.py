"""What HTTP asks of a server about the request line and framing, answered before routing's own answer.

gunicorn passes these on (the shipped nginx refuses the Host and transfer-coding ones itself, and passes an
unknown method on), so a retailer would otherwise get a 405 for a method no server knows, or, calling gunicorn
directly, a body read without its transfer coding:

- a method HTTP does not define: 501 (RFC 9110, section 9.1), never the 405 of a method this route lacks;
- an HTTP/1.1 request without a Host, or with several: 400 (RFC 9112, section 3.2);
- a transfer coding other than `chunked` (`gzip, chunked`): 501 (RFC 9112, section 6.1), rather than reading
  the coded bytes as the body.
"""

from __future__ import annotations

from flask import Flask, request

from plumbing.problems import BadRequest, Problem

# The methods of RFC 9110 (section 9) and PATCH (RFC 5789); names are case-sensitive.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"})


def check_request_framing() -> None:
    """before_request: 501 for an unknown method or transfer coding, 400 for an HTTP/1.1 request without one Host."""
    if request.method not in KNOWN_METHODS:
        raise Problem(501, f"The method {request.method[:20]!r} is not one HTTP defines.")
    environ = request.environ
    if environ.get("SERVER_PROTOCOL") == "HTTP/1.1":
        host = environ.get("HTTP_HOST")
        if not host:
            raise BadRequest("An HTTP/1.1 request needs a Host header.")
        if "," in host:  # a server that joins repeated lines with commas (werkzeug's); gunicorn refuses them itself
            raise BadRequest("The request has more than one Host header.")
    codings = [coding.strip().lower() for coding in environ.get("HTTP_TRANSFER_ENCODING", "").split(",")]
    if any(coding and coding != "chunked" for coding in codings):
        raise Problem(501, "The only transfer coding this service reads is chunked.")


def register_request_framing(app: Flask) -> None:
    """Check the framing before anything reads the request (registered before the size limits)."""
    app.before_request(check_request_framing)

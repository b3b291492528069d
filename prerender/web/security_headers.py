"""Headers every answer of prerender carries, whatever produced it: a view, a request hook, an error handler,
a static file, a 304 or a CORS preflight (an after_request hook runs for all of them).

`X-Content-Type-Options: nosniff`: a browser takes each answer for its declared type (fragments and styles
text/html or JSON, problems application/problem+json, scripts and stylesheets of /static their own types),
never for a script or a stylesheet it guessed from the bytes.

Nothing meant for documents: fragments are inserted into the customer's page (innerHTML), so the headers of
their answers never apply to that page, and no answer of prerender is a page of its own. A
Content-Security-Policy, X-Frame-Options or Referrer-Policy here would protect nothing (on a script or a
stylesheet of /static, a Referrer-Policy would only govern the requests that file makes itself, whose
referrer is that file's own URL, never the customer's page).
"""

from __future__ import annotations

from flask import Flask, Response

SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff"}


def add_security_headers(response: Response) -> Response:
    """after_request: the headers of every answer, each set once."""
    response.headers.update(SECURITY_HEADERS)
    return response


def register_security_headers(app: Flask) -> None:
    """Attach the hook to the app."""
    app.after_request(add_security_headers)

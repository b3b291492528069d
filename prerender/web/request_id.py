"""Every request's id: the caller's X-Request-Id when it is sane, else a new one. It goes into the logs,
upstream and back to the caller, so a customer can quote it."""

from __future__ import annotations

import uuid

from flask import Flask, Response, g, request

from prerender.schemas.headers import REQUEST_ID_PATTERN


def request_id() -> str:
    """The caller's X-Request-Id when it is sane, else a new one."""
    given = request.headers.get("x-request-id", "")
    return given if REQUEST_ID_PATTERN.fullmatch(given) else uuid.uuid4().hex


def assign_request_id() -> None:
    """First before_request of the app: every request, versioned or not, gets an id."""
    g.request_id = request_id()


def echo_request_id(response: Response) -> Response:
    """Return the request id so a customer can quote it."""
    if "request_id" in g:
        response.headers["X-Request-Id"] = g.request_id
    return response


def register_request_id(app: Flask) -> None:
    """Attach the request-id hooks to the app."""
    app.before_request(assign_request_id)
    app.after_request(echo_request_id)

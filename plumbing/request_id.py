"""Every request's id: the caller's X-Request-Id when it is sane, else a new one. It goes into the logs, upstream
and back to the caller, so a customer can quote it."""

from __future__ import annotations

import re
import uuid

from flask import Flask, Response, g, request

REQUEST_ID_HEADER = "X-Request-Id"


class RequestIds:
    """The request id hooks of an app: `pattern` says which caller's ids are kept (a service's own contract)."""

    def __init__(self, *, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def request_id(self) -> str:
        """The caller's X-Request-Id when it matches the pattern, else a new one (32 hex digits)."""
        given = request.headers.get(REQUEST_ID_HEADER, "")
        return given if self.pattern.fullmatch(given) else uuid.uuid4().hex

    def assign(self) -> None:
        """The first before_request of the app: every request, routed or not, gets an id (`g.request_id`)."""
        g.request_id = self.request_id()

    def echo(self, response: Response) -> Response:
        """Return the request id so a customer can quote it."""
        if "request_id" in g:
            response.headers[REQUEST_ID_HEADER] = g.request_id
        return response


def register_request_id(app: Flask, *, pattern: re.Pattern[str]) -> None:
    """Attach the request id hooks to the app (before any other hook that logs)."""
    ids = RequestIds(pattern=pattern)
    app.before_request(ids.assign)
    app.after_request(ids.echo)

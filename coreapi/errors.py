"""One error body for every 4xx and 5xx: RFC 9457 ``application/problem+json``."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, json
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

PROBLEM_MIMETYPE = "application/problem+json"

# {"<location>": {"<field>": ["message", ...]}}
FieldErrors = dict[str, dict[str, list[str]]]


class Problem(Exception):
    """An error the API answers with a problem document; subclasses set the status.

    ``extensions``: more members of the document (RFC 9457 section 3.2), e.g. ``expected_total``.
    """

    status: int = HTTPStatus.INTERNAL_SERVER_ERROR

    def __init__(
        self,
        detail: str,
        *,
        errors: FieldErrors | None = None,
        headers: dict[str, str] | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}
        self.extensions = extensions or {}


class BadRequest(Problem):
    status = HTTPStatus.BAD_REQUEST


class Unauthorized(Problem):
    status = HTTPStatus.UNAUTHORIZED


class Forbidden(Problem):
    status = HTTPStatus.FORBIDDEN


class NotFound(Problem):
    status = HTTPStatus.NOT_FOUND


class Conflict(Problem):
    status = HTTPStatus.CONFLICT


class Gone(Problem):
    status = HTTPStatus.GONE


class UnprocessableContent(Problem):
    status = HTTPStatus.UNPROCESSABLE_ENTITY


class ServiceUnavailable(Problem):
    status = HTTPStatus.SERVICE_UNAVAILABLE


def field_error(location: str, field: str, message: str) -> FieldErrors:
    """The ``errors`` member for a single bad field."""
    return {location: {field: [message]}}


def problem_response(
    status: int,
    detail: str,
    *,
    errors: FieldErrors | None = None,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Response:
    """A ``problem+json`` response; ``type`` is ``about:blank``: ``title`` is the status phrase."""
    body: dict[str, Any] = {
        **(extensions or {}),
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if errors is not None:
        body["errors"] = errors
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_MIMETYPE)
    response.headers.update(headers or {})
    return response


def handle_problem(error: Problem) -> Response:
    return problem_response(
        error.status, error.detail, errors=error.errors, headers=error.headers, extensions=error.extensions
    )


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or HTTPStatus.INTERNAL_SERVER_ERROR
    headers = {
        name: value for name, value in error.get_headers() if name.lower() not in ("content-type", "content-length")
    }
    return problem_response(status, error.description or "", headers=headers)


def handle_unexpected_error(error: Exception) -> Response:
    log.exception("Unhandled error", exc_info=error)
    return problem_response(HTTPStatus.INTERNAL_SERVER_ERROR, "The server could not complete the request.")


def register_errorhandlers(app: Flask) -> None:
    """Answer every error with a problem document."""
    app.register_error_handler(Problem, handle_problem)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected_error)

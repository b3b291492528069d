"""One error body for every 4xx and 5xx of both services: RFC 9457 application/problem+json, with `errors`
keyed by where each bad field was (`headers`, `query`, `json`), then by its dotted path.

A view raises a `Problem` (or one of the classes named after their status); `register_problem_handlers` answers
it, werkzeug's own errors (404, 405, 413...) and any unexpected exception with the same body."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, json
from werkzeug.exceptions import HTTPException

PROBLEM_MIMETYPE = "application/problem+json"
NO_STORE = "no-store"
# Field errors keyed by where the field was, then by its name or dotted path: {"query": {"display_variant": ["..."]}},
# {"json": {"contexts.0.productIds": ["..."]}}.
FieldErrors = Mapping[str, Mapping[str, Any]]
INVALID_PARAMETERS = "The request has invalid parameters."
# An `about:blank` problem's title is its status's phrase as RFC 9110 recommends it (RFC 9457, section 4.2.1).
# Python's HTTPStatus (3.11) and werkzeug still say these the RFC 7231 way ("Request Entity Too Large").
RFC_9110_PHRASES = {
    413: "Content Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}


def status_title(status: int) -> str:
    """The title of an `about:blank` problem of this status."""
    return RFC_9110_PHRASES.get(status) or HTTPStatus(status).phrase


class Problem(Exception):
    """An error answered with a problem document. `extensions`: more members of the document (RFC 9457 section
    3.2), such as a refused confirmation's `expected_total`; `headers`: more headers of the answer."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        errors: FieldErrors | None = None,
        title: str | None = None,
        headers: Mapping[str, str] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.title = title or status_title(status)
        self.headers = dict(headers or {})
        self.extensions = dict(extensions or {})


class _StatusProblem(Problem):
    """A Problem whose class names its status: `NotFound("Unknown recipe.")`."""

    status_code: HTTPStatus

    def __init__(
        self,
        detail: str,
        *,
        errors: FieldErrors | None = None,
        headers: Mapping[str, str] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(self.status_code, detail, errors=errors, headers=headers, extensions=extensions)


class BadRequest(_StatusProblem):
    status_code = HTTPStatus.BAD_REQUEST


class Unauthorized(_StatusProblem):
    status_code = HTTPStatus.UNAUTHORIZED


class Forbidden(_StatusProblem):
    status_code = HTTPStatus.FORBIDDEN


class NotFound(_StatusProblem):
    status_code = HTTPStatus.NOT_FOUND


class Conflict(_StatusProblem):
    status_code = HTTPStatus.CONFLICT


class Gone(_StatusProblem):
    status_code = HTTPStatus.GONE


class UnprocessableContent(_StatusProblem):
    status_code = HTTPStatus.UNPROCESSABLE_ENTITY


class ServiceUnavailable(_StatusProblem):
    status_code = HTTPStatus.SERVICE_UNAVAILABLE


class ValidationProblem(Problem):
    """A request that does not match its schema: 400 with the bad fields, each by its dotted path."""

    def __init__(self, errors: FieldErrors, detail: str = INVALID_PARAMETERS) -> None:
        super().__init__(400, detail, errors={location: field_paths(fields) for location, fields in errors.items()})


def field_paths(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as one level of dotted paths: `{"contexts": {"0": {"productIds": [...]}}}`
    is `{"contexts.0.productIds": [...]}`, so every problem's `errors` is `{location: {field: [message, ...]}}`
    whatever the field's depth."""
    if isinstance(messages, Mapping):
        flat: dict[str, list[str]] = {}
        for name, value in messages.items():
            flat.update(field_paths(value, f"{prefix}.{name}" if prefix else str(name)))
        return flat
    if isinstance(messages, str):
        messages = [messages]
    return {prefix or "_schema": [str(message) for message in messages]}


def field_error(location: str, field: str, message: str) -> dict[str, dict[str, list[str]]]:
    """The `errors` member for a single bad field."""
    return {location: {field: [message]}}


def problem_response(
    status: int,
    detail: str,
    *,
    title: str | None = None,
    errors: FieldErrors | None = None,
    headers: Mapping[str, str] | None = None,
    extensions: Mapping[str, Any] | None = None,
) -> Response:
    """The problem+json answer; `type` is `about:blank`, so `title` is the status's phrase unless given.

    No cache may keep it (`no-store`, unless `headers` say otherwise): a 404, 405 or 410 is cacheable by default
    (RFC 9110, section 15.1), and a shared cache in front that kept one would go on refusing a request that now
    works (a recipe published since, a node back from an outage)."""
    body: dict[str, Any] = {**(extensions or {})}
    body.update(type="about:blank", title=title or status_title(status), status=status, detail=detail)
    if errors is not None:
        body["errors"] = errors
    response: Response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_MIMETYPE)
    response.headers["Cache-Control"] = NO_STORE
    response.headers.update(headers or {})
    return response


def handle_problem(error: Problem) -> Response:
    """Answer a Problem raised by a view or a request hook."""
    return problem_response(
        error.status,
        error.detail,
        title=error.title,
        errors=error.errors,
        headers=error.headers,
        extensions=error.extensions,
    )


def handle_http_exception(error: HTTPException) -> Response:
    """Answer werkzeug's 404, 405, 413, 415... with the same body, keeping their headers (Allow...); the title is
    the status's RFC 9110 phrase, not werkzeug's older name."""
    headers = {
        name: value for name, value in error.get_headers() if name.lower() not in ("content-type", "content-length")
    }
    return problem_response(error.code or 500, error.description or "", headers=headers)


def handle_unexpected(error: Exception) -> Response:
    """Log the bug (to the application's own logger, which its service formats), never show a trace."""
    current_app.logger.exception("unhandled error", exc_info=error)
    return problem_response(500, "The service failed to answer this request.")


def register_problem_handlers(app: Flask) -> None:
    """Answer every Problem, every werkzeug error and every unexpected exception with a problem document."""
    app.register_error_handler(Problem, handle_problem)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected)

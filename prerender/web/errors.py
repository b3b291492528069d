"""One error body for every 4xx and 5xx: RFC 9457 application/problem+json, with `errors` keyed by where each
bad field was (`headers`, `query`, `json`), as README.md shows customers."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from prerender.gateway import (
    Refused,
    UnknownStore,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamUnavailable,
)

log = logging.getLogger(__name__)

PROBLEM_MIMETYPE = "application/problem+json"
# Field errors keyed by where the field was, then by its name or dotted path: {"query": {"display_variant": ["..."]}},
# {"json": {"contexts.0.productIds": ["..."]}}.
FieldErrors = Mapping[str, Mapping[str, Any]]


class Problem(Exception):
    """An error a view raises to answer with a problem body."""

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
        self.extensions = dict(extensions or {})
        self.title = title or HTTPStatus(status).phrase
        self.headers = dict(headers or {})


class CredentialProblem(Problem):
    """A browser route called without a valid shopper's credential: 401, with the Bearer challenge
    (RFC 6750; docs/security.md)."""

    def __init__(self, detail: str, *, invalid: bool = False) -> None:
        challenge = 'Bearer realm="prerender"' + (', error="invalid_token"' if invalid else "")
        super().__init__(401, detail, headers={"WWW-Authenticate": challenge})


class ValidationProblem(Problem):
    """A request that does not match its schema: 400 with the bad fields, each by its dotted path."""

    def __init__(self, errors: FieldErrors, detail: str = "The request has invalid parameters.") -> None:
        super().__init__(400, detail, errors={location: field_paths(fields) for location, fields in errors.items()})


def field_paths(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as one level of dotted paths, the upstream's shape too (docs/upstream.md):
    `{"contexts": {"0": {"productIds": [...]}}}` is `{"contexts.0.productIds": [...]}`, so every problem's
    `errors` is `{location: {field: [message, ...]}}` whatever the field's depth."""
    if isinstance(messages, Mapping):
        flat: dict[str, list[str]] = {}
        for name, value in messages.items():
            flat.update(field_paths(value, f"{prefix}.{name}" if prefix else str(name)))
        return flat
    if isinstance(messages, str):
        messages = [messages]
    return {prefix or "_schema": [str(message) for message in messages]}


def problem_response(
    status: int,
    detail: str,
    *,
    title: str | None = None,
    errors: FieldErrors | None = None,
    extensions: Mapping[str, Any] | None = None,
) -> Response:
    """Build the problem+json response; `extensions` are more members (RFC 9457 section 3.2)."""
    body: dict[str, Any] = {**(extensions or {})}
    body.update(type="about:blank", title=title or HTTPStatus(status).phrase, status=status, detail=detail)
    if errors:
        body["errors"] = errors
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_MIMETYPE)


def handle_problem(error: Problem) -> Response:
    """Answer a Problem raised by a view or the header guard."""
    response = problem_response(
        error.status, error.detail, title=error.title, errors=error.errors, extensions=error.extensions
    )
    response.headers.update(error.headers)
    return response


def handle_http_exception(error: HTTPException) -> Response:
    """Answer werkzeug's 404, 405, 413, 415... with the same body, keeping their headers (Allow...)."""
    response = problem_response(error.code or 500, error.description or "", title=error.name)
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


# Upstream 4xx a browser can act on pass through with the upstream's own explanation (410: a used or expired
# basket transfer link).
PASSED_THROUGH_STATUSES = frozenset({400, 403, 404, 409, 410, 422})
# The members every problem has, written by prerender itself; an upstream's others pass through.
PROBLEM_MEMBERS = frozenset({"type", "title", "status", "detail", "errors", "instance"})


def handle_upstream_error(error: UpstreamError) -> Response:
    """An upstream failure a view did not handle (JSON action routes): say what failed, never a trace.

    Card routes handle their own (an empty card); here the caller is the browser SDK, which needs to know
    whether to retry (503, 504), give up (502), or fix its request (the upstream's 4xx)."""
    if isinstance(error, UpstreamStatusError) and error.status in PASSED_THROUGH_STATUSES:
        # The upstream's answer to this request (an unknown recipe, no menu to merge...), not a failure.
        log.info("upstream refused: %s", error)
        problem = error.problem
        errors = problem.get("errors") if isinstance(problem.get("errors"), dict) else None
        # The upstream's own members, such as a refused confirmation's expected_total (docs/upstream.md).
        extensions = {key: value for key, value in problem.items() if key not in PROBLEM_MEMBERS}
        return problem_response(error.status, str(problem.get("detail") or error), errors=errors, extensions=extensions)
    if isinstance(error, Refused):
        # Not sent (an open circuit, a full bulkhead): a write was not applied, and the SDK may try again later.
        log.warning("upstream call refused: %s", error)
        response = problem_response(503, f"The recipe service is not being called for now ({error}); try again later.")
        response.headers["Retry-After"] = str(error.retry_after)
        return response
    log.error("upstream failure: %s", error)
    if isinstance(error, UpstreamUnavailable):
        return problem_response(503, f"The recipe service is unreachable ({error}).")
    if isinstance(error, UpstreamTimeout):
        return problem_response(504, f"The recipe service did not answer in time ({error}).")
    return problem_response(502, f"The recipe service failed ({error}).")


def handle_unknown_store(error: UnknownStore) -> Response:
    """A store_id the upstream does not know: a 400 naming it where it was sent (the JSON body when the body
    names a store, else the query). A bug in the customer's integration it should see, unlike "no
    suggestion"; a route that answers otherwise (the basket: empty) catches it itself."""
    body = request.get_json(silent=True) if request.is_json else None
    location = "json" if isinstance(body, dict) and body.get("store_id") is not None else "query"
    return problem_response(
        400, "The request has invalid parameters.", errors={location: {"store_id": ["Unknown store."]}}
    )


def handle_unexpected(error: Exception) -> Response:
    """Log the bug, never show a trace to a customer."""
    log.exception("unhandled error")
    return problem_response(500, "The service failed to answer this request.")


def register_errorhandlers(app: Flask) -> None:
    """Route every error to a problem+json body."""
    app.register_error_handler(Problem, handle_problem)
    app.register_error_handler(UnknownStore, handle_unknown_store)
    app.register_error_handler(UpstreamError, handle_upstream_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected)

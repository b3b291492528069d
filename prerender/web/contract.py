"""One declaration per route: what it takes and what it answers, written once, next to the view.

`@declare(...)`, under a blueprint's route decorator, states the view's arguments (path segments, query
string, JSON body: each a marshmallow schema, or one per API version) and its answers (status -> Answer).
The same declaration parses every request, through the webargs parser of prerender/web/parsing.py, and
writes the route's operation in /openapi.json (prerender/web/openapi.py). The view receives the parsed
path segments as keyword arguments, and `headers=`, `query=` and `body=` when it declares them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Response, current_app, g, request
from marshmallow import Schema
from werkzeug.exceptions import UnsupportedMediaType

from plumbing.problems import PROBLEM_MIMETYPE
from prerender.schemas.responses import ProblemSchema
from prerender.web.parsing import parser
from prerender.web.versions import API_VERSIONS

View = TypeVar("View", bound=Callable[..., Any])
# One schema for every API version, or one per version (the card's display_variant differs).
SchemaChoice = Schema | Mapping[str, Schema]

# navigator.sendBeacon sends a string body as text/plain; fetch sends JSON.
BEACON_MIMETYPES = frozenset({"application/json", "text/plain"})


@dataclass(frozen=True)
class Answer:
    """One documented answer: its description, its body's media type and schema when it has one, and the
    headers of this route's answer besides those every answer of its status has (prerender/web/openapi.py)."""

    description: str
    media_type: str | None = None
    schema: type[Schema] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)  # name: description (a string value)


def html(description: str, *, headers: Mapping[str, str] | None = None) -> Answer:
    """An HTML fragment (with the headers of this route's answer: name and description)."""
    return Answer(description, "text/html", headers=headers or {})


def json_answer(schema: type[Schema] | None, description: str = "OK") -> Answer:
    """A JSON body of `schema` (any JSON object when None)."""
    return Answer(description, "application/json", schema)


def problem(description: str) -> Answer:
    """An RFC 9457 problem (plumbing/problems.py)."""
    return Answer(description, PROBLEM_MIMETYPE, ProblemSchema)


NO_CONTENT = Answer("Done.")


def no_content() -> Response:
    """The answer of NO_CONTENT: a 204 without a body, so without a Content-Type either (Flask would label the
    empty body text/html)."""
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response


NOT_MODIFIED = Answer("Not modified (If-None-Match matched the ETag).")
UPSTREAM_FAILURES: Mapping[int, Answer] = {
    502: problem("The recipe service failed or answered something malformed."),
    503: problem("The recipe service is unreachable or busy (with Retry-After: try again then)."),
    504: problem("The recipe service did not answer in time."),
}
# Upstream 4xx a browser can act on are passed through (prerender/web/errors.py).
PASSED_THROUGH: Mapping[int, Answer] = {
    403: problem("Refused by the recipe service."),
    404: problem("Unknown recipe, ingredient or product."),
    409: problem("Conflict (e.g. an order confirmed twice)."),
    422: problem("Refused by the recipe service."),
}


class Callers(enum.Enum):
    """Who calls a route, and so what proves the shopper's identity there (docs/security.md)."""

    # The customer's server: the specification's headers, trusted with a valid supplier-token.
    SERVER = "server"
    # The shopper's browser: a credential prerender issued (`Authorization: Bearer`), nothing else.
    BROWSER = "browser"
    # Either: a Bearer credential when the request has one, else the specification's headers.
    SERVER_OR_BROWSER = "server-or-browser"


@dataclass(frozen=True)
class RouteContract:
    """What a route takes and answers. `beacon`: the body may come from navigator.sendBeacon, as text/plain,
    with the mandatory headers in its `headers` object (the header guard reads them there)."""

    summary: str
    answers: Mapping[int, Answer]
    path: Schema | None = None
    query: SchemaChoice | None = None
    body: SchemaChoice | None = None
    # Headers of this route besides the mandatory ones of every versioned route (prerender/schemas/headers.py).
    headers: Schema | None = None
    beacon: bool = False
    body_example: Mapping[str, Any] | None = field(default=None, compare=False)
    deprecated: bool = False
    # False: the route is for a visitor without an identity yet (no `authorization` nor `authless-id`).
    identity: bool = True
    callers: Callers = Callers.SERVER

    @staticmethod
    def for_version(choice: SchemaChoice, version: str | None) -> Schema:
        """The schema of a choice for an API version (None: a route outside the versions)."""
        if isinstance(choice, Schema):
            return choice
        if version is None:
            raise LookupError("a per-version schema on a route outside the API versions")
        return choice[version]

    def parse(self, view_args: Mapping[str, Any]) -> dict[str, Any]:
        """The view's keyword arguments for the current request, or a 400/415 problem."""
        version = request_api_version()
        arguments = dict(view_args)
        if self.path is not None:
            arguments.update(parser.parse(self.path, request, location="view_args"))
        if self.headers is not None:
            arguments["headers"] = parser.parse(self.headers, request, location="headers")
        if self.query is not None:
            arguments["query"] = parser.parse(self.for_version(self.query, version), request, location="query")
        if self.body is not None:
            coding = request.headers.get("Content-Encoding", "").strip().lower()
            if coding not in ("", "identity"):  # read as it is, a compressed body would be misread (RFC 9110, 8.4)
                raise UnsupportedMediaType(  # the header named, its value not echoed (as a 431's)
                    "The body is sent with a Content-Encoding, which this service does not decode: send it "
                    "uncompressed."
                )
            if self.beacon and request.mimetype not in BEACON_MIMETYPES:
                raise UnsupportedMediaType("Send the body as JSON (application/json, or text/plain from sendBeacon).")
            if not self.beacon and not request.is_json:
                raise UnsupportedMediaType("Send the body as JSON with 'Content-Type: application/json'.")
            arguments["body"] = parser.parse(
                self.for_version(self.body, version), request, location="beacon" if self.beacon else "json"
            )
        return arguments


def declare(
    *,
    summary: str,
    answers: Mapping[int, Answer],
    path: Schema | None = None,
    query: SchemaChoice | None = None,
    body: SchemaChoice | None = None,
    headers: Schema | None = None,
    beacon: bool = False,
    body_example: Mapping[str, Any] | None = None,
    deprecated: bool = False,
    identity: bool = True,
    callers: Callers = Callers.SERVER,
) -> Callable[[View], View]:
    """Declare a view's arguments and answers; the view is then called with them parsed."""
    contract = RouteContract(
        summary=summary,
        answers=answers,
        path=path,
        query=query,
        body=body,
        headers=headers,
        beacon=beacon,
        body_example=body_example,
        deprecated=deprecated,
        identity=identity,
        callers=callers,
    )

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def parse_then_call(**view_args: Any) -> Any:
            return view(**contract.parse(view_args))

        vars(parse_then_call)["contract"] = contract
        return parse_then_call  # type: ignore[return-value]  # same signature as seen by Flask: **view_args

    return decorate


def contract_of(view: Callable[..., Any] | None) -> RouteContract | None:
    """The declaration of a view function, None for an undeclared one."""
    contract = getattr(view, "contract", None)
    return contract if isinstance(contract, RouteContract) else None


def request_contract() -> RouteContract | None:
    """The declaration of the current request's route (None for an undeclared one), looked up once per request:
    the admission, the upstream budget and the header guard each need it."""
    if "route_contract" not in g:
        g.route_contract = contract_of(current_app.view_functions.get(request.endpoint or ""))
    contract: RouteContract | None = g.route_contract
    return contract


def request_api_version() -> str | None:
    """The API version of the current request's route, None outside the versions."""
    outer = request.blueprints[-1] if request.blueprints else None
    return outer if outer in API_VERSIONS else None

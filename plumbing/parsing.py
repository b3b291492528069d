"""The webargs parser of both services: what does not match its schema is one 400 problem, keyed by location
and dotted path (plumbing/problems.py), never webargs' default 422 nor a bare 400; a JSON body Python cannot
load (malformed, nested too deeply, an integer of too many digits) is such a 400 too, never a 500. So is a NUL
character (U+0000) in any text of a query or a JSON body: no field of either service means one, and PostgreSQL
refuses to store it, which would make the client's mistake the upstream's 500 (and, counted by the caller's
circuit breaker, an outage for every shopper)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, NoReturn

from flask import Request, current_app
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from plumbing.problems import ValidationProblem

INVALID_JSON = {"json": {"_schema": ["Invalid JSON body."]}}
TOO_DEEP = {"json": {"_schema": ["The JSON body is nested too deeply."]}}
NUL_MESSAGE = "Must not contain a NUL character."


def paths_holding_nul(value: Any) -> Iterator[str]:
    """The dotted paths of the texts (values and object keys) of a loaded JSON value holding U+0000; `_schema`
    for the value itself. Walked with a stack: the value may be as deep as the JSON loader allowed."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                yield ".".join(path) or "_schema"
        elif isinstance(item, dict):
            for key, member in item.items():
                if "\x00" in str(key):
                    yield ".".join((*path, str(key)))
                stack.append(((*path, str(key)), member))
        elif isinstance(item, list):
            stack.extend(((*path, str(index)), member) for index, member in enumerate(item))


def refuse_nul(location: str, value: Any) -> Any:
    """`value`, loaded from `location`, or a 400 problem naming each place that holds a NUL character."""
    paths = sorted(set(paths_holding_nul(value)))
    if paths:
        raise ValidationProblem({location: {path: [NUL_MESSAGE] for path in paths}})
    return value


class ProblemParser(FlaskParser):
    """A FlaskParser whose errors are ValidationProblems. `location_names`: the name a webargs location has in
    the problem's `errors`, where it differs (a service's own locations)."""

    location_names: Mapping[str, str] = MappingProxyType({})

    def handle_error(
        self, error: ValidationError, req: Request, schema: Schema, *, error_status_code: int | None, error_headers: Any
    ) -> NoReturn:
        messages = {
            self.location_names.get(location, location): errors
            for location, errors in error.normalized_messages().items()
        }
        current_app.logger.warning("rejected %s %s: %s", req.method, req.path, messages)
        raise ValidationProblem(messages) from error

    def load_querystring(self, req: Request, schema: Schema) -> Any:
        """The query string, refused when a name or value holds a NUL character."""
        holding = {name for name, values in req.args.lists() if "\x00" in name or any("\x00" in v for v in values)}
        if holding:
            raise ValidationProblem({"query": {name: [NUL_MESSAGE] for name in sorted(holding)}})
        return super().load_querystring(req, schema)

    def load_json(self, req: Request, schema: Schema) -> Any:
        """The JSON body, refused when a text in it holds a NUL character."""
        return refuse_nul("json", super().load_json(req, schema))

    def _raw_load_json(self, req: Request) -> Any:
        """JSON the interpreter cannot load is bad input, not a server error: nested too deeply, or with an
        integer of more digits than Python converts (a ValueError that is no JSONDecodeError, which webargs'
        load_json would let through). A JSONDecodeError goes on to webargs (an empty body is a missing one)."""
        try:
            return super()._raw_load_json(req)
        except RecursionError as error:
            raise ValidationProblem(TOO_DEEP) from error
        except json.JSONDecodeError:
            raise
        except ValueError as error:
            raise ValidationProblem(INVALID_JSON) from error

    def _handle_invalid_json_error(
        self, error: json.JSONDecodeError | UnicodeDecodeError, req: Request, *args: Any, **kwargs: Any
    ) -> NoReturn:
        """Malformed JSON: a 400 naming the body (webargs' FlaskParser would abort with a bare 400)."""
        raise ValidationProblem(INVALID_JSON) from error

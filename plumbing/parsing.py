"""The webargs parser of both services: what does not match its schema is one 400 problem, keyed by location
and dotted path (plumbing/problems.py), never webargs' default 422 nor a bare 400; a JSON body Python cannot
load (malformed, nested too deeply, an integer of too many digits) is such a 400 too, never a 500. So is a text
no database stores, in a query or a JSON body: a NUL character (U+0000), which PostgreSQL refuses, or a lone
UTF-16 surrogate (JSON may escape half a pair, `"\\ud800"`), which has no UTF-8 form for either database. And so
is a number no JSON carries on: `NaN`, `Infinity` (which Python's loader takes) or one too large for a float
(`1e309`, loaded as infinity), which the body sent upstream could not hold. No field of either service means
one, and sent on, the client's mistake would be the upstream's 500 or no request at all (and, counted by the
caller's circuit breaker, an outage for every shopper)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, NoReturn

from flask import Request, current_app
from marshmallow import Schema, ValidationError
from webargs.core import missing
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.datastructures import MultiDict

from plumbing.log_text import clipped
from plumbing.problems import ValidationProblem

INVALID_JSON = {"json": {"_schema": ["Invalid JSON body."]}}
TOO_DEEP = {"json": {"_schema": ["The JSON body is nested too deeply."]}}
NUL_MESSAGE = "Must not contain a NUL character."
REPEATED_MESSAGE = "Given more than once, with different values: give it once."
REPEATED_KEY_MESSAGE = "given more than once in one object, with different values: give it once."
SURROGATE_MESSAGE = "Must not contain a lone surrogate (U+D800 to U+DFFF): it is no character."
NOT_FINITE_MESSAGE = "Must be a finite number: JSON has no NaN nor Infinity, and a float ends below 1.8e308."
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _object_of_single_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; the caller's 400 naming the key (clipped: it is whatever the caller sent) when a key comes
    twice with two values (the same value twice is one value)."""
    loaded: dict[str, Any] = {}
    for key, value in pairs:
        if key in loaded and not _same_json(loaded[key], value):
            raise ValidationProblem({"json": {"_schema": [f"The key {clipped(key)!r} is {REPEATED_KEY_MESSAGE}"]}})
        loaded[key] = value
    return loaded


def _same_json(first: Any, second: Any) -> bool:
    """Whether two loaded JSON values are the same JSON: Python's `==` takes `1`, `1.0` and `true` as one, and a
    NaN as unlike itself (a NaN is refused later, as a number that is not finite)."""
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def parse_json(data: bytes) -> Any:
    """A JSON body, as webargs parses it, but an object with a key given twice with two values is the caller's 400
    (a ValidationProblem): which one the caller meant is a guess, as for a query parameter given twice.
    JSONDecodeError for malformed JSON or undecodable bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError(
            f"Bytes decoding error : {error.reason}", doc=str(error.object), pos=error.start
        ) from error
    return json.loads(text, object_pairs_hook=_object_of_single_keys)


def unstorable(text: str) -> str | None:
    """What makes `text` one no database stores (a NUL character, a lone surrogate), or None."""
    if "\x00" in text:
        return NUL_MESSAGE
    if LONE_SURROGATE.search(text):
        return SURROGATE_MESSAGE
    return None


def unstorable_values(value: Any) -> Iterator[tuple[str, str]]:
    """The dotted path and message of each text (values and object keys) of a loaded JSON value that no
    database stores, and of each number that is not finite; `_schema` for the value itself. Walked with a
    stack: the value may be as deep as the JSON loader allowed."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            message = unstorable(item)
            if message:
                yield ".".join(path) or "_schema", message
        elif isinstance(item, float) and not math.isfinite(item):
            yield ".".join(path) or "_schema", NOT_FINITE_MESSAGE
        elif isinstance(item, dict):
            for key, member in item.items():
                message = unstorable(str(key))
                if message:
                    yield ".".join((*path, str(key))), message
                stack.append(((*path, str(key)), member))
        elif isinstance(item, list):
            stack.extend(((*path, str(index)), member) for index, member in enumerate(item))


def refuse_unstorable(location: str, value: Any) -> Any:
    """`value`, loaded from `location`, or a 400 problem naming each place holding a text no database stores
    or a number that is not finite."""
    errors: dict[str, list[str]] = {}
    for path, message in sorted(unstorable_values(value)):
        errors.setdefault(path, [])
        if message not in errors[path]:
            errors[path].append(message)
    if errors:
        raise ValidationProblem({location: errors})
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
        # The caller's mistake, answered with a 400 that names it: information for whoever follows an integration,
        # not a warning about the service (a client sending junk would otherwise fill the warnings).
        # Clipped: the messages name whatever keys the client sent (plumbing/log_text.py).
        current_app.logger.info("rejected %s %s: %s", req.method, clipped(req.path), clipped(str(messages)))
        raise ValidationProblem(messages) from error

    def query_arguments(self, req: Request) -> MultiDict[str, str]:
        """The query's parameters as the schemas read them: all of them here (a service may leave some out)."""
        return req.args

    def load_querystring(self, req: Request, schema: Schema) -> Any:
        """The query string, refused when a name or value holds a NUL character (werkzeug decodes a percent-escape
        that is no UTF-8 as U+FFFD, so a query holds no lone surrogate)."""
        arguments = self.query_arguments(req)
        holding = {name for name, values in arguments.lists() if "\x00" in name or any("\x00" in v for v in values)}
        if holding:
            raise ValidationProblem({"query": {name: [NUL_MESSAGE] for name in sorted(holding)}})
        loaded = self._makeproxy(arguments, schema)
        # A parameter of one value given twice, with two values: which one the caller meant is a guess (a store
        # priced at one and filtered at another), so it is the caller's 400. The same value twice is one value. A
        # field whose bad values are ignored rather than refused (`metadata={"repeated": "ignored"}`) gets both,
        # for its schema to drop.
        fields = schema.fields.items()
        single = {field.data_key or name for name, field in fields if field.metadata.get("repeated") != "ignored"}
        single -= loaded.multiple_keys
        repeated = {name for name, values in arguments.lists() if name in single and len(set(values)) > 1}
        if repeated:
            raise ValidationProblem({"query": {name: [REPEATED_MESSAGE] for name in sorted(repeated)}})
        return loaded

    def load_json(self, req: Request, schema: Schema) -> Any:
        """The JSON body, refused when a text in it is one no database stores or a number is not finite."""
        return refuse_unstorable("json", super().load_json(req, schema))

    def _raw_load_json(self, req: Request) -> Any:
        """JSON the interpreter cannot load is bad input, not a server error: nested too deeply, or with an
        integer of more digits than Python converts (a ValueError that is no JSONDecodeError, which webargs'
        load_json would let through); so is an object giving a key twice (`parse_json`). A JSONDecodeError goes
        on to webargs (an empty body is a missing one)."""
        if not is_json_request(req):
            return missing
        try:
            return parse_json(req.get_data(cache=True))
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

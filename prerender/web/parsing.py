"""The webargs parser of every route: validation errors become one 400 problem, keyed by location."""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

from flask import Request
from marshmallow import Schema, ValidationError
from webargs import core
from webargs.flaskparser import FlaskParser

from prerender.memory_cache import LockedLru
from prerender.web.errors import ValidationProblem

log = logging.getLogger(__name__)

INVALID_JSON = {"json": {"_schema": ["Invalid JSON body."]}}


def _fresh(value: Any) -> Any:
    """A copy of parsed arguments that shares nothing mutable: dicts, lists and sets are copied, the rest
    (strings, numbers, None, Decimal: what query fields load) is immutable."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, (list, set)):
        return type(value)(_fresh(item) for item in value)
    return value


class ParsedQueries:
    """An LRU of query strings already parsed by a schema: (schema, raw query string) -> arguments.

    Parsing is a pure function of the two (our schemas read no request or app state), and a page asks for
    the same fragments with the same query strings over and over, where marshmallow's load was a fifth of a
    cached card's time. Only successes are kept; every caller gets its own deep copy."""

    def __init__(self, *, size: int) -> None:
        self.size = size
        # Keyed by the schema object itself (hashed by identity): an entry keeps its schema alive, so a
        # schema made for one call can never share an address, hence a key, with a later one.
        self._parsed: LockedLru[tuple[Schema, bytes], Any] = LockedLru(size)

    def get(self, schema: Schema, query: bytes) -> Any:
        """A copy of the arguments parsed from `query` by `schema`, or None if not known."""
        found = self._parsed.get((schema, query))
        return None if found is None else _fresh(found)

    def put(self, schema: Schema, query: bytes, arguments: Any) -> None:
        """Remember a copy of the arguments `schema` parsed from `query`."""
        self._parsed.put((schema, query), _fresh(arguments))


class ProblemParser(FlaskParser):
    """A FlaskParser whose errors are problem+json 400s (not webargs' default 422), with one more
    location: `beacon`, a JSON body whatever its declared type (navigator.sendBeacon sends text/plain).
    Query strings parsed by a long-lived schema instance are remembered (ParsedQueries)."""

    # Class-level by design, as in webargs (location_loader adds to it). Not ClassVar: webargs declares it as a
    # plain attribute and mypy refuses a ClassVar override of that.
    __location_map__ = dict(beacon="load_beacon", **FlaskParser.__location_map__)  # noqa: RUF012 (see above)

    def __init__(self, *args: Any, parsed_queries: int = 2048, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parsed_queries = ParsedQueries(size=parsed_queries)

    def parse(self, argmap: Any, req: Request | None = None, *, location: str | None = None, **kwargs: Any) -> Any:
        """webargs' parse; a query string parsed by a schema instance (the routes' declarations hold them for
        the app's life) comes from the memo when known. A Schema class or a dict of fields makes a new
        schema per call: not memoized."""
        if location != "query" or kwargs.get("validate") or not isinstance(argmap, Schema):
            return super().parse(argmap, req, location=location, **kwargs)
        req = req or self.get_default_request()
        arguments = self.parsed_queries.get(argmap, req.query_string)
        if arguments is None:
            arguments = super().parse(argmap, req, location=location, **kwargs)
            self.parsed_queries.put(argmap, req.query_string, arguments)
        return arguments

    def handle_error(
        self, error: ValidationError, req: Request, schema: Schema, *, error_status_code: int | None, error_headers: Any
    ) -> NoReturn:
        messages = error.normalized_messages()
        log.warning("rejected %s %s: %s", req.method, req.path, messages)
        raise ValidationProblem(messages) from error

    def _raw_load_json(self, req: Request) -> Any:
        """JSON the interpreter cannot load is bad input, not a server error: nested too deeply, or with an
        integer of more digits than Python converts (a ValueError that is no JSONDecodeError, which webargs'
        load_json would let through). A JSONDecodeError goes on to webargs (an empty body is a missing one)."""
        try:
            return super()._raw_load_json(req)
        except RecursionError as error:
            raise ValidationProblem({"json": {"_schema": ["The JSON body is nested too deeply."]}}) from error
        except json.JSONDecodeError:
            raise
        except ValueError as error:
            raise ValidationProblem(INVALID_JSON) from error

    def _handle_invalid_json_error(
        self, error: json.JSONDecodeError | UnicodeDecodeError, req: Request, *args: Any, **kwargs: Any
    ) -> NoReturn:
        """Malformed JSON: the beacon's 400 naming the body (webargs' FlaskParser would abort with a bare 400)."""
        raise ValidationProblem(INVALID_JSON) from error

    def load_beacon(self, req: Request, schema: Schema) -> Any:
        """The body parsed as JSON, whatever its Content-Type (ValueError: malformed, undecodable, or an
        integer Python does not convert)."""
        try:
            return core.parse_json(req.get_data(cache=True))
        except (ValueError, RecursionError) as error:
            raise ValidationProblem(INVALID_JSON) from error


# The one parser of every route (prerender/web/contract.py).
parser = ProblemParser()

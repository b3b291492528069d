"""The webargs parser of every route: the shared one (plumbing/parsing.py: a validation error is one 400
problem, keyed by location), with navigator.sendBeacon's bodies, blank query parameters left out, and a memo of
parsed query strings."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from flask import Request
from marshmallow import Schema
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import Headers, MultiDict

from plumbing.parsing import INVALID_JSON, ProblemParser, parse_json, refuse_unstorable
from plumbing.problems import ValidationProblem
from prerender.memory_cache import LockedLru
from prerender.schemas.headers import OWS, header_value


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


class RouteParser(ProblemParser):
    """The shared ProblemParser with one more location, `beacon`: a JSON body whatever its declared type
    (navigator.sendBeacon sends text/plain). Query strings parsed by a long-lived schema instance are
    remembered (ParsedQueries)."""

    # Class-level by design, as in webargs (location_loader adds to it). Not ClassVar: webargs declares it as a
    # plain attribute and mypy refuses a ClassVar override of that.
    __location_map__ = dict(beacon="load_beacon", **FlaskParser.__location_map__)  # noqa: RUF012 (see above)

    # In a problem's `errors`, a beacon's body is the JSON body it is, and a path's parameters `path`.
    location_names = MappingProxyType({"beacon": "json", "view_args": "path"})

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

    def query_arguments(self, req: Request) -> MultiDict[str, str]:
        """The query's parameters without the blank ones: `display_variant=` (empty, or spaces and tabs: OWS) is how a
        customer's template writes a value it does not have, so it counts as the parameter left out, as an empty
        header does (prerender/schemas/headers.py). A parameter that is required is then missing."""
        arguments = req.args
        if not any(not value.strip(OWS) for _, value in arguments.items(multi=True)):
            return arguments
        return MultiDict([(name, value) for name, value in arguments.items(multi=True) if value.strip(OWS)])

    def load_headers(self, req: Request, schema: Schema) -> Any:
        """The headers as the header guard reads them (prerender/schemas/headers.py's `header_value`)."""
        return self._makeproxy(Headers([(name, header_value(name, v)) for name, v in req.headers.items()]), schema)

    def load_beacon(self, req: Request, schema: Schema) -> Any:
        """The body parsed as JSON, whatever its Content-Type (ValueError: malformed, undecodable, or an
        integer Python does not convert; a key given twice in an object is named)."""
        try:
            body = parse_json(req.get_data(cache=True))
        except (ValueError, RecursionError) as error:
            raise ValidationProblem(INVALID_JSON) from error
        return refuse_unstorable("json", body)


# The one parser of every route (prerender/web/contract.py).
parser = RouteParser()

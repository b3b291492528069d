"""The webargs parser of every route: validation errors become one 400 problem, keyed by location."""
from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

from flask import Request
from marshmallow import Schema, ValidationError
from webargs import core
from webargs.flaskparser import FlaskParser

from ..errors import ValidationProblem

log = logging.getLogger(__name__)


class ProblemParser(FlaskParser):
    """A FlaskParser whose errors are problem+json 400s (not webargs' default 422), with one more
    location: `beacon`, a JSON body whatever its declared type (navigator.sendBeacon sends text/plain)."""

    __location_map__ = dict(beacon="load_beacon", **FlaskParser.__location_map__)

    def handle_error(self, error: ValidationError, req: Request, schema: Schema, *,
                     error_status_code: int | None, error_headers: Any) -> NoReturn:
        messages = error.normalized_messages()
        log.warning("rejected %s %s: %s", req.method, req.path, messages)
        raise ValidationProblem(messages) from error

    def _raw_load_json(self, req: Request) -> Any:
        """JSON nested deeper than the interpreter can parse is bad input, not a server error."""
        try:
            return super()._raw_load_json(req)
        except RecursionError as error:
            raise ValidationProblem({"json": {"_schema": ["The JSON body is nested too deeply."]}}) from error

    def load_beacon(self, req: Request, schema: Schema) -> Any:
        """The body parsed as JSON, whatever its Content-Type."""
        try:
            return core.parse_json(req.get_data(cache=True))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            raise ValidationProblem({"json": {"_schema": ["Invalid JSON body."]}}) from error


parser = ProblemParser()
use_args = parser.use_args
use_kwargs = parser.use_kwargs

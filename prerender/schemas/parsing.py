"""The webargs parser of every route: validation errors become one 400 problem, keyed by location."""
from __future__ import annotations

import logging
from typing import Any, NoReturn

from flask import Request
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from ..errors import ValidationProblem

log = logging.getLogger(__name__)


class ProblemParser(FlaskParser):
    """A FlaskParser whose errors are problem+json 400s (not webargs' default 422)."""

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


parser = ProblemParser()
use_args = parser.use_args

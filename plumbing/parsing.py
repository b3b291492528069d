"""The webargs parser of both services: what does not match its schema is one 400 problem, keyed by location
and dotted path (plumbing/problems.py), never webargs' default 422 nor a bare 400; a JSON body Python cannot
load (malformed, nested too deeply, an integer of too many digits) is such a 400 too, never a 500."""

from __future__ import annotations

import json
from typing import Any, NoReturn

from flask import Request, current_app
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from plumbing.problems import ValidationProblem

INVALID_JSON = {"json": {"_schema": ["Invalid JSON body."]}}
TOO_DEEP = {"json": {"_schema": ["The JSON body is nested too deeply."]}}


class ProblemParser(FlaskParser):
    """A FlaskParser whose errors are ValidationProblems."""

    def handle_error(
        self, error: ValidationError, req: Request, schema: Schema, *, error_status_code: int | None, error_headers: Any
    ) -> NoReturn:
        messages = error.normalized_messages()
        current_app.logger.warning("rejected %s %s: %s", req.method, req.path, messages)
        raise ValidationProblem(messages) from error

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

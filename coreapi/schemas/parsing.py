"""The webargs parser: validation failures become ``400`` problem documents."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn

import flask
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from coreapi.errors import BadRequest, FieldErrors


def flatten_messages(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """``{"contexts": {0: {"key": [...]}}}`` becomes ``{"contexts.0.key": [...]}``."""
    if isinstance(messages, Mapping):
        flat: dict[str, list[str]] = {}
        for name, value in messages.items():
            flat.update(flatten_messages(value, f"{prefix}.{name}" if prefix else str(name)))
        return flat
    if isinstance(messages, str):
        messages = [messages]
    return {prefix or "_schema": [str(message) for message in messages]}


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def handle_error(
        self,
        error: ValidationError,
        req: flask.Request,
        schema: Schema,
        *,
        error_status_code: int | None,
        error_headers: Mapping[str, str] | None,
    ) -> NoReturn:
        assert isinstance(error.messages, dict)  # keyed by location, see webargs
        errors: FieldErrors = {location: flatten_messages(messages) for location, messages in error.messages.items()}
        raise BadRequest("The request has invalid fields.", errors=errors)

    def _handle_invalid_json_error(
        self,
        error: json.JSONDecodeError | UnicodeDecodeError,
        req: flask.Request,
        *args: Any,
        **kwargs: Any,
    ) -> NoReturn:
        raise BadRequest("The request body is not valid JSON.", errors={"json": {"_schema": [str(error)]}})


parser = Parser()
use_args = parser.use_args

"""The request headers every API route reads (see ``coreapi.services.identity``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import Schema, fields, post_load

from coreapi.services.identity import (
    RequestContext,
    parse_authorization,
    parse_language,
)
from coreapi.services.text import DEFAULT_LANGUAGE


class Header(fields.String):
    """A header read by ``parse`` (a ``ValueError`` makes it invalid); empty reads as absent."""

    default_error_messages = {  # noqa: RUF012  (marshmallow's messages per class, never mutated)
        "malformed": "{message}",
    }

    def __init__(self, parse: Callable[[str], Any] = str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parse = parse

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        if not text:
            return self.load_default
        try:
            return self.parse(text)
        except ValueError as error:
            raise self.make_error("malformed", message=str(error)) from None


class RequestHeadersSchema(Schema):
    identity = Header(parse_authorization, data_key="Authorization", load_default=None)
    supplier_token = Header(data_key="Supplier-Token", load_default=None)
    supplier_id = Header(data_key="Supplier-Id", load_default=None)
    service_key = Header(data_key="X-Service-Key", load_default=None)
    language = Header(parse_language, data_key="Language-Id", load_default=DEFAULT_LANGUAGE)
    session_id = Header(data_key="Session-Id", load_default="")
    profiling = fields.Boolean(data_key="Profiling", load_default=True)

    @post_load
    def make_context(self, data: dict[str, Any], **kwargs: Any) -> RequestContext:
        return RequestContext(**data)

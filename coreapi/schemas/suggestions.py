"""The batch suggestion request and its answer."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, post_load, validate

from coreapi.schemas.fields import Id, StoreField
from coreapi.services.suggestions import ProductContext

MAX_CONTEXTS = 100
MAX_SURROUNDING = 10
MAX_CURRENT = 20


class ContextSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    key = fields.String(required=True, validate=validate.Length(max=100))
    surrounding_product_ids = fields.List(Id(), required=True, validate=validate.Length(min=1, max=MAX_SURROUNDING))
    current_product_ids = fields.List(Id(), load_default=list, validate=validate.Length(max=MAX_CURRENT))

    @post_load
    def make_context(self, data: dict[str, Any], **kwargs: Any) -> ProductContext:
        return ProductContext(
            key=data["key"],
            surrounding_product_ids=tuple(data["surrounding_product_ids"]),
            current_product_ids=tuple(data["current_product_ids"]),
        )


class SuggestionsRequestSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    contexts = fields.List(fields.Nested(ContextSchema), required=True, validate=validate.Length(max=MAX_CONTEXTS))
    store = StoreField(data_key="store_id", load_default=None, allow_none=True)
    category_id = fields.String(load_default=None, allow_none=True)
    keyword = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200))


class SuggestionSchema(Schema):
    key = fields.String()
    recipe_id = Id(allow_none=True)

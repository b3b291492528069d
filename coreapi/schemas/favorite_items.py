"""A shopper's favorite products: the body of ``PUT /favorite-items`` and the answer of both routes."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, Schema, fields, validate

from coreapi.models import MAX_FAVORITE_ITEMS
from coreapi.schemas.fields import Id

MAX_PRODUCT_ID_LENGTH = 64


class ProductIds(fields.List[str]):
    """A JSON list of product ids (non-empty strings), duplicates collapsed (the first kept, in the order
    sent), at most ``MAX_FAVORITE_ITEMS`` distinct ones."""

    default_error_messages = {  # noqa: RUF012  (marshmallow's messages per class, never mutated)
        "too_many": f"At most {MAX_FAVORITE_ITEMS} distinct ids.",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(fields.String(validate=validate.Length(min=1, max=MAX_PRODUCT_ID_LENGTH)), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str | None]:
        items = super()._deserialize(value, attr, data, **kwargs)
        ids = [key for key in dict.fromkeys(items) if key is not None]  # (the items are never null)
        if len(ids) > MAX_FAVORITE_ITEMS:
            raise self.make_error("too_many")
        return list(ids)


class FavoriteItemsArgs(Schema):
    """``PUT /favorite-items``: the whole list (``[]`` forgets it)."""

    class Meta:
        unknown = EXCLUDE

    product_ids = ProductIds(required=True)


class FavoriteItemsSchema(Schema):
    product_ids = fields.List(Id())

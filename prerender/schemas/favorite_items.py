"""The body of `PUT /{v}/favorite-items`: the shopper's favorite products, replaced whole."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, fields, post_load, validate

from prerender.schemas.fields import Identifier
from prerender.schemas.limits import MAX_FAVORITE_ITEMS


class FavoriteItemsBody(Schema):
    """`{"product_ids": [...]}`: product ids, at most MAX_FAVORITE_ITEMS, duplicates collapsed (the first kept);
    `[]` forgets them."""

    class Meta:
        unknown = RAISE

    product_ids = fields.List(
        Identifier(),
        required=True,
        validate=validate.Length(max=MAX_FAVORITE_ITEMS),
        metadata={"description": f"The retailer's product ids, at most {MAX_FAVORITE_ITEMS}, in the shopper's order."},
    )

    @post_load
    def collapse(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        return {**data, "product_ids": list(dict.fromkeys(data["product_ids"]))}

"""The likes of a connected user, and its favorites."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from coreapi.schemas.common import MAX_PER_PAGE, PaginationArgs
from coreapi.schemas.fields import Id, StoreField, UtcDateTime, id_list
from coreapi.schemas.recipes import RecipeSummarySchema


class LikesArgs(Schema):
    recipe_ids = id_list(required=True)


class LikedRecipesSchema(Schema):
    data = fields.List(Id())


class FavoritesArgs(PaginationArgs):
    per_page = fields.Integer(load_default=20, validate=validate.Range(min=1, max=MAX_PER_PAGE))
    store = StoreField(data_key="store_id", load_default=None)


class LikedRecipeSchema(RecipeSummarySchema):
    """A favorite: the recipe's summary, and when the user liked it."""

    liked_at = UtcDateTime()

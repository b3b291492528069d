"""Recipe summaries and details, and the arguments of the recipe routes.

Details are built as JSON by ``coreapi.services.recipes.recipe_details`` itself (a batch of them
holds thousands of values: a marshmallow dump of them cost most of the batch's time); this module
gives it the picture URLs of the request.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate
from webargs.fields import DelimitedList

from coreapi.models import RECIPE_TYPES
from coreapi.schemas.common import PaginationArgs
from coreapi.schemas.fields import (
    PRODUCT_PICTURE,
    RECIPE_PICTURE,
    Id,
    PictureUrl,
    StoreField,
    id_list,
    picture_urls,
)
from coreapi.schemas.preferences import apply_preferences
from coreapi.services.recipes import PictureUrls

MAX_SERVES = 50


class RecipesArgs(PaginationArgs):
    # One type, or several separated by commas (any of them).
    type = DelimitedList(fields.String(), load_default=list, validate=validate.ContainsOnly(RECIPE_TYPES))
    # Recipes to leave out (the planner's catalog panel: those already in the menu).
    exclude_ids = id_list(load_default=list)
    category = fields.String(load_default=None, validate=validate.Length(max=64))
    q = fields.String(load_default=None, validate=validate.Length(max=200))
    store = StoreField(data_key="store_id", load_default=None)
    preferences = apply_preferences()


class DetailArgs(Schema):
    store = StoreField(data_key="store_id", load_default=None)
    serves = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_SERVES))
    # `summary`: the detail without its ingredients and steps (what a recipe card shows).
    view = fields.String(load_default="detail", validate=validate.OneOf(["detail", "summary"]))


class BatchArgs(DetailArgs):
    ids = id_list(required=True)


class RecipeSummarySchema(Schema):
    id = Id()
    external_id = fields.String()
    title = fields.String()
    description = fields.String()
    picture_url = PictureUrl(*RECIPE_PICTURE)
    type = fields.String()
    categories = fields.List(Id())
    tags = fields.List(fields.String())
    equipment = fields.List(Id())
    difficulty = fields.Integer()
    preparation_time = fields.Integer()
    cooking_time = fields.Integer()
    total_time = fields.Integer()
    guests = fields.Integer()


def detail_pictures() -> PictureUrls:
    """The picture URLs of recipe details, the same as ``RecipeSummarySchema``'s and
    ``ProductSchema``'s, for the current request."""
    return PictureUrls(recipe=picture_urls(*RECIPE_PICTURE), product=picture_urls(*PRODUCT_PICTURE))

"""Recipe summaries and details, and the arguments of the recipe routes."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from coreapi.models import RECIPE_TYPES
from coreapi.schemas.catalog import ProductSchema
from coreapi.schemas.common import PaginationArgs
from coreapi.schemas.fields import Id, Money, PictureUrl, Quantity, StoreField, id_list

MAX_SERVES = 50


class RecipesArgs(PaginationArgs):
    type = fields.String(load_default=None, validate=validate.OneOf(RECIPE_TYPES))
    category = fields.String(load_default=None, validate=validate.Length(max=64))
    q = fields.String(load_default=None, validate=validate.Length(max=200))
    store = StoreField(data_key="store_id", load_default=None)


class DetailArgs(Schema):
    store = StoreField(data_key="store_id", load_default=None)
    serves = fields.Integer(load_default=None, validate=validate.Range(min=1, max=MAX_SERVES))


class BatchArgs(DetailArgs):
    ids = id_list(required=True)


class RecipeSummarySchema(Schema):
    id = Id()
    external_id = fields.String()
    title = fields.String()
    description = fields.String()
    picture_url = PictureUrl("media.recipe_picture", "recipe_id")
    type = fields.String()
    categories = fields.List(Id())
    difficulty = fields.Integer()
    preparation_time = fields.Integer()
    cooking_time = fields.Integer()
    total_time = fields.Integer()
    guests = fields.Integer()


class StepSchema(Schema):
    position = fields.Integer()
    text = fields.String()


class CandidateSchema(ProductSchema):
    """A product of an ingredient: the packages the ingredient needs of it for these guests."""

    class Meta:
        exclude = ("ingredient_ids",)

    packages = fields.Integer()


class IngredientSchema(Schema):
    id = Id()
    name = fields.String()
    quantity = Quantity()
    unit = fields.String()
    display = fields.String()
    primary = fields.Boolean()
    products = fields.List(fields.Nested(CandidateSchema))


class PricingSchema(Schema):
    guests = fields.Integer()
    total = Money()
    price_per_guest = Money()
    currency = fields.String()


class RecipeDetailSchema(RecipeSummarySchema):
    steps = fields.List(fields.Nested(StepSchema))
    ingredients = fields.List(fields.Nested(IngredientSchema))
    available = fields.Boolean(allow_none=True)
    promoted = fields.Boolean(allow_none=True)
    pricing = fields.Nested(PricingSchema, allow_none=True)

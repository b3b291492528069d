"""Menus: the arguments of the menu routes, and the menu."""

from __future__ import annotations

from decimal import ROUND_HALF_UP
from typing import Any

from marshmallow import EXCLUDE, Schema, fields, validate
from webargs.fields import DelimitedList

from coreapi.models import RECIPE_TYPES
from coreapi.schemas.fields import Id, Money, PictureUrl, PublicId, StoreField
from coreapi.schemas.preferences import apply_preferences
from coreapi.services import public_ids
from coreapi.services.identity import MAX_ID_LENGTH
from coreapi.services.menus import MAX_BUDGET, MAX_GUESTS, MAX_RECIPES, MIN_GUESTS, SUGGESTED_RECIPES

FROM_SUGGESTIONS = "suggestions"
FROM_SCRATCH = "scratch"


def _guests(**kwargs: Any) -> fields.Integer:
    return fields.Integer(validate=validate.Range(min=MIN_GUESTS, max=MAX_GUESTS), **kwargs)


def _recipe_id(**kwargs: Any) -> Id:
    return Id(validate=validate.Length(min=1, max=MAX_ID_LENGTH), **kwargs)


class CurrentMenuArgs(Schema):
    """``GET /menus/current``: ``store_id`` moves an existing menu there; ``from``, ``guests`` and
    ``preferences`` only count when the menu is created (without ``guests``: the shopper's preferred
    guests with ``preferences=apply``, else ``DEFAULT_GUESTS``)."""

    class Meta:
        unknown = EXCLUDE

    store = StoreField(data_key="store_id", load_default=None)
    origin = fields.String(
        data_key="from", load_default=FROM_SUGGESTIONS, validate=validate.OneOf([FROM_SUGGESTIONS, FROM_SCRATCH])
    )
    guests = _guests(load_default=None)
    # Only counts at creation, as ``from``: the suggestions the menu is filled with, and its guests when the
    # request names none.
    preferences = apply_preferences()


class MenuPatchArgs(Schema):
    """``PATCH /menus/current``: only the fields present change; ``null`` clears the store or the
    budget."""

    class Meta:
        unknown = EXCLUDE

    store = StoreField(data_key="store_id", allow_none=True)
    guests = _guests(strict=True)
    budget = fields.Decimal(
        allow_none=True,
        places=2,
        rounding=ROUND_HALF_UP,
        allow_nan=False,
        validate=validate.Range(min=0, max=MAX_BUDGET),
    )


class AddRecipeArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    recipe_id = _recipe_id(required=True)
    guests = _guests(strict=True, load_default=None)


class GuestsArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    guests = _guests(strict=True, required=True)


class SwapArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    recipe_id = _recipe_id(required=True)


class MergeArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    authless_id = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    store = StoreField(data_key="store_id", load_default=None)


class SuggestionsArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    store = StoreField(data_key="store_id", load_default=None)
    type = DelimitedList(fields.String(), load_default=list, validate=validate.ContainsOnly(RECIPE_TYPES))
    limit = fields.Integer(load_default=SUGGESTED_RECIPES, validate=validate.Range(min=1, max=MAX_RECIPES))
    preferences = apply_preferences()


class PricingSchema(Schema):
    guests = fields.Integer()
    total = Money()
    price_per_guest = Money()
    currency = fields.String()


class MenuProductSchema(Schema):
    id = Id(attribute="product_id")
    ingredient_id = Id()
    name = fields.String()
    brand = fields.String(allow_none=True)
    size = fields.String()
    picture_url = PictureUrl("media.product_picture", "product_id", attribute="product_id")
    quantity = fields.Integer()
    unit_price = Money()
    price = Money()
    selected = fields.Boolean()


class MenuRecipeSchema(Schema):
    id = Id(attribute="recipe_id")
    title = fields.String()
    picture_url = PictureUrl("media.recipe_picture", "recipe_id", attribute="recipe_id")
    type = fields.String()
    guests = fields.Integer()
    position = fields.Integer()
    pricing = fields.Nested(PricingSchema, allow_none=True)
    products = fields.List(fields.Nested(MenuProductSchema))


class MenuSchema(Schema):
    id = PublicId(public_ids.MENU)
    store_id = Id(allow_none=True)
    guests = fields.Integer()
    budget = Money(allow_none=True)
    recipes = fields.List(fields.Nested(MenuRecipeSchema))
    recipe_count = fields.Integer()
    total = Money(allow_none=True)
    currency = fields.String()
    removed_recipe_ids = fields.List(Id())

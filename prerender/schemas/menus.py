"""Queries, bodies and answers of the planner's routes: the entry block's query, and the menu routes the
current-menu page calls from the browser (docs/browser-api.md, "Menus"), forwarded to the upstream's menus
(docs/upstream.md, "Menus")."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema
from webargs.fields import DelimitedList

from prerender.schemas.fields import (
    IDENTITY_MESSAGE,
    IDENTITY_PATTERN,
    Amount,
    FullMatch,
    Identifier,
    Integer,
    OptionalStoreId,
    no_control_characters,
)
from prerender.schemas.limits import MAX_SEARCH_LENGTH, MAX_SERVES
from prerender.schemas.responses import AnswerSchema

RECIPE_TYPES = ("starter", "main-dish", "dessert", "drink")
# How a menu starts when the shopper has none: from the current suggestions, or empty.
MENU_ORIGINS = ("suggestions", "scratch")
MAX_BUDGET = 100_000
MAX_MENU_SUGGESTIONS = 20


def _guests(*, strict: bool, **kwargs: Any) -> Integer:
    return Integer(strict=strict, validate=validate.Range(1, MAX_SERVES), **kwargs)


class _Body(Schema):
    class Meta:
        unknown = RAISE


class _Query(Schema):
    class Meta:
        unknown = EXCLUDE


class PlannerEntryQuery(_Query):
    """`GET /v2/planner/entry`: the store is recommended (the planner prices with it) and optional."""

    store_id = OptionalStoreId(load_default=None)


PAGE_VIEWS = ("recipe", "menu")
MAX_PANEL_PAGE = 50


class _PanelQuery(_Query):
    """The left panel's catalog: recipe types (the four filters) and a keyword; neither: the suggestions."""

    recipe_type_id = DelimitedList(
        fields.String(validate=validate.OneOf(RECIPE_TYPES)),
        load_default=list,
        metadata={"description": "Comma-separated recipe types: starter, main-dish, dessert, drink."},
    )
    search = fields.String(
        load_default="",
        validate=[validate.Length(max=MAX_SEARCH_LENGTH), no_control_characters()],
        metadata={"description": "A keyword."},
    )
    page = Integer(strict=False, load_default=1, validate=validate.Range(1, MAX_PANEL_PAGE))

    @post_load
    def strip_search(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        return {**data, "search": data["search"].strip(), "recipe_type_id": list(dict.fromkeys(data["recipe_type_id"]))}


class CurrentMenuPageQuery(_PanelQuery):
    """`GET /v2/planner/current-menu` and `GET /v2/planner`: the store (recommended), the mode the entry chose
    (`custom`: a new menu starts empty), the guest count of a new menu, the phone view, the panel's filters."""

    store_id = OptionalStoreId(load_default=None)
    mode = fields.String(load_default=None, validate=validate.OneOf(("selection", "custom")))
    guests = _guests(strict=False, load_default=None)
    view = fields.String(load_default=None, validate=validate.OneOf(PAGE_VIEWS))
    panel = fields.Boolean(
        load_default=True,
        metadata={"description": "false: the page without its panel's recipes (the module's refresh of the menu)."},
    )


# The most recipes `GET /v2/planner/recipes` draws again by id (the browser asks in batches of this many).
MAX_PANEL_RECIPE_IDS = 100


class PlannerRecipesQuery(_PanelQuery):
    """`GET /v2/planner/recipes`: a page of the catalog panel, priced at the store for the guests, without the
    menu's recipes; or, with `recipe_ids`, those recipes' cards again (the panel's, after a guest change)."""

    store_id = OptionalStoreId(load_default=None)
    guests = _guests(strict=False, load_default=4)
    exclude_ids = DelimitedList(Identifier(), load_default=list, validate=validate.Length(max=100))
    recipe_ids = DelimitedList(
        Identifier(),
        load_default=list,
        validate=validate.Length(max=MAX_PANEL_RECIPE_IDS),
        metadata={
            "description": (
                "Comma-separated recipe ids, without recipe_type_id, search, page or exclude_ids: the cards of "
                "these recipes, in this order, priced for the guests (the panel's own cards drawn again after a "
                "guest change)."
            )
        },
    )

    @validates_schema
    def needs_a_filter(self, data: dict[str, Any], **_: Any) -> None:
        by_ids = bool(data.get("recipe_ids"))
        filtered = bool(data.get("recipe_type_id")) or bool((data.get("search") or "").strip())
        if by_ids and (filtered or data.get("exclude_ids") or data.get("page", 1) != 1):
            raise ValidationError(
                "Send recipe_ids alone (no recipe_type_id, search, page or exclude_ids).", field_name="recipe_ids"
            )
        if not by_ids and not filtered:
            raise ValidationError("Send recipe_type_id or search (or recipe_ids).", field_name="_schema")


class CurrentMenuQuery(_Query):
    """`GET /v2/menu/current`: the store to price at (the menu moves to it), and how a new menu starts."""

    store_id = OptionalStoreId(load_default=None)
    origin = fields.String(data_key="from", load_default="suggestions", validate=validate.OneOf(MENU_ORIGINS))
    guests = _guests(strict=False, load_default=None)


class MenuPatchBody(_Body):
    """`PATCH /v2/menu/current`: any of the store (null: none), the guests of every recipe, the budget."""

    store_id = Identifier(allow_none=True)
    guests = _guests(strict=True)
    budget = Amount(allow_none=True, validate=validate.Range(0, MAX_BUDGET))

    @validates_schema
    def not_empty(self, data: dict[str, Any], **_: Any) -> None:
        if not data:
            raise ValidationError("Send store_id, guests or budget.", field_name="_schema")


class MenuRecipeBody(_Body):
    """`POST /v2/menu/current/recipes`: a recipe to add (re-scaled when already there)."""

    recipe_id = Identifier(required=True)
    guests = _guests(strict=True)


class MenuGuestsBody(_Body):
    """`PATCH /v2/menu/current/recipes/<recipe_id>`."""

    guests = _guests(strict=True, required=True)


class SwapBody(_Body):
    """`POST /v2/menu/current/recipes/<recipe_id>/swap`: the recipe taking its place."""

    recipe_id = Identifier(required=True)


class MenuRecipePath(Schema):
    recipe_id = Identifier(required=True)


class MenuProductPath(MenuRecipePath):
    product_id = Identifier(required=True)


class MenuSuggestionsQuery(_Query):
    """`GET /v2/menu/current/suggestions`: recipes to add, not already in the menu."""

    store_id = OptionalStoreId(load_default=None)
    type = DelimitedList(fields.String(validate=validate.OneOf(RECIPE_TYPES)), load_default=list)
    limit = Integer(strict=False, load_default=6, validate=validate.Range(1, MAX_MENU_SUGGESTIONS))


class MergeAuthlessMenuQuery(_Query):
    """`?authless_id=&store_id=` of the merge at the end of the auth flow."""

    authless_id = fields.String(required=True, validate=FullMatch(IDENTITY_PATTERN, error=IDENTITY_MESSAGE))
    store_id = OptionalStoreId(load_default=None)


class MenuProductSchema(AnswerSchema):
    id = fields.String()
    ingredient_id = fields.String()
    name = fields.String()
    selected = fields.Boolean()
    quantity = fields.Integer()
    unit_price = fields.Float(allow_none=True)
    price = fields.Float(allow_none=True)


class MenuRecipeSchema(AnswerSchema):
    id = fields.String()
    title = fields.String()
    picture_url = fields.String()
    type = fields.String()
    guests = fields.Integer()
    position = fields.Integer()
    pricing = fields.Dict(allow_none=True)
    products = fields.List(fields.Nested(MenuProductSchema))


class MenuSchema(AnswerSchema):
    """The shopper's menu (docs/upstream.md, "Menus"): no products nor prices without a store."""

    id = fields.String()
    store_id = fields.String(allow_none=True)
    guests = fields.Integer()
    budget = fields.Float(allow_none=True)
    recipes = fields.List(fields.Nested(MenuRecipeSchema))
    recipe_count = fields.Integer()
    total = fields.Float(allow_none=True)
    currency = fields.String()
    removed_recipe_ids = fields.List(
        fields.String(), metadata={"description": "Recipes the completion filter removed on a move to this store."}
    )


class MenuSuggestionSchema(AnswerSchema):
    """A recipe summary (as the upstream's `GET /recipes` gives them)."""

    id = fields.String(required=True)
    type = fields.String()


class MenuSuggestionsSchema(AnswerSchema):
    data = fields.List(fields.Nested(MenuSuggestionSchema))

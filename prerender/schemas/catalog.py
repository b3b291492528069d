"""Query strings of the catalog pages (GET /{v}/catalog..., the my-space pages) and the bodies of the preference
routes. Parameter names follow the maker's documented catalog routes (`display_recipe_variant`, `display_infos`,
`search`, `max_recipes_per_category`) and the specification's (`planner`, `all_recipes`, `recipe_type_id`,
`recipe_type_filter`, `tab`, `show_tab_selector`, `history_style`, `title`, `embed`). Unknown parameters are
ignored: a customer forwards its page's own query string."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, fields, post_load, validate
from webargs.fields import DelimitedList

from prerender.schemas.fields import (
    FullMatch,
    Identifier,
    Integer,
    OptionalStoreId,
    no_control_characters,
)
from prerender.schemas.limits import MAX_SEARCH_LENGTH
from prerender.schemas.menus import RECIPE_TYPES
from prerender.schemas.variants import accepted_variants

MAX_CATALOG_PAGE = 100
MAX_RECIPES_PER_CATEGORY = 20
MAX_TITLE_LENGTH = 120
MAX_ANALYTICS_PATH = 200
MY_SPACE_TABS = ("favorites", "history")
HISTORY_STYLES = ("list", "grid")
# The history's layout when none is asked for: `list` in v2 (the specification), the maker's `grid` before.
HISTORY_STYLE_DEFAULTS = {"v1": "grid", "v2": "list"}
# The guests a shopper may set as their default (the planner entry's stepper bounds).
PREFERRED_GUESTS = (1, 12)
MAX_PREFERENCE_IDS = 50
# An analytics path: a URL path the page names itself by, never a URL (it is sent back in events).
ANALYTICS_PATH = re.compile(r"^/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$")


class _Query(Schema):
    class Meta:
        unknown = EXCLUDE


def _search(**kwargs: Any) -> fields.String:
    return fields.String(
        load_default="",
        validate=[validate.Length(max=MAX_SEARCH_LENGTH), no_control_characters()],
        metadata={"description": "A keyword."},
        **kwargs,
    )


def _variant(version: str) -> Integer:
    allowed = accepted_variants(version)
    return Integer(
        strict=False,
        load_default=1,
        validate=validate.OneOf(allowed, error=f"Must be one of {allowed}."),
        metadata={"description": "The cards' display variant (1: no badge, the catalog's)."},
    )


class _PageQuery(_Query):
    """What every catalog page takes: the store (prices, completion filter), how its cards look, its analytics
    path."""

    store_id = OptionalStoreId(load_default=None)
    display_infos = fields.Boolean(
        load_default=False, metadata={"description": "true: the cards show their time, difficulty and guests."}
    )
    analytics_path = fields.String(
        load_default=None,
        validate=[validate.Length(max=MAX_ANALYTICS_PATH), FullMatch(ANALYTICS_PATH, error="Must be a path.")],
        metadata={"description": "The page's analytics path (pageview); default the page's own name."},
    )


class _ListQuery(_PageQuery):
    """A paginated list of recipes: a keyword, recipe types, the type filter, the planner's cards."""

    search = _search()
    recipe_type_id = DelimitedList(
        fields.String(validate=validate.OneOf(RECIPE_TYPES)),
        load_default=list,
        metadata={"description": "Comma-separated recipe types: starter, main-dish, dessert, drink."},
    )
    recipe_type_filter = fields.Boolean(load_default=False, metadata={"description": "true: show the type filter."})
    planner = fields.Boolean(
        load_default=False, metadata={"description": "true: the cards offer 'add to my menu' instead of the basket."}
    )
    page = Integer(strict=False, load_default=1, validate=validate.Range(1, MAX_CATALOG_PAGE))

    @post_load
    def normalize(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """The search trimmed; the types once each, in RECIPE_TYPES' order, so that the page's own links (the
        chips, the pagination) name one list by one URL whatever order the types were chosen in."""
        chosen = set(data["recipe_type_id"])
        return {**data, "search": data["search"].strip(), "recipe_type_id": [x for x in RECIPE_TYPES if x in chosen]}


class HeaderQuery(_Query):
    """`GET /{v}/catalog/header`."""

    store_id = OptionalStoreId(load_default=None)


def _home(version: str) -> type[Schema]:
    class HomeQuery(_PageQuery):
        """`GET /{v}/catalog`: the header, then a row per category."""

        display_recipe_variant = _variant(version)
        max_recipes_per_category = Integer(
            strict=False, load_default=6, validate=validate.Range(1, MAX_RECIPES_PER_CATEGORY)
        )

    return HomeQuery


def _category(version: str) -> type[Schema]:
    class CategoryQuery(_ListQuery):
        """`GET /{v}/catalog/category`: one category's recipes."""

        category_id = Identifier(required=True)
        display_recipe_variant = _variant(version)

    return CategoryQuery


def _list(version: str) -> type[Schema]:
    class ListQuery(_ListQuery):
        """`GET /{v}/catalog/list`: search results, a type, or every recipe."""

        all_recipes = fields.Boolean(
            load_default=False,
            metadata={"description": "true: the whole catalog, the shopper's preferences not applied."},
        )
        display_recipe_variant = _variant(version)

    return ListQuery


class FavoritesQuery(_PageQuery):
    """`GET /v1/catalog/favorites`: the connected user's liked recipes."""

    display_recipe_variant = _variant("v1")
    page = Integer(strict=False, load_default=1, validate=validate.Range(1, MAX_CATALOG_PAGE))


def _my_space(version: str) -> type[Schema]:
    class MySpaceQuery(_PageQuery):
        """`GET /{v}/catalog/my-space`: Favorites and History."""

        tab = fields.String(load_default="favorites", validate=validate.OneOf(MY_SPACE_TABS))
        show_tab_selector = fields.Boolean(
            load_default=True, metadata={"description": "false or 0: no tabs; the title names the active section."}
        )
        history_style = fields.String(
            load_default=HISTORY_STYLE_DEFAULTS[version],
            validate=validate.OneOf(HISTORY_STYLES),
            metadata={"description": "The history's layout (tab=history): list or grid."},
        )
        display_recipe_variant = _variant(version)
        page = Integer(strict=False, load_default=1, validate=validate.Range(1, MAX_CATALOG_PAGE))

    return MySpaceQuery


class BasketPreviewQuery(_Query):
    """`GET /v2/catalog/my-space/basket-preview`: the shopper's basket at the store."""

    store_id = OptionalStoreId(load_default=None)
    title = fields.String(load_default=None, validate=[validate.Length(1, MAX_TITLE_LENGTH), no_control_characters()])
    show_tab_selector = fields.Boolean(
        load_default=False, metadata={"description": "true: the my-space tabs above the basket."}
    )
    embed = fields.Boolean(load_default=False, metadata={"description": "true: no page chrome (a side panel)."})

    @post_load
    def strip_title(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        title = (data["title"] or "").strip()
        return {**data, "title": title or None}


class PreferencesBody(Schema):
    """`PUT /{v}/preferences`: the shopper's preferences, replaced whole."""

    class Meta:
        unknown = RAISE

    diets = fields.List(Identifier(), load_default=list, validate=validate.Length(max=MAX_PREFERENCE_IDS))
    avoided_ingredients = fields.List(Identifier(), load_default=list, validate=validate.Length(max=MAX_PREFERENCE_IDS))
    missing_equipment = fields.List(Identifier(), load_default=list, validate=validate.Length(max=MAX_PREFERENCE_IDS))
    guests = Integer(strict=True, load_default=None, allow_none=True, validate=validate.Range(*PREFERRED_GUESTS))


HOME_QUERIES: dict[str, Schema] = {version: _home(version)() for version in ("v1", "v2")}
CATEGORY_QUERIES: dict[str, Schema] = {version: _category(version)() for version in ("v1", "v2")}
LIST_QUERIES: dict[str, Schema] = {version: _list(version)() for version in ("v1", "v2")}
MY_SPACE_QUERIES: dict[str, Schema] = {version: _my_space(version)() for version in ("v1", "v2")}

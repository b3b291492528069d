"""The catalog side of the upstream (docs/upstream.md): categories, recipe pages, the shopper's favorites, the
history of their confirmed baskets, their preferences and their favorite products.

Categories and the preference options are the same for every shopper of a language: cached like recipes, the
last good answer served while the upstream fails. Pages, favorites, history, preferences and favorite products
are the shopper's own and never cached. Every answer is validated on the way in (gateway/models.py does the same
for recipes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from marshmallow import fields, post_load, validate

from prerender.gateway.calls import (
    APPLY_PREFERENCES,
    BATCH_LIMIT,
    CallerIdentity,
    present,
    raise_unknown_store,
    send,
)
from prerender.gateway.errors import UpstreamBadResponse, UpstreamError, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import DifficultyField, LenientSchema, load_answer
from prerender.gateway.read_cache import ReadCache, cache_key

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class RecipeQuery:
    """What a page of the catalog is asked for (`GET /recipes`), in the upstream's words only here: its page, the
    recipe types, a category, a keyword, the recipes to leave out, the store whose completion filter applies, and
    whether the shopper's preferences narrow it."""

    page: int = 1
    per_page: int
    store_id: str | None = None
    types: Sequence[str] = ()
    category_id: str | None = None
    search: str = ""
    exclude_ids: Sequence[str] = ()
    apply_preferences: bool = False

    def params(self) -> dict[str, Any]:
        """The query string; what is left unset (or empty) is left out. At most BATCH_LIMIT recipes left out."""
        return present(
            page=self.page,
            per_page=self.per_page,
            store_id=self.store_id or None,
            type=",".join(self.types) or None,
            category=self.category_id or None,
            q=self.search or None,
            exclude_ids=",".join(self.exclude_ids[:BATCH_LIMIT]) or None,
            preferences=APPLY_PREFERENCES if self.apply_preferences else None,
        )


@dataclass(frozen=True)
class Category:
    id: str
    name: str


@dataclass(frozen=True)
class Choice:
    """One option of the preferences panel: a diet, an ingredient or a piece of equipment."""

    id: str
    name: str


@dataclass(frozen=True)
class PreferenceOptions:
    diets: tuple[Choice, ...]
    ingredients: tuple[Choice, ...]
    equipment: tuple[Choice, ...]
    guests_min: int
    guests_max: int


@dataclass(frozen=True)
class Preferences:
    """A shopper's preferences; `enabled` is False when their supplier disabled personalization."""

    diets: tuple[str, ...] = ()
    avoided_ingredients: tuple[str, ...] = ()
    missing_equipment: tuple[str, ...] = ()
    guests: int | None = None
    enabled: bool = True

    @property
    def filters(self) -> bool:
        """Whether they narrow the recipes (the guests do not)."""
        return bool(self.enabled and (self.diets or self.avoided_ingredients or self.missing_equipment))

    def as_json(self) -> dict[str, Any]:
        return {
            "diets": list(self.diets),
            "avoided_ingredients": list(self.avoided_ingredients),
            "missing_equipment": list(self.missing_equipment),
            "guests": self.guests,
            "enabled": self.enabled,
        }


@dataclass(frozen=True)
class RecipeSummary:
    id: str
    type: str


@dataclass(frozen=True, kw_only=True)
class Paged:
    """Where a page stands among the `total` items its query matches."""

    page: int
    per_page: int
    total: int

    @property
    def has_more(self) -> bool:
        return self.page * self.per_page < self.total

    @property
    def last_page(self) -> int:
        """The last page holding items (1 when none does)."""
        return max(1, -(-self.total // self.per_page))

    @property
    def past_the_end(self) -> bool:
        """Whether this page comes after the last one holding items (an old link, a hand-written query)."""
        return self.total > 0 and self.page > self.last_page


@dataclass(frozen=True, kw_only=True)
class RecipePage(Paged):
    """A page of recipe ids (with their type)."""

    items: tuple[RecipeSummary, ...]


@dataclass(frozen=True)
class HistoryRecipe:
    recipe_id: str
    title: str
    picture_url: str | None
    guests: int
    total_time: int | None
    difficulty: int | None
    price: Decimal | None


@dataclass(frozen=True)
class Order:
    """A confirmed basket."""

    id: str
    confirmed_at: str
    store_id: str | None
    total: Decimal | None
    recipe_count: int
    recipes: tuple[HistoryRecipe, ...]


@dataclass(frozen=True, kw_only=True)
class HistoryPage(Paged):
    """A page of the shopper's orders."""

    orders: tuple[Order, ...]


# --- validation of the answers ----------------------------------------------------------------------


class _ChoiceSchema(LenientSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Choice:
        return Choice(**data)


class _GuestsRange(LenientSchema):
    min = fields.Integer(required=True)
    max = fields.Integer(required=True)


class _OptionsSchema(LenientSchema):
    diets = fields.List(fields.Nested(_ChoiceSchema), required=True)
    ingredients = fields.List(fields.Nested(_ChoiceSchema), required=True)
    equipment = fields.List(fields.Nested(_ChoiceSchema), required=True)
    guests = fields.Nested(_GuestsRange, required=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> PreferenceOptions:
        return PreferenceOptions(
            diets=tuple(data["diets"]),
            ingredients=tuple(data["ingredients"]),
            equipment=tuple(data["equipment"]),
            guests_min=data["guests"]["min"],
            guests_max=data["guests"]["max"],
        )


class _PreferencesSchema(LenientSchema):
    diets = fields.List(fields.String(), load_default=list)
    avoided_ingredients = fields.List(fields.String(), load_default=list)
    missing_equipment = fields.List(fields.String(), load_default=list)
    guests = fields.Integer(load_default=None, allow_none=True)
    enabled = fields.Boolean(load_default=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Preferences:
        return Preferences(
            diets=tuple(data["diets"]),
            avoided_ingredients=tuple(data["avoided_ingredients"]),
            missing_equipment=tuple(data["missing_equipment"]),
            guests=data["guests"],
            enabled=data["enabled"],
        )


class _FavoriteItemsSchema(LenientSchema):
    product_ids = fields.List(fields.String(), required=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> tuple[str, ...]:
        return tuple(data["product_ids"])


class _SummarySchema(LenientSchema):
    id = fields.String(required=True)
    type = fields.String(load_default="")

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> RecipeSummary:
        return RecipeSummary(**data)


class _PageSchema(LenientSchema):
    data = fields.List(fields.Nested(_SummarySchema), required=True)
    page = fields.Integer(load_default=1)
    per_page = fields.Integer(load_default=20, validate=validate.Range(min=1))
    total = fields.Integer(load_default=0)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> RecipePage:
        return RecipePage(items=tuple(data["data"]), page=data["page"], per_page=data["per_page"], total=data["total"])


class _HistoryRecipeSchema(LenientSchema):
    recipe_id = fields.String(required=True)
    title = fields.String(required=True)
    picture_url = fields.String(load_default=None, allow_none=True)
    guests = fields.Integer(required=True)
    total_time = fields.Integer(load_default=None, allow_none=True)
    difficulty = DifficultyField(load_default=None, allow_none=True)
    price = fields.Decimal(load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> HistoryRecipe:
        return HistoryRecipe(**data)


class _OrderSchema(LenientSchema):
    id = fields.String(required=True)
    confirmed_at = fields.String(required=True)
    store_id = fields.String(load_default=None, allow_none=True)
    total = fields.Decimal(load_default=None, allow_none=True)
    recipe_count = fields.Integer(load_default=0)
    recipes = fields.List(fields.Nested(_HistoryRecipeSchema), load_default=list)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Order:
        return Order(**{**data, "recipes": tuple(data["recipes"])})


class _HistorySchema(LenientSchema):
    data = fields.List(fields.Nested(_OrderSchema), required=True)
    page = fields.Integer(load_default=1)
    per_page = fields.Integer(load_default=10, validate=validate.Range(min=1))
    total = fields.Integer(load_default=0)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> HistoryPage:
        return HistoryPage(
            orders=tuple(data["data"]), page=data["page"], per_page=data["per_page"], total=data["total"]
        )


_OPTIONS = _OptionsSchema()
_PREFERENCES = _PreferencesSchema()
_FAVORITE_ITEMS = _FavoriteItemsSchema()
_PAGE = _PageSchema()
_HISTORY = _HistorySchema()
_CATEGORY = _ChoiceSchema()


# --- the calls --------------------------------------------------------------------------------------


class CatalogGateway:
    """Calls for the catalog pages and the preferences. Reads are retried after connection errors, and so is
    PUT (it replaces); the upstream's 4xx pass through to the caller (prerender/web/errors.py)."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int, stale_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl
        self.stale_ttl = stale_ttl

    def categories(self, identity: CallerIdentity) -> tuple[Category, ...]:
        """Every category, in the upstream's order, named in the caller's language."""

        def parse(payload: Any) -> tuple[Category, ...]:
            if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
                raise UpstreamBadResponse("categories: expected {data: [...]}")
            return tuple(
                Category(id=c.id, name=c.name) for c in (load_answer(_CATEGORY, i, "category") for i in payload["data"])
            )

        categories: tuple[Category, ...] = self._shared_read(identity, "categories", "/categories", parse)
        return categories

    def preference_options(self, identity: CallerIdentity) -> PreferenceOptions:
        """What the preferences panel offers: diets, ingredients, equipment, the guests' range."""
        options: PreferenceOptions = self._shared_read(
            identity,
            "preference_options",
            "/preferences/options",
            lambda payload: load_answer(_OPTIONS, payload, "preference options"),
        )
        return options

    def recipe_page(self, identity: CallerIdentity, query: RecipeQuery) -> RecipePage:
        """GET /recipes: a page of the catalog (the catalog pages, the planner's panel); its last good copy while the
        upstream fails."""
        return self._page(identity, "/recipes", "catalog_recipes", query.params())

    def favorites(self, identity: CallerIdentity, *, page: int, per_page: int, store_id: str | None) -> RecipePage:
        """GET /likes/recipes: the connected user's liked recipes, most recent first, with the completion filter at
        `store_id`; their last good copy while the upstream fails."""
        params = present(page=page, per_page=per_page, store_id=store_id or None)
        return self._page(identity, "/likes/recipes", "favorites", params)

    def _page(self, identity: CallerIdentity, path: str, name: str, params: dict[str, Any]) -> RecipePage:
        """A page of recipe ids, never cached fresh (a shopper's likes and preferences change it), but kept as the
        stale copy served while the upstream fails, so a shopper sees yesterday's catalog rather than "unavailable".
        Per supplier, language and query; per shopper too, since their likes or preferences may shape it (the key
        is hashed: no id in clear). Only pages with recipes keep one, no free-text search does, and no caller without
        a known supplier (anyone can name any shopper: each would keep a key a day)."""
        key = cache_key(
            "catalog-page", identity.supplier_id, identity.language, identity.authorization, path, _sorted_items(params)
        )
        try:
            page: RecipePage = load_answer(_PAGE, self._read(identity, path, name, params), name)
        except UpstreamError as error:
            if isinstance(error, UpstreamStatusError) and error.status < 500:
                raise
            last: RecipePage = self.cache.stale(key, error, what=f"{name} page")
            return last
        if params.get("q") or identity.supplier_id is None:
            pass  # no stale copy: any caller could keep a key a day with each new text or made-up shopper
        elif page.items:
            self.cache.keep_last_good(key, page, timeout=self.stale_ttl)
        else:  # nothing (left) on this page: no older copy comes back during an outage
            self.cache.drop_last_good(key)
        return page

    def _read(self, identity: CallerIdentity, path: str, name: str, params: dict[str, Any]) -> Any:
        """A read that takes `store_id`: an unknown store is UnknownStore (the customer's bug: a 400)."""
        try:
            return send(self.http, identity, "GET", path, resource=Resource.CATALOG, name=name, params=params)
        except UpstreamStatusError as error:
            raise_unknown_store(error)
            raise

    def history(self, identity: CallerIdentity, *, page: int, per_page: int) -> HistoryPage:
        """GET /baskets/history: the shopper's confirmed baskets, newest first."""
        payload = send(
            self.http,
            identity,
            "GET",
            "/baskets/history",
            resource=Resource.CATALOG,
            name="history",
            params={"page": page, "per_page": per_page},
        )
        history: HistoryPage = load_answer(_HISTORY, payload, "history")
        return history

    def preferences(self, identity: CallerIdentity) -> Preferences:
        """GET /preferences: the shopper's (the defaults when none are stored)."""
        payload = send(self.http, identity, "GET", "/preferences", resource=Resource.SHOPPER, name="preferences")
        preferences: Preferences = load_answer(_PREFERENCES, payload, "preferences")
        return preferences

    def save_preferences(self, identity: CallerIdentity, body: dict[str, Any]) -> Preferences:
        """PUT /preferences: replaces them whole (so a retry is harmless)."""
        payload = send(
            self.http, identity, "PUT", "/preferences", resource=Resource.SHOPPER, name="preferences_change", json=body
        )
        preferences: Preferences = load_answer(_PREFERENCES, payload, "preferences")
        return preferences

    def clear_preferences(self, identity: CallerIdentity) -> None:
        """DELETE /preferences (idempotent)."""
        send(
            self.http,
            identity,
            "DELETE",
            "/preferences",
            resource=Resource.SHOPPER,
            name="preferences_change",
            expect_body=False,
        )

    def favorite_items(self, identity: CallerIdentity) -> tuple[str, ...]:
        """GET /favorite-items: the shopper's favorite products, in the order stored."""
        payload = send(self.http, identity, "GET", "/favorite-items", resource=Resource.SHOPPER, name="favorite_items")
        product_ids: tuple[str, ...] = load_answer(_FAVORITE_ITEMS, payload, "favorite items")
        return product_ids

    def save_favorite_items(self, identity: CallerIdentity, product_ids: list[str]) -> tuple[str, ...]:
        """PUT /favorite-items: replaces the list whole (so a retry is harmless); the products stored."""
        payload = send(
            self.http,
            identity,
            "PUT",
            "/favorite-items",
            resource=Resource.SHOPPER,
            name="favorite_items_change",
            json={"product_ids": product_ids},
        )
        stored: tuple[str, ...] = load_answer(_FAVORITE_ITEMS, payload, "favorite items")
        return stored

    def _shared_read(self, identity: CallerIdentity, kind: str, path: str, parse: Callable[[Any], T]) -> T:
        """A read the same for every shopper of a language (gateway/read_cache.py `read_through`)."""
        return self.cache.read_through(
            cache_key(kind, identity.language),
            lambda: parse(send(self.http, identity, "GET", path, resource=Resource.CATALOG, name=kind)),
            ttl=self.ttl,
            stale_ttl=self.stale_ttl,
            what=kind,
        )


def _sorted_items(params: dict[str, Any]) -> list[str]:
    """A query's parameters in a stable order, as parts of a cache key."""
    return [f"{name}={value}" for name, value in sorted(params.items())]

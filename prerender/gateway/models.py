"""What prerender reads from the upstream, validated on the way in (docs/upstream.md).

An answer that does not match becomes UpstreamBadResponse instead of a KeyError deep in a template.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_load, validate

from prerender.gateway.errors import UpstreamBadResponse

# The catalog pages a customer hosts besides the home (`features.catalog`), as named in a routing's `catalog`.
CATALOG_PAGES = ("category", "list", "favorites", "mySpace", "basketPreview")


@dataclass(frozen=True)
class Routing:
    """The supplier's routing configuration for one environment."""

    base_url: str
    planner_path: str | None
    current_menu_path: str | None
    retailer_cart: str | None
    # features.catalog: the catalog home, where finalize leads without a retailer cart.
    catalog_path: str | None = None
    # `catalog`: the paths of the other catalog pages the customer hosts (CATALOG_PAGES), by name.
    catalog_pages: dict[str, str] = field(default_factory=dict)

    def page_url(self, page: str) -> str | None:
        """The URL of one of the customer's catalog pages (`home` or a CATALOG_PAGES name), or None when the
        routing does not name it."""
        path = self.catalog_path if page == "home" else self.catalog_pages.get(page)
        return self.url_of(path) if path else None

    def url_of(self, path: str) -> str | None:
        """`baseUrl` joined with a path of the customer's site, or None: a base that is not an absolute http(s)
        URL (a `javascript:` one must never reach a page), or a `path` that is not a path (a scheme, `//host`)."""
        base = urlsplit(self.base_url.strip())
        if base.scheme not in ("http", "https") or not base.netloc or base.query or base.fragment:
            return None
        if urlsplit(path).scheme or path.startswith("//"):
            return None
        return f"{self.base_url.strip().rstrip('/')}/{path.lstrip('/')}"


@dataclass(frozen=True)
class Supplier:
    """A customer of the service, resolved from its supplier-token."""

    id: str
    name: str
    kind: str
    personalization: bool
    affiliated_supplier_id: str | None
    routing: dict[str, Routing] = field(default_factory=dict)


@dataclass(frozen=True)
class Store:
    """A point of sale: where a basket is priced. `latitude` and `longitude` (WGS 84 degrees) place it for the
    store pickers' "nearest first"; both None when the upstream does not know them."""

    id: str
    name: str
    city: str
    latitude: float | None = None
    longitude: float | None = None


@dataclass(frozen=True)
class Pricing:
    guests: int
    total: Decimal
    price_per_guest: Decimal


@dataclass(frozen=True)
class Recipe:
    """A recipe detail at a store, as the card and the drawer need it."""

    id: str
    title: str
    picture_url: str
    type: str
    difficulty: int | None  # 1 to 3; None for a value outside the contract (the recipe shows no difficulty)
    total_time: int
    guests: int
    available: bool | None
    promoted: bool
    pricing: Pricing | None
    external_id: str | None = None
    description: str = ""
    preparation_time: int = 0
    cooking_time: int = 0
    ingredients: tuple[dict[str, Any], ...] = ()
    steps: tuple[dict[str, Any], ...] = ()
    # What the recipe page shows as its tags: its type's label, its diets, its themes (docs/upstream.md).
    tags: tuple[str, ...] = ()
    # Pictures of its ingredients' products, in the recipe's order, at most 4: a card may show them.
    ingredient_pictures: tuple[str, ...] = ()


class LenientSchema(Schema):
    """An upstream answer's schema: fields it does not know are ignored (the upstream may add some)."""

    class Meta:
        unknown = EXCLUDE


class RoutingSchema(LenientSchema):
    baseUrl = fields.String(required=True)
    features = fields.Dict(load_default=dict)
    planner = fields.Dict(load_default=dict)
    retailerCart = fields.String(load_default=None, allow_none=True)
    catalog = fields.Dict(load_default=dict)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Routing:
        pages = {
            name: path for name, path in data["catalog"].items() if name in CATALOG_PAGES and isinstance(path, str)
        }
        return Routing(
            base_url=data["baseUrl"],
            planner_path=data["features"].get("planner"),
            current_menu_path=data["planner"].get("current"),
            retailer_cart=data["retailerCart"],
            catalog_path=data["features"].get("catalog") if isinstance(data["features"].get("catalog"), str) else None,
            catalog_pages=pages,
        )


class SupplierSchema(LenientSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["retailer", "publisher"]))
    personalization = fields.Boolean(required=True)
    affiliated_supplier_id = fields.String(load_default=None, allow_none=True)
    routing = fields.Dict(keys=fields.String(), values=fields.Nested(RoutingSchema), load_default=dict)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Supplier:
        return Supplier(**data)


class PricingSchema(LenientSchema):
    guests = fields.Integer(required=True)
    total = fields.Decimal(required=True)
    price_per_guest = fields.Decimal(required=True)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Pricing:
        return Pricing(**data)


class DifficultyField(fields.Field[int | None]):
    """A recipe's difficulty, 1 to 3 (as a number or in digits, as an integer field reads them), leniently: another
    value (4, 0, 2.5, "x", null) is None, so that one recipe whose difficulty the contract does not know still
    shows, without it, rather than failing its card, its drawer, and every page of recipes it is listed on."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        number = _whole_number(value)
        return number if number is not None and 1 <= number <= 3 else None


def _whole_number(value: Any) -> int | None:
    """An integer, a float without a fraction, or ASCII digits, as a number; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    return None


class RecipeSchema(LenientSchema):
    id = fields.String(required=True)
    external_id = fields.String(load_default=None, allow_none=True)
    title = fields.String(required=True)
    description = fields.String(load_default="", allow_none=True)
    picture_url = fields.String(required=True)
    type = fields.String(required=True)
    difficulty = DifficultyField(required=True, allow_none=True)
    total_time = fields.Integer(required=True)
    preparation_time = fields.Integer(load_default=0)
    cooking_time = fields.Integer(load_default=0)
    guests = fields.Integer(required=True)
    available = fields.Boolean(load_default=None, allow_none=True)
    promoted = fields.Boolean(load_default=False, allow_none=True)
    pricing = fields.Nested(PricingSchema, load_default=None, allow_none=True)
    ingredients = fields.List(fields.Dict(), load_default=list)
    steps = fields.List(fields.Dict(), load_default=list)
    tags = fields.List(fields.String(), load_default=list)
    ingredient_pictures = fields.List(fields.String(), load_default=list)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Recipe:
        data["description"] = data["description"] or ""
        data["promoted"] = bool(data["promoted"])
        data["ingredients"] = tuple(data["ingredients"])
        data["steps"] = tuple(data["steps"])
        data["tags"] = tuple(data["tags"])
        data["ingredient_pictures"] = tuple(data["ingredient_pictures"])
        return Recipe(**data)


class CoordinateField(fields.Field[float | None]):
    """A degree of latitude or longitude within `limit`, leniently: anything else (missing, null, a string, a
    boolean, out of range, not finite) is None, never a bad answer (a store is still a store without a place)."""

    def __init__(self, limit: float, **kwargs: Any) -> None:
        super().__init__(load_default=None, allow_none=True, **kwargs)
        self.limit = limit

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        number = float(value)
        return number if math.isfinite(number) and -self.limit <= number <= self.limit else None


class StoreSchema(LenientSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    city = fields.String(load_default="", allow_none=True)
    latitude = CoordinateField(90)
    longitude = CoordinateField(180)

    @post_load
    def make(self, data: dict[str, Any], **_: Any) -> Store:
        latitude, longitude = data["latitude"], data["longitude"]
        if latitude is None or longitude is None:  # half a place is no place
            latitude = longitude = None
        return Store(id=data["id"], name=data["name"], city=data["city"] or "", latitude=latitude, longitude=longitude)


_SUPPLIER = SupplierSchema()
_STORE = StoreSchema()
_RECIPE = RecipeSchema()


def parse_supplier(payload: Any) -> Supplier:
    """Validate /suppliers/me."""
    supplier: Supplier = load_answer(_SUPPLIER, payload, "supplier")
    return supplier


def parse_stores(items: list[Any]) -> tuple[Store, ...]:
    """Validate the items of /stores."""
    return tuple(load_answer(_STORE, item, "store") for item in items)


def parse_recipe(payload: Any) -> Recipe:
    """Validate one recipe detail."""
    recipe: Recipe = load_answer(_RECIPE, payload, "recipe")
    return recipe


def load_answer(schema: Schema, payload: Any, what: str) -> Any:
    """An upstream object validated by `schema`, or UpstreamBadResponse naming `what`."""
    if not isinstance(payload, dict):
        raise UpstreamBadResponse(f"{what}: expected an object")
    try:
        return schema.load(payload)
    except ValidationError as error:
        raise UpstreamBadResponse(f"{what}: {error.messages}") from error


def data_list(payload: Any, what: str) -> list[Any]:
    """The `data` array of a list answer."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        raise UpstreamBadResponse(f"{what}: expected {{data: [...]}}")
    items: list[Any] = payload["data"]
    return items

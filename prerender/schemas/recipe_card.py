"""Query strings and bodies of the recipe-card routes (GET recipe-card, POST recipe-card/multiple)."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, pre_load, validate, validates_schema

from prerender.schemas.fields import (
    Identifier,
    Integer,
    JsonIdList,
    OptionalStoreId,
    ProductId,
    no_control_characters,
)
from prerender.schemas.limits import (
    MAX_CONTEXTS,
    MAX_CURRENT_PRODUCT_IDS,
    MAX_KEYWORD_LENGTH,
    MAX_POSITION,
    MAX_SERVES,
    MAX_SURROUNDING_PRODUCT_IDS,
)
from prerender.schemas.variants import accepted_variants

ORIENTATIONS = ("vertical", "horizontal")


# The integer options, for a query string (strict=False: digits) or a JSON body (strict=True: JSON integers
# only), with the same allowed values (prerender/schemas/fields.py).
def _display_variant(version: str, *, strict: bool, **kwargs: Any) -> Integer:
    allowed = accepted_variants(version)
    return Integer(strict=strict, validate=validate.OneOf(allowed, error=f"Must be one of {allowed}."), **kwargs)


def _serves(*, strict: bool, **kwargs: Any) -> Integer:
    return Integer(strict=strict, validate=validate.Range(1, MAX_SERVES), **kwargs)


def _orientation(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(ORIENTATIONS), **kwargs)


def _above_fold(**kwargs: Any) -> fields.Boolean:
    return fields.Boolean(
        metadata={
            "description": "true: the page shows these cards in its first viewport; the first card's picture is "
            "fetched at once with fetchpriority=high, the others lazily (default false: every picture lazy)."
        },
        **kwargs,
    )


class _CardQuery(Schema):
    """Shared query of the single card. Unknown parameters (such as the removed `profiling`) are ignored."""

    class Meta:
        unknown = EXCLUDE

    surrounding_products_ids = JsonIdList(min_items=1, max_items=MAX_SURROUNDING_PRODUCT_IDS)
    current_products_ids = JsonIdList(min_items=0, max_items=MAX_CURRENT_PRODUCT_IDS, load_default=list)
    recipe_id = Identifier()
    store_id = OptionalStoreId(load_default=None)
    orientation = _orientation(load_default="vertical")
    serves = _serves(strict=False, load_default=None)
    above_fold = _above_fold(load_default=False)

    @validates_schema
    def needs_a_selector(self, data: dict[str, Any], **_: Any) -> None:
        if "recipe_id" not in data and "surrounding_products_ids" not in data:
            message = "Send recipe_id or surrounding_products_ids."
            raise ValidationError({"recipe_id": [message], "surrounding_products_ids": [message]})


class CardQueryV1(_CardQuery):
    display_variant = _display_variant("v1", strict=False, load_default=1)


class CardQueryV2(_CardQuery):
    display_variant = _display_variant("v2", strict=False, load_default=1)


class _ContextSchema(Schema):
    class Meta:
        unknown = RAISE

    productIds = fields.List(
        ProductId(),
        required=True,
        validate=validate.Length(equal=2, error="Must hold exactly 2 product ids."),
        metadata={"description": "The 2 product ids around the card: strings (a whole number is read as its digits)."},
    )
    position = Integer(strict=True, required=True, validate=validate.Range(-MAX_POSITION, MAX_POSITION))


class _MultipleOptions(Schema):
    """The parameters of the multiple route that may be in the query or in the body (docs/decisions.md); the
    integer ones are declared by the query and the body schemas below, each with its own strictness."""

    class Meta:
        unknown = EXCLUDE

    store_id = OptionalStoreId()
    orientation = _orientation()
    above_fold = _above_fold()


class _MultipleQuery(_MultipleOptions):
    serves = _serves(strict=False)


class MultipleQueryV1(_MultipleQuery):
    display_variant = _display_variant("v1", strict=False)


class MultipleQueryV2(_MultipleQuery):
    display_variant = _display_variant("v2", strict=False)


# The multiple route's suggestion filters (body only).
FILTERS = ("keyword", "categoryId")


class _MultipleBody(_MultipleOptions):
    """The multiple route's body. An option that is null is the option left out (what a customer's serializer
    writes for a value it does not have), as a blank query parameter is (prerender/web/parsing.py)."""

    orientation = _orientation(allow_none=True)
    above_fold = _above_fold(allow_none=True)
    serves = _serves(strict=True, allow_none=True)
    contexts = fields.List(
        fields.Nested(_ContextSchema),
        required=True,
        validate=validate.Length(1, MAX_CONTEXTS, error=f"Must hold 1 to {MAX_CONTEXTS} contexts."),
    )
    categoryId = Identifier(
        load_default=None, allow_none=True, metadata={"description": "A category; empty or blank: no filter."}
    )
    keyword = fields.String(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(1, MAX_KEYWORD_LENGTH), no_control_characters()],
        metadata={"description": "A search term; empty or blank: no filter."},
    )

    @pre_load
    def blank_filters_filter_nothing(self, data: Any, **_: Any) -> Any:
        """`"keyword": ""` (or spaces) and `"categoryId": ""` are what a customer's form sends for no filter:
        the same as null or absent, not a 400."""
        if isinstance(data, dict):
            blank = [name for name in FILTERS if isinstance(data.get(name), str) and not data[name].strip()]
            if blank:
                data = {**data, **dict.fromkeys(blank)}
        return data

    @validates_schema
    def positions_are_unique(self, data: dict[str, Any], **_: Any) -> None:
        positions = [context["position"] for context in data.get("contexts", [])]
        if len(positions) != len(set(positions)):
            raise ValidationError({"contexts": ["Every context needs its own position."]})


class MultipleBodyV1(_MultipleBody):
    display_variant = _display_variant("v1", strict=True, allow_none=True)


class MultipleBodyV2(_MultipleBody):
    display_variant = _display_variant("v2", strict=True, allow_none=True)


# One instance per schema and API version, shared by every request: building a marshmallow schema
# deep-copies its fields, which costs more than parsing a query (and parsed queries are remembered per
# schema instance, prerender/web/parsing.py).
CARD_QUERIES: dict[str, Schema] = {"v1": CardQueryV1(), "v2": CardQueryV2()}
MULTIPLE_QUERIES: dict[str, Schema] = {"v1": MultipleQueryV1(), "v2": MultipleQueryV2()}
MULTIPLE_BODIES: dict[str, Schema] = {"v1": MultipleBodyV1(), "v2": MultipleBodyV2()}

# The multiple route's options that may be in the query or the body, and their defaults.
MULTIPLE_OPTION_DEFAULTS: dict[str, Any] = {
    "store_id": None,
    "display_variant": 1,
    "orientation": "vertical",
    "serves": None,
    "above_fold": False,
}

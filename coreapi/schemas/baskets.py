"""Baskets: the arguments of the basket routes, the basket and its changes, the confirmed baskets."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_dump, post_load, validate, validates

from coreapi.schemas.common import PaginationArgs
from coreapi.schemas.fields import Id, Money, PictureUrl, PublicId, RequiredStoreField, StoreField, UtcDateTime
from coreapi.schemas.recipes import MAX_SERVES
from coreapi.services import cart_waits, public_ids
from coreapi.services.identity import MAX_ID_LENGTH
from plumbing.fields import JsonNumber

# Packages of one product in one line, and in the retailer cart.
MAX_LINE_QUANTITY = 99
MAX_CART_QUANTITY = 9999
MAX_CART_LINES = 500
MAX_TOTAL = Decimal("99999999.99")
MAX_REPORTED_AT = 1e13
MAX_BROWSER_ID = 64
# The shopper's choices sent with a recipe: at most one per ingredient of a recipe.
MAX_RECIPE_LINES = 100


class BasketArgs(Schema):
    """``store_id`` is required on every basket route but ``GET /basket`` and the merge."""

    class Meta:
        unknown = EXCLUDE

    store = RequiredStoreField(data_key="store_id")


class ShowArgs(Schema):
    """``GET /basket``: without ``store_id`` (or with an empty one), the basket at its own store."""

    class Meta:
        unknown = EXCLUDE

    store = StoreField(data_key="store_id", load_default=None)


def guests_field() -> fields.Integer:
    return fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=MAX_SERVES))


class ChosenLineSchema(Schema):
    """One ingredient's line as the shopper chose it: its product, and its packages (absent: as many as the
    recipe needs for the guests; 0: the ingredient is left out)."""

    class Meta:
        unknown = EXCLUDE

    ingredient_id = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    product_id = Id(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    quantity = fields.Integer(load_default=None, strict=True, validate=validate.Range(min=0, max=MAX_LINE_QUANTITY))


class AddRecipeArgs(BasketArgs):
    recipe_id = Id(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    guests = guests_field()
    lines = fields.List(
        fields.Nested(ChosenLineSchema), load_default=None, validate=validate.Length(max=MAX_RECIPE_LINES)
    )

    @validates("lines")
    def one_line_per_ingredient(self, lines: list[dict[str, Any]] | None, **kwargs: Any) -> None:
        ids = [line.get("ingredient_id") for line in lines or ()]
        if len(ids) != len(set(ids)):
            raise ValidationError("At most one line per ingredient.")


class GuestsArgs(BasketArgs):
    guests = guests_field()


class IngredientLineArgs(BasketArgs):
    product_id = Id(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=MAX_LINE_QUANTITY))
    # The guests of the entry the line makes when the recipe is not in the basket (absent: the recipe's own).
    guests = fields.Integer(load_default=None, strict=True, validate=validate.Range(min=1, max=MAX_SERVES))


class CartLineSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    id = Id(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=MAX_CART_QUANTITY))


class CartReportSchema(Schema):
    """Which browser reported the cart, and when by its clock (coreapi.services.cart_waits)."""

    class Meta:
        unknown = EXCLUDE

    by = Id(required=True, validate=validate.Length(min=1, max=MAX_BROWSER_ID))
    # Milliseconds since the epoch (up to the year 2286).
    at = JsonNumber(required=True, allow_nan=False, validate=validate.Range(min=0, max=MAX_REPORTED_AT))

    @post_load
    def report(self, data: dict[str, Any], **kwargs: Any) -> cart_waits.Report:
        return cart_waits.Report(by=data["by"], at=data["at"])


class ReconcileArgs(BasketArgs):
    cart = fields.List(fields.Nested(CartLineSchema), required=True, validate=validate.Length(max=MAX_CART_LINES))
    # Absent: the cart is followed whenever its reconcile arrives.
    reported = fields.Nested(CartReportSchema, load_default=None, allow_none=False)


class ConfirmArgs(BasketArgs):
    total = fields.Decimal(
        required=True,
        places=2,
        rounding=ROUND_HALF_UP,
        allow_nan=False,
        validate=validate.Range(min=0, max=MAX_TOTAL),
    )
    order_id = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    # The paid retailer cart, when the caller has it: the basket follows it before it is confirmed.
    cart = fields.List(
        fields.Nested(CartLineSchema), load_default=None, allow_none=True, validate=validate.Length(max=MAX_CART_LINES)
    )


class MergeArgs(Schema):
    """``GET /basket/merge-authless-basket``: without ``store_id`` (or with an empty one), the merged basket stays
    where the shopper was shopping (``baskets.merge_authless``)."""

    class Meta:
        unknown = EXCLUDE

    authless_id = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))
    store = StoreField(data_key="store_id", load_default=None)


class TransferArgs(BasketArgs):
    """``POST /basket/transfers``: the store the basket is handed over at."""


class RedeemArgs(BasketArgs):
    """``POST /basket/transfers/redeem``: a transfer's token (any text: one that is no token is unknown)."""

    token = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))


class ProductQuantitySchema(Schema):
    id = Id()
    quantity = fields.Integer()


class BasketLineSchema(Schema):
    ingredient_id = Id()
    product_id = Id()
    quantity = fields.Integer()
    name = fields.String()
    brand = fields.String(allow_none=True)
    size = fields.String()
    picture_url = PictureUrl("media.product_picture", "product_id", attribute="product_id")
    unit_price = Money(allow_none=True)
    price = Money(allow_none=True)
    available = fields.Boolean()


class BasketEntrySchema(Schema):
    recipe_id = Id()
    guests = fields.Integer()
    title = fields.String()
    picture_url = PictureUrl("media.recipe_picture", "recipe_id", attribute="recipe_id")
    lines = fields.List(fields.Nested(BasketLineSchema))


class BasketSchema(Schema):
    store_id = Id()
    recipes = fields.List(fields.Nested(BasketEntrySchema))
    products = fields.List(fields.Nested(ProductQuantitySchema))
    recipe_count = fields.Integer()
    total = Money()
    currency = fields.String()


class BasketUpdateSchema(Schema):
    basket = fields.Nested(BasketSchema)
    changes = fields.List(fields.Nested(ProductQuantitySchema))


class ConfirmationSchema(Schema):
    """``{"confirmed": true, "basket_id"}`` or ``{"confirmed": false, "reason"}``."""

    confirmed = fields.Boolean()
    basket_id = PublicId(public_ids.BASKET, allow_none=True)
    reason = fields.String(allow_none=True)

    @post_dump
    def drop_absent(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {key: value for key, value in data.items() if value is not None}


class TransferSchema(Schema):
    """A new transfer: ``expires_at`` in ISO 8601, UTC."""

    token = fields.String()
    expires_at = fields.DateTime()
    store_id = Id()
    target_supplier_id = Id()
    recipe_count = fields.Integer()


class TransferSourceSchema(Schema):
    source_supplier_id = Id()
    source_supplier_name = fields.String()
    recipe_count = fields.Integer()


class RedeemedSchema(BasketUpdateSchema):
    """A redeemed transfer: the basket write's ``{"basket", "changes"}``, and where it came from."""

    transfer = fields.Nested(TransferSourceSchema)


# --- the shopper's history -----------------------------------------------------------------

MAX_HISTORY_PER_PAGE = 50


class HistoryArgs(PaginationArgs):
    per_page = fields.Integer(load_default=10, validate=validate.Range(min=1, max=MAX_HISTORY_PER_PAGE))


class PastRecipeSchema(Schema):
    recipe_id = Id()
    title = fields.String()
    picture_url = PictureUrl("media.recipe_picture", "recipe_id", attribute="recipe_id")
    guests = fields.Integer()
    total_time = fields.Integer()
    difficulty = fields.Integer()
    price = Money()


class ConfirmedBasketSchema(Schema):
    id = PublicId(public_ids.BASKET)
    confirmed_at = UtcDateTime()
    store_id = Id()
    total = Money()
    currency = fields.String()
    recipe_count = fields.Integer()
    recipes = fields.List(fields.Nested(PastRecipeSchema))

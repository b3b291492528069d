"""Bodies and queries of the browser's JSON routes (docs/browser-api.md): basket, likes, events, details."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates
from webargs.fields import DelimitedList

from plumbing.fields import JsonNumber
from prerender.schemas.fields import (
    ID_MESSAGE,
    ID_PATTERN,
    IDENTITY_MESSAGE,
    IDENTITY_PATTERN,
    Amount,
    FullMatch,
    Identifier,
    Integer,
    OptionalStoreId,
    no_control_characters,
)
from prerender.schemas.limits import (
    MAX_CART_LINES,
    MAX_CART_QUANTITY,
    MAX_EVENT_PATH,
    MAX_EVENT_PROPS,
    MAX_EVENTS,
    MAX_LIKE_IDS,
    MAX_LINE_QUANTITY,
    MAX_ORDER_ID,
    MAX_RECIPE_LINES,
    MAX_REPORTED_AT,
    MAX_SERVES,
)

EVENT_NAME = re.compile(r"^[a-z][a-z.-]{0,63}$")
# A basket transfer token as the upstream issues them: URL-safe base64 (docs/upstream.md, "Basket transfers").
TRANSFER_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,128}$")


class _Body(Schema):
    class Meta:
        unknown = RAISE


def _guests(*, strict: bool, **kwargs: Any) -> Integer:
    """Guests in a JSON body (strict: JSON integers only) or a query string (digits), prerender/schemas/fields.py."""
    return Integer(strict=strict, validate=validate.Range(1, MAX_SERVES), **kwargs)


class RecipePath(Schema):
    """`/<recipe_id>` of the basket and likes routes."""

    recipe_id = Identifier(required=True)


class IngredientPath(RecipePath):
    """`/recipes/<recipe_id>/ingredients/<ingredient_id>` of the basket."""

    ingredient_id = Identifier(required=True)


class StoreQuery(Schema):
    """`?store_id=` of the basket reads and deletes."""

    class Meta:
        unknown = EXCLUDE

    store_id: fields.String = OptionalStoreId(load_default=None)


class RequiredStoreQuery(StoreQuery):
    store_id = Identifier(required=True)


class DetailsQuery(Schema):
    """`GET /recipe-details`."""

    class Meta:
        unknown = EXCLUDE

    recipe_id = Identifier(required=True)
    store_id = OptionalStoreId(load_default=None)
    guests = _guests(strict=False, load_default=None)


class ChosenLine(_Body):
    """One ingredient of a recipe being added, as the shopper chose it in the drawer: its product, and its
    packages (absent: what the recipe needs for the guests; 0: the ingredient is left out)."""

    ingredient_id = Identifier(required=True)
    product_id = Identifier(required=True)
    quantity = Integer(strict=True, validate=validate.Range(0, MAX_LINE_QUANTITY))


class AddRecipeBody(_Body):
    recipe_id = Identifier(required=True)
    guests = _guests(strict=True, required=True)
    store_id = Identifier(required=True)
    # The shopper's choices, applied in the same upstream write ("add all" is one request: docs/decisions.md).
    lines = fields.List(fields.Nested(ChosenLine), validate=validate.Length(max=MAX_RECIPE_LINES))

    @validates("lines")
    def one_line_per_ingredient(self, lines: list[dict[str, Any]], **kwargs: Any) -> None:
        ids = [line.get("ingredient_id") for line in lines]
        if len(ids) != len(set(ids)):
            raise ValidationError("At most one line per ingredient.")


class RescaleBody(_Body):
    guests = _guests(strict=True, required=True)
    store_id = Identifier(required=True)


class IngredientLineBody(_Body):
    product_id = Identifier(required=True)
    quantity = Integer(strict=True, required=True, validate=validate.Range(0, MAX_LINE_QUANTITY))
    store_id = Identifier(required=True)
    # Left out of what is forwarded when absent (an upstream that predates it keeps its behaviour).
    guests = _guests(
        strict=True,
        metadata={
            "description": "The guests of the entry the line makes when the recipe is not in the basket "
            "(absent: the recipe's own); an entry the basket holds keeps its guests."
        },
    )


class _CartLine(_Body):
    id = Identifier(required=True)
    quantity = Integer(strict=True, required=True, validate=validate.Range(0, MAX_CART_QUANTITY))


class _CartReport(_Body):
    by = Identifier(
        required=True,
        metadata={"description": "An id the reporting browser keeps for all its tabs (the SDK: a random UUID)."},
    )
    at = JsonNumber(
        required=True,
        allow_nan=False,
        validate=validate.Range(0, MAX_REPORTED_AT),
        metadata={"description": "When that browser reported the cart: milliseconds since the epoch, its clock."},
    )


class ReconcileBody(_Body):
    store_id = Identifier(required=True)
    cart = fields.List(fields.Nested(_CartLine), required=True, validate=validate.Length(max=MAX_CART_LINES))
    # Left out of what is forwarded when absent (the cart is then followed as it comes).
    reported = fields.Nested(
        _CartReport,
        metadata={
            "description": "Which browser reported the cart, and when: a cart older than another cart of the same "
            "browser (two tabs' reconciles crossed on their way) leaves to the cart, for 60 s, what that one showed "
            "of what the basket awaited."
        },
    )


class ConfirmBody(_Body):
    store_id = Identifier(required=True)
    total = Amount(required=True, validate=validate.Range(0, 100_000))
    order_id = fields.String(load_default=None, allow_none=True, validate=validate.Length(1, MAX_ORDER_ID))


class HandlePaymentBody(_Body):
    """`POST /{v}/baskets/handle-payment`: the paid retailer cart (its products and total) at a store."""

    store_id = Identifier(required=True)
    totalPrice = Amount(  # the integrations' name (docs/browser-api.md)
        required=True, validate=validate.Range(0, 100_000), metadata={"description": "What the user paid."}
    )
    products = fields.List(
        fields.Nested(_CartLine),
        required=True,
        validate=validate.Length(max=MAX_CART_LINES),
        metadata={"description": "The retailer cart as paid: `{id, quantity}` of every product."},
    )


class HandlePaymentQuery(Schema):
    """`?order-id=`: one confirmation per order."""

    class Meta:
        unknown = EXCLUDE

    order_id = fields.String(
        data_key="order-id",
        load_default=None,
        validate=validate.Length(1, MAX_ORDER_ID),
        metadata={"description": "The retailer's order: a repeated call for it confirms nothing more."},
    )


class TransferBody(_Body):
    """`POST /{v}/basket/transfers`: the store of the affiliated retailer the basket goes to."""

    store_id = Identifier(required=True, metadata={"description": "One of the affiliated retailer's stores."})


class RedeemTransferBody(_Body):
    """`POST /{v}/basket/transfers/redeem`: the token of the transfer link, at the retailer page's store."""

    token = fields.String(
        required=True,
        validate=FullMatch(TRANSFER_TOKEN, error="Must be the transfer link's token (URL-safe characters)."),
        metadata={"description": "`transferred_basket_token` of the transfer link."},
    )
    store_id = Identifier(required=True)


class MergeAuthlessQuery(Schema):
    """`?authless_id=&store_id=` of the merge at the end of the auth flow; without a store (a login before one was
    chosen) the basket stays where the shopper was shopping (docs/upstream.md)."""

    class Meta:
        unknown = EXCLUDE

    authless_id = fields.String(required=True, validate=FullMatch(IDENTITY_PATTERN, error=IDENTITY_MESSAGE))
    store_id = OptionalStoreId(load_default=None)


class LikesQuery(Schema):
    """`?recipe_ids=12,13`: the like state of up to 100 recipes."""

    class Meta:
        unknown = EXCLUDE

    recipe_ids = DelimitedList(
        fields.String(validate=FullMatch(ID_PATTERN, error=ID_MESSAGE)),
        required=True,
        validate=validate.Length(1, MAX_LIKE_IDS),
    )


class _Event(_Body):
    # The SDK's id of the event (a UUID), passed upstream, which stores each id once per supplier: a batch sent
    # again after a timeout is not counted twice. Optional: older SDKs send none.
    id = fields.String(
        validate=FullMatch(ID_PATTERN, error=ID_MESSAGE),
        metadata={"description": "The event's id, the same on every retry (a UUID); stored once."},
    )
    name = fields.String(required=True, validate=FullMatch(EVENT_NAME, error="Must be like 'recipe.show'."))
    path = fields.String(load_default="/", validate=[validate.Length(1, MAX_EVENT_PATH), no_control_characters()])
    props = fields.Dict(
        keys=fields.String(validate=validate.Length(1, 64)),
        load_default=dict,
        metadata={
            "maxProperties": MAX_EVENT_PROPS,
            "additionalProperties": {
                "anyOf": [{"type": "string", "maxLength": 256}, {"type": "number"}, {"type": "boolean"}]
            },
        },
    )

    @validates("props")
    def flat_props(self, props: dict[str, Any], **_: Any) -> None:
        if len(props) > MAX_EVENT_PROPS:
            raise ValidationError(f"At most {MAX_EVENT_PROPS} properties.")
        for value in props.values():
            if (isinstance(value, str) and len(value) > 256) or not isinstance(value, (str, int, float, bool)):
                raise ValidationError("Values are strings (up to 256 characters), numbers or booleans.")


class EventsBody(Schema):
    """`POST /events`; `headers` carries the mandatory headers when navigator.sendBeacon sent it."""

    class Meta:
        unknown = RAISE

    events = fields.List(fields.Nested(_Event), required=True, validate=validate.Length(1, MAX_EVENTS))
    headers = fields.Dict(keys=fields.String(), values=fields.String(), load_default=None)

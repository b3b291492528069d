"""The JSON bodies the service answers, as marshmallow schemas: routes name them in their declarations
(prerender/web/contract.py) and the OpenAPI document publishes them."""

from __future__ import annotations

from marshmallow import EXCLUDE, INCLUDE, Schema, fields, validate


class AnswerSchema(Schema):
    """The schema of an answer this service forwards from the upstream (prerender/web/forwarding.py validates the
    upstream's answer with it): members it does not declare are let through, not refused, since the upstream may
    add some before this service documents them."""

    class Meta:
        unknown = EXCLUDE


class ProblemSchema(Schema):
    """RFC 9457 problem details: the body of every 4xx and 5xx. Open, as RFC 9457 makes it: a refusal the
    upstream explains carries its own members through (prerender/web/errors.py), and a client ignores those it
    does not know."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, metadata={"example": "about:blank"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "The bad fields, keyed by where they were: headers, query, json."},
    )
    reason = fields.String(
        metadata={
            "description": "Why a 409 or 410 refused, for a client to branch on: a basket transfer's `empty`, "
            "`no-affiliate`, `expired` or `redeemed`; a menu's `menu-full`, `already-in-menu`, "
            "`unavailable-at-store`, `no-store` or `empty` (docs/browser-api.md). Other values may come."
        }
    )
    expected_total = fields.Float(
        metadata={"description": "A payment refused for its total: the basket's total the retailer's cart should have."}
    )


class CardHtmlSchema(Schema):
    """One card of the multiple route."""

    html = fields.String(required=True, metadata={"description": 'The card fragment, or "" where no recipe fits.'})
    position = fields.Integer(required=True)


class CardsSchema(Schema):
    """The multiple route's answer, sorted by position."""

    data = fields.List(fields.Nested(CardHtmlSchema), required=True)


class StylesSchema(Schema):
    """A styles route's answer."""

    links = fields.List(fields.String(), required=True)
    html = fields.String(required=True, metadata={"description": "The <link rel=stylesheet> tags."})


class BasketLineSchema(AnswerSchema):
    """One ingredient's line of a basket recipe: the product chosen for it, in packages."""

    ingredient_id = fields.String()
    product_id = fields.String()
    quantity = fields.Integer()
    name = fields.String(allow_none=True)
    brand = fields.String(allow_none=True)
    size = fields.String(allow_none=True)
    picture_url = fields.String(allow_none=True)
    unit_price = fields.Float(allow_none=True, metadata={"description": "null where the store does not sell it."})
    price = fields.Float(allow_none=True)
    available = fields.Boolean()


class BasketRecipeSchema(AnswerSchema):
    """A recipe of the basket, for its guests, with one line per ingredient kept."""

    recipe_id = fields.String()
    guests = fields.Integer()
    title = fields.String(allow_none=True)
    picture_url = fields.String(allow_none=True)
    lines = fields.List(fields.Nested(BasketLineSchema))


class BasketProductSchema(AnswerSchema):
    """A product of the basket, summed over its recipes: what the retailer cart holds for it."""

    id = fields.String()
    quantity = fields.Integer()


class BasketSchema(AnswerSchema):
    """The upstream basket (docs/upstream.md, "Baskets")."""

    store_id = fields.String(allow_none=True)
    recipes = fields.List(fields.Nested(BasketRecipeSchema))
    products = fields.List(fields.Nested(BasketProductSchema))
    recipe_count = fields.Integer()
    total = fields.Float()
    currency = fields.String()
    unknown_store = fields.Boolean(
        metadata={"description": "Only on `GET /basket`: true when the service does not know the store (empty basket)."}
    )


class CartChangeSchema(AnswerSchema):
    """What the retailer cart must do for one product."""

    id = fields.String(required=True)
    quantity = fields.Integer(required=True, metadata={"description": "Negative to remove."})


class BasketChangeSchema(AnswerSchema):
    """A basket write's answer: the basket and what the retailer cart must do."""

    basket = fields.Nested(BasketSchema, required=True)
    changes = fields.List(fields.Nested(CartChangeSchema), required=True)


class TransferLinkSchema(Schema):
    """A basket transfer to the affiliated retailer: where to send the browser."""

    url = fields.String(
        required=True,
        metadata={
            "description": "The retailer's page with `affiliate`, `transferred_basket_token` (one use) and "
            "`point_of_sale_ext_id`."
        },
    )
    expires_at = fields.String(required=True, metadata={"description": "When the link stops working (ISO 8601)."})
    store_id = fields.String(required=True)
    retailer = fields.String(required=True, metadata={"description": "The affiliated retailer's name."})


class TransferStoreSchema(Schema):
    """A store of the affiliated retailer, as the drawer's picker lists it."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    city = fields.String(required=True)
    latitude = fields.Float(
        metadata={
            "description": "With `longitude`, when the upstream knows where the store is (the picker lists "
            "the nearest first once the page gave the shopper's location)."
        }
    )
    longitude = fields.Float()


class TransferStoresSchema(Schema):
    """The stores a publisher's reader may pick for the transfer (the drawer reads them when it opens)."""

    retailer = fields.String(required=True, metadata={"description": "The affiliated retailer's name."})
    stores = fields.List(fields.Nested(TransferStoreSchema), required=True)


class UpstreamTransferSchema(AnswerSchema):
    """The upstream's one-time token of a basket transfer (`POST /basket/transfers`, docs/upstream.md), which
    `POST /{v}/basket/transfers` turns into the retailer's link."""

    token = fields.String(required=True, validate=validate.Length(min=1))
    expires_at = fields.String(required=True)


class UpstreamTransferOriginSchema(AnswerSchema):
    """Where a redeemed transfer came from, as the upstream says it (the route counts and words it itself)."""

    source_supplier_name = fields.String(allow_none=True)
    recipe_count = fields.Raw(allow_none=True)


class UpstreamRedeemedSchema(BasketChangeSchema):
    """The upstream's redemption of a transfer (`POST /basket/transfers/redeem`): the basket, the cart's changes
    and where it came from."""

    transfer = fields.Nested(UpstreamTransferOriginSchema, required=True)


class TransferSourceSchema(Schema):
    source_supplier_name = fields.String(required=True)
    recipe_count = fields.Integer(required=True)
    product_count = fields.Integer(
        required=True, metadata={"description": "The products the cart gets (`changes` that add), counted once each."}
    )
    message = fields.String(
        required=True,
        metadata={
            "description": "What arrived, for the shopper, in the `language-id`'s texts (`BASKET_TRANSFER.RECEIVED`): "
            '"Votre panier de Le Magazine Cuisine\\u00a0: 1 recette, 6 produits".'
        },
    )


class TransferReceivedSchema(BasketChangeSchema):
    """A transferred basket joined the shopper's: the basket, the cart's changes and where it came from."""

    transfer = fields.Nested(TransferSourceSchema, required=True)


class ConfirmationSchema(AnswerSchema):
    """The upstream's confirmation of a paid basket (docs/upstream.md): confirmed once per order id."""

    confirmed = fields.Boolean(required=True)
    basket_id = fields.String(metadata={"description": "The confirmed basket, when `confirmed`."})
    reason = fields.String(metadata={"description": "Why not, when not `confirmed`: `empty` or `already-confirmed`."})


class PaymentOutcomeSchema(Schema):
    """What a payment did to the basket (`POST /{v}/baskets/handle-payment`)."""

    outcome = fields.String(
        required=True,
        validate=validate.OneOf(("confirmed", "already_confirmed", "empty")),
        metadata={
            "description": "`confirmed`: the basket, as the paid cart has it, is confirmed (the shopper starts an "
            "empty one); `already_confirmed`: this order-id was, nothing changed; `empty`: no product to confirm."
        },
    )
    confirmed = fields.Boolean(required=True)
    basket_id = fields.String(metadata={"description": "The confirmed basket, when `confirmed`."})


class LikedSchema(Schema):
    """The liked recipes among those asked."""

    data = fields.List(fields.String(), required=True)


class StoredSchema(Schema):
    """How many events were stored."""

    stored = fields.Integer(required=True)


class ReleaseSchema(Schema):
    """The release a process runs, as it read it at start (a later release installed in place changes nothing of it
    until the reload)."""

    package = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The version of the installed `prerender` distribution; null when not installed."},
    )
    static_build = fields.String(
        required=True,
        metadata={"description": "The build id of the static files served, the segment of their URLs: /static/<id>/."},
    )


class HealthSchema(Schema):
    """Liveness and readiness answers."""

    status = fields.String(required=True, metadata={"description": "`ok` (liveness); `ready` or `degraded`."})
    checks = fields.Dict(keys=fields.String(), values=fields.String())
    upstream = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={
            "description": "This worker's shared circuit breaker of each upstream resource, the one that refuses every "
            "retailer's calls: closed, half-open or open (a retailer's own breaker, which refuses its calls alone, "
            "is not shown)."
        },
    )
    version = fields.Nested(ReleaseSchema, required=True)


class OriginCheckSchema(Schema):
    """Whether a page of the asking origin may read the service's answers (GET /origin-check)."""

    origin = fields.String(
        required=True, allow_none=True, metadata={"description": "The request's `Origin`, null without one."}
    )
    allowed = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether CORS lets a page of that origin read the answers of the browser routes: every "
            "localhost origin, and those of PRERENDER_CORS_ALLOWED_ORIGINS."
        },
    )


class AuthlessTokenSchema(Schema):
    """A new authless identity (POST /{v}/generate-authless-token)."""

    authless_id = fields.String(required=True, metadata={"description": "43 URL-safe characters, unguessable."})


class PreferencesSchema(Schema):
    """A shopper's preferences (`enabled` false: their supplier disabled personalization)."""

    diets = fields.List(fields.String(), required=True)
    avoided_ingredients = fields.List(fields.String(), required=True)
    missing_equipment = fields.List(fields.String(), required=True)
    guests = fields.Integer(allow_none=True, required=True)
    enabled = fields.Boolean(required=True)


class FavoriteItemsSchema(Schema):
    """A shopper's favorite products, as stored: the known ones of the list sent, in its order."""

    product_ids = fields.List(fields.String(), required=True)

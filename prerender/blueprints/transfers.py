"""POST /{v}/basket/transfers and /redeem: a recipe publisher's basket handed to its affiliated retailer through a
one-time, expiring link (docs/browser-api.md, "Basket transfers")."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from plumbing.problems import Problem
from prerender.gateway import Supplier, baskets, get_upstream
from prerender.rendering.cta import affiliated_retailer, store_data, transfer_url
from prerender.rendering.i18n import translator_for
from prerender.rendering.transfer import added_products, received_message
from prerender.schemas.actions import RedeemTransferBody, TransferBody
from prerender.schemas.headers import WriteHeaders
from prerender.schemas.responses import (
    TransferLinkSchema,
    TransferReceivedSchema,
    TransferStoresSchema,
    UpstreamRedeemedSchema,
    UpstreamTransferSchema,
)
from prerender.web.context import RequestContext, basket_owner
from prerender.web.contract import (
    NOT_MODIFIED,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    json_answer,
    problem,
)
from prerender.web.forwarding import forward
from prerender.web.http_caching import CachePolicy, cache_policy

bp = Blueprint("transfers", __name__, url_prefix="/basket/transfers")

WRITE_HEADERS = WriteHeaders()
# The store list: one answer per publisher and language, which a browser keeps for 5 minutes (a page's drawers,
# and the next pages for a while, read it once), then revalidates with its ETag (a 304 rather than 500 KB again).
STORES_MAX_AGE = 300
STORES_CACHING = CachePolicy(public=False, max_age=STORES_MAX_AGE, vary=("Authorization", "language-id"))


def no_affiliate() -> Problem:
    """The refusal of a supplier that has no affiliated retailer with a site in this environment."""
    detail = "This site has no affiliated retailer to hand the basket to."
    return Problem(409, detail, extensions={"reason": "no-affiliate"})


def transfer_parties(ctx: RequestContext) -> tuple[Supplier, Supplier]:
    """The publisher and its affiliated retailer with a site in this environment, else the 409 `no-affiliate`."""
    retailer = affiliated_retailer(ctx)
    if ctx.supplier is None or retailer is None:
        raise no_affiliate()
    return ctx.supplier, retailer


@bp.get("/stores")
@cache_policy(STORES_CACHING)
@declare(
    callers=Callers.BROWSER,
    summary="The affiliated retailer's stores, for the drawer's store picker",
    answers={
        200: json_answer(
            TransferStoresSchema,
            f"Every store of the retailer (`private, max-age={STORES_MAX_AGE}`, an ETag; `Vary: Authorization, "
            "language-id`).",
        ),
        304: NOT_MODIFIED,
        403: problem("No known supplier."),
        409: problem(
            "The publisher has no affiliated retailer with a site for this environment (`reason` `no-affiliate`)."
        ),
        **UPSTREAM_FAILURES,
    },
)
def transfer_stores() -> Response:
    """The stores of the publisher's affiliated retailer, read when the drawer opens rather than carried by
    every CTA fragment (a retailer's 3 000 stores are 500 KB)."""
    ctx = basket_owner()
    _, retailer = transfer_parties(ctx)
    stores = get_upstream().stores.every_store(ctx.upstream)
    return jsonify(retailer=retailer.name, stores=[store_data(store) for store in stores])


@bp.post("")
@declare(
    callers=Callers.BROWSER,
    summary="Hand the publisher's basket to its affiliated retailer",
    headers=WRITE_HEADERS,
    body=TransferBody(),
    body_example={"store_id": "1001"},
    answers={
        201: json_answer(TransferLinkSchema, "The retailer's page to send the browser to (a one-time link)."),
        **PASSED_THROUGH,
        403: problem("No known supplier, or refused by the recipe service."),
        409: problem(
            "Nothing to hand over: the basket is empty (`reason` `empty`), or the publisher has no affiliated "
            "retailer with a site for this environment (`reason` `no-affiliate`)."
        ),
        **UPSTREAM_FAILURES,
    },
)
def create_transfer(body: dict[str, Any], headers: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A one-time link to the affiliated retailer's site, where the basket (at the chosen store) lands in the cart."""
    ctx = basket_owner()
    environment = current_app.config["ENVIRONMENT"]
    publisher, retailer = transfer_parties(ctx)
    answer = forward(
        baskets.CREATE_TRANSFER,
        UpstreamTransferSchema,
        ctx.upstream,
        body={"store_id": body["store_id"]},
        key=headers["idempotency_key"],
    )
    url = transfer_url(publisher, retailer, environment=environment, token=answer["token"], store_id=body["store_id"])
    return {
        "url": url,
        "expires_at": answer["expires_at"],
        "store_id": body["store_id"],
        "retailer": retailer.name,
    }, 201


@bp.post("/redeem")
@declare(
    callers=Callers.BROWSER,
    summary="Receive a basket transferred from an affiliated publisher",
    headers=WRITE_HEADERS,
    body=RedeemTransferBody(),
    body_example={"token": "Zk3v0hN9bq1mX2pL8sT4uW6yA0cE2gI4kM6oQ8sU0wY", "store_id": "1001"},
    answers={
        200: json_answer(TransferReceivedSchema, "The basket with the transferred recipes, and the cart's changes."),
        **PASSED_THROUGH,
        404: problem("No such transfer for this retailer."),
        410: problem("The link expired or was already used (`reason` `expired` or `redeemed`)."),
        **UPSTREAM_FAILURES,
    },
)
def redeem_transfer(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """The transferred recipes join the shopper's basket at the store; the cart follows through the SDK, which
    tells the shopper what arrived (`transfer.message`)."""
    ctx = basket_owner()
    answer = forward(
        baskets.REDEEM_TRANSFER, UpstreamRedeemedSchema, ctx.upstream, body=body, key=headers["idempotency_key"]
    )
    basket, changes, transfer = answer["basket"], answer["changes"], answer["transfer"]
    count = transfer.get("recipe_count")
    recipes = count if isinstance(count, int) and not isinstance(count, bool) else 0
    products = added_products(changes)
    source = str(transfer.get("source_supplier_name") or "")
    return {
        "basket": basket,
        "changes": changes,
        "transfer": {
            "source_supplier_name": source,
            "recipe_count": recipes,
            "product_count": products,
            "message": received_message(translator_for(ctx), source, recipes=recipes, products=products),
        },
    }

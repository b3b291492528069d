"""The shopper's basket at the upstream (docs/upstream.md, "Baskets"), never cached (it is the shopper's): its
reads (BasketGateway), and the writes the browser routes forward (prerender/blueprints/basket.py, payments.py),
each answering the basket and what the retailer cart must do (the confirmation: its outcome). PUT and DELETE are
retried after connection errors; POST and PATCH only with an idempotency key."""

from __future__ import annotations

import logging
from typing import Any

from prerender.gateway.calls import CallerIdentity, expect_object, names_unknown_store, send
from prerender.gateway.errors import UpstreamStatusError
from prerender.gateway.forwarding import UpstreamCall
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp

log = logging.getLogger(__name__)

# The basket of a shopper at no store, as the browser's GET /basket answers it without one.
EMPTY_BASKET: dict[str, Any] = {
    "store_id": None,
    "recipes": [],
    "products": [],
    "recipe_count": 0,
    "total": 0,
    "currency": "EUR",
}


def _write(method: str, path: str) -> UpstreamCall:
    return UpstreamCall.write(method, f"/basket{path}", Resource.BASKETS, name="basket_change")


# A recipe with the shopper's choices, or re-scaled when already there.
ADD_RECIPE = _write("POST", "/recipes")
RESCALE_RECIPE = _write("PATCH", "/recipes/{recipe_id}")
# The recipe and its products leave.
REMOVE_RECIPE = _write("DELETE", "/recipes/{recipe_id}")
# One ingredient's line: another product, a quantity, 0 to leave it out.
SET_INGREDIENT = _write("PUT", "/recipes/{recipe_id}/ingredients/{ingredient_id}")
# What the retailer cart removed or reduced leaves the basket.
RECONCILE = _write("POST", "/reconcile")
# The shopper paid: confirmed once per order id (with the paid `cart`, the basket follows it first, in the same
# upstream transaction).
CONFIRM = _write("POST", "/confirm")
# End of the auth flow: the logged-out visitor's basket joins the user's (a GET that writes, as integrations call
# it: retried only with a key).
MERGE_AUTHLESS = UpstreamCall(
    "GET", "/basket/merge-authless-basket", Resource.BASKETS, name="basket_change", idempotent=False
)
# A recipe publisher's basket handed to its affiliated retailer: a one-time token, then its redemption by the
# retailer's shopper (the basket, the cart's changes and where it came from).
CREATE_TRANSFER = _write("POST", "/transfers")
REDEEM_TRANSFER = _write("POST", "/transfers/redeem")


class BasketGateway:
    """GET /basket: the shopper's basket at a store, or wherever it is open."""

    def __init__(self, *, http: UpstreamHttp) -> None:
        self.http = http

    def at_store(self, identity: CallerIdentity, *, store_id: str) -> dict[str, Any]:
        """The identity's basket at a store (moved there when it was priced at another). At a store the upstream
        does not know: the empty basket marked `unknown_store`, not an error (the specification's "upstream 400 for
        an unknown point of sale during basket lookup"), for the browser's basket and the basket preview alike."""
        try:
            return self._read(identity, {"store_id": store_id})
        except UpstreamStatusError as error:
            if not names_unknown_store(error):
                raise
            log.warning("basket asked at an unknown store %s, answered empty", store_id)
            return {**EMPTY_BASKET, "store_id": store_id, "unknown_store": True}

    def where_open(self, identity: CallerIdentity) -> dict[str, Any]:
        """The identity's open basket at its own store, without moving it (`store_id` null when there is none):
        what a publisher's page, which knows no store, asks to show whether a recipe is in the basket."""
        return self._read(identity, None)

    def _read(self, identity: CallerIdentity, params: dict[str, Any] | None) -> dict[str, Any]:
        payload = send(self.http, identity, "GET", "/basket", resource=Resource.BASKETS, name="basket", params=params)
        return expect_object(payload, "basket")

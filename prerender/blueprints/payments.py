"""POST /{v}/baskets/handle-payment: the retailer cart was paid; the basket is confirmed as that cart has it
(docs/browser-api.md, "Payment"). Called by the shopper's browser (the SDK's `handlePayment`) or by the customer's
server (its order system, with the specification's headers and its supplier-token), as the merges are."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from prerender.gateway import UpstreamBadResponse, UpstreamStatusError, baskets
from prerender.schemas.actions import HandlePaymentBody, HandlePaymentQuery
from prerender.schemas.headers import WriteHeaders
from prerender.schemas.responses import ConfirmationSchema, PaymentOutcomeSchema
from prerender.web.context import basket_owner, check_server_vouches, current_context
from prerender.web.contract import PASSED_THROUGH, UPSTREAM_FAILURES, Callers, declare, json_answer, problem
from prerender.web.forwarding import forward

bp = Blueprint("payments", __name__, url_prefix="/baskets")

# The upstream's refusal reasons, as this route names its outcomes.
OUTCOMES = {"already-confirmed": "already_confirmed", "empty": "empty"}
# The upstream's names of this route's body fields (`handle_payment` writes its body in them).
FIELDS_AS_SENT = {"total": "totalPrice", "cart": "products"}


@bp.post("/handle-payment")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="Confirm the basket with the paid retailer cart",
    headers=WriteHeaders(),
    query=HandlePaymentQuery(),
    body=HandlePaymentBody(),
    body_example={"store_id": "1001", "totalPrice": 42.5, "products": [{"id": "100001", "quantity": 2}]},
    answers={
        200: json_answer(PaymentOutcomeSchema, "What happened: `outcome` (`confirmed`, `already_confirmed`, `empty`)."),
        **PASSED_THROUGH,
        401: problem("Neither a browser's credential nor, from a server, a valid supplier-token."),
        403: problem("Refused by the recipe service."),
        409: problem(
            "The total paid does not cover the basket's once it follows the cart (`expected_total`), or the same "
            "request is being confirmed."
        ),
        **UPSTREAM_FAILURES,
    },
)
def handle_payment(body: dict[str, Any], query: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """The basket follows the paid cart, then is confirmed once per order-id (never an empty one)."""
    ctx = current_context()
    if ctx.shopper is None:  # the customer's server
        check_server_vouches(
            ctx, "Confirming a payment needs your valid supplier-token, or the shopper's browser credential."
        )
    upstream_body: dict[str, Any] = {
        "store_id": body["store_id"],
        "total": body["totalPrice"],
        "cart": body["products"],
    }
    if query["order_id"] is not None:
        upstream_body["order_id"] = query["order_id"]
    try:
        answer = forward(
            baskets.CONFIRM,
            ConfirmationSchema,
            basket_owner().upstream,
            body=upstream_body,
            key=headers["idempotency_key"],
        )
    except UpstreamStatusError as error:
        name_fields_as_sent(error.problem)
        raise
    if answer.get("confirmed"):
        return {"outcome": "confirmed", "confirmed": True, "basket_id": str(answer.get("basket_id", ""))}
    reason = str(answer.get("reason"))
    if reason not in OUTCOMES:
        raise UpstreamBadResponse(f"POST /basket/confirm: unknown refusal {reason!r}")
    return {"outcome": OUTCOMES[reason], "confirmed": False}


def name_fields_as_sent(problem: dict[str, Any]) -> None:
    """The upstream's refusal names its own fields (`total`, `cart.0.quantity`): name the ones this route was sent
    (`totalPrice`, `products.0.quantity`), so the caller can find what to mend."""
    errors = problem.get("errors")
    if not isinstance(errors, dict) or not isinstance(errors.get("json"), dict):
        return
    renamed: dict[str, Any] = {}
    for path, messages in errors["json"].items():
        head, dot, rest = str(path).partition(".")
        renamed[FIELDS_AS_SENT.get(head, head) + dot + rest] = messages
    errors["json"] = renamed

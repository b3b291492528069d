"""GET or POST /{v}/generate-authless-token: an authless identity for a logged-out visitor (docs/security.md).

GET is the method the maker's integrations call; POST stays for callers that treat issuing as a write.
Either way nothing is stored: the identity is random, and the answer is never cached."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from prerender.schemas.responses import AuthlessTokenSchema
from prerender.web.context import current_context
from prerender.web.contract import UPSTREAM_FAILURES, declare, json_answer, problem
from prerender.web.credentials import new_authless_id
from prerender.web.errors import SupplierTokenProblem, SupplierUncheckedProblem

bp = Blueprint("authless", __name__)


@bp.route("/generate-authless-token", methods=["GET", "POST"])
@declare(
    summary="A new authless identity",
    identity=False,
    answers={
        200: json_answer(AuthlessTokenSchema, "The visitor's authless id: send it as `authless-id` from now on."),
        401: problem("Missing or invalid supplier-token: identities are issued to suppliers only."),
        **UPSTREAM_FAILURES,
    },
)
def generate_authless_token() -> Response:
    """An unguessable authless id for a logged-out visitor, issued to the supplier's server only."""
    token = (request.headers.get("supplier-token") or "").strip()
    if not token:
        raise SupplierTokenProblem("Send your supplier-token: authless identities are issued to suppliers only.")
    context = current_context()
    if context.supplier is None:
        # The header guard looked the token up (prerender/web/context.py); a lookup the recipe service did not
        # answer is its failure, said with a Retry-After, not the caller's unknown token.
        if context.supplier_lookup_failed:
            raise SupplierUncheckedProblem()
        raise SupplierTokenProblem("Unknown supplier-token.")
    response = jsonify(authless_id=new_authless_id())
    response.cache_control.no_store = True  # one visitor's identity: never kept by any cache
    return response

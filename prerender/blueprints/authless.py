"""GET or POST /{v}/generate-authless-token: an authless identity for a logged-out visitor (docs/security.md).

GET is the method the maker's integrations call; POST stays for callers that treat issuing as a write.
Either way nothing is stored: the identity is random, and the answer is never cached."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from prerender.gateway import get_upstream
from prerender.schemas.responses import AuthlessTokenSchema
from prerender.web.context import current_context
from prerender.web.contract import UPSTREAM_FAILURES, declare, json_answer, problem
from prerender.web.credentials import new_authless_id
from prerender.web.errors import SupplierTokenProblem

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
    if (
        current_context().supplier is None
        and get_upstream().suppliers.by_token(token, request_id=current_context().request_id) is None
    ):
        raise SupplierTokenProblem("Unknown supplier-token.")
    response = jsonify(authless_id=new_authless_id())
    response.cache_control.no_store = True  # one visitor's identity: never kept by any cache
    return response

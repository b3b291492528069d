"""Proof that a request may move what an authless visitor owns to a logged-in user (the merges of baskets and
menus at the end of the auth flow, docs/security.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, jsonify
from werkzeug.exceptions import Forbidden

from prerender.gateway import CallerIdentity
from prerender.web.context import RequestContext, check_server_vouches, current_context
from prerender.web.credentials import InvalidCredential, get_signer
from prerender.web.errors import CredentialProblem

# The upstream call of one merge: the caller's identity, the route's query, its idempotency key -> its answer.
MergeCall = Callable[[CallerIdentity, dict[str, Any], str | None], dict[str, Any]]

# The answers a merge route declares besides its own (prerender/blueprints/basket.py, menu.py).
MERGE_REFUSALS = {
    401: "No proof of both identities: from a server, a valid supplier-token; from a browser, the user's "
    "credential and the authless visitor's (`authless-credential`).",
    403: "Not a logged-in user, or refused by the recipe service.",
}


def merge_response(query: dict[str, Any], headers: dict[str, Any], merge: MergeCall) -> Response:
    """A merge route's answer: refused without proof of both identities, else the upstream's answer, never
    cached. A HEAD never gets here: a merge route is declared `head=False` (prerender/web/routing.py), so
    routing refuses it (tests/unit/test_routing.py checks every merge rule)."""
    ctx = current_context()
    check_merge_proof(ctx, query["authless_id"], headers["authless_credential"])
    params = {name: value for name, value in query.items() if value is not None}
    response = jsonify(merge(ctx.upstream, params, headers["idempotency_key"]))
    response.cache_control.no_store = True
    return response


def check_merge_proof(ctx: RequestContext, authless_id: str, authless_credential: str | None) -> None:
    """Merging moves what a visitor owns (a basket, a menu) to a user: it needs proof of both identities
    (docs/security.md).
    The customer's server vouches for both with its supplier-token (it issued the authless id and logged the
    user in); a browser shows the user's credential and the authless visitor's, both of this supplier."""
    if ctx.shopper is None:  # the customer's server, with the specification's headers
        check_server_vouches(ctx, "Merging needs your valid supplier-token, or a browser's two credentials.")
        if not ctx.is_connected:
            raise Forbidden("Merging needs the logged-in user (authorization: user_id <USER_ID>).")
        return
    if not ctx.is_connected:
        raise Forbidden("Merging needs the logged-in user's credential.")
    if authless_credential is None:
        raise CredentialProblem(
            "Merging from a browser needs the logged-out visitor's credential too: send it as authless-credential."
        )
    try:
        visitor = get_signer().verify(authless_credential)
    except InvalidCredential as error:
        raise CredentialProblem(f"Invalid authless-credential: {error}.", invalid=True) from error
    if visitor.authless_id is None or visitor.supplier_id != ctx.shopper.supplier_id:
        raise CredentialProblem("The authless-credential is not a logged-out visitor's of this supplier.", invalid=True)
    if visitor.authless_id != authless_id:
        raise Forbidden("authless_id is not the visitor of the authless-credential.")

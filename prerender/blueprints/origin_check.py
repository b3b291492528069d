"""GET /origin-check: whether this service lets a page of the asking origin read its answers (the CORS policy,
prerender/web/cors_policy.py).

Outside the API versions and open to every origin (`Access-Control-Allow-Origin: *`), needing no header, so that a
page whose origin is refused can still read why: the SDK asks it after a call failed without an answer while the
browser was online (sdk/origin-check.js), and an integrator can ask it for any origin
(`curl -H 'Origin: https://www.shop.example' https://fragments.example/origin-check`). It tells nothing the answers'
CORS headers do not: whether an origin is allowed.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from flask.typing import ResponseReturnValue

from plumbing.log_text import clipped
from prerender.schemas.responses import OriginCheckSchema
from prerender.web.contract import declare, json_answer
from prerender.web.cors_policy import origin_allowed
from prerender.web.http_caching import NO_STORE, cache_policy

bp = Blueprint("origin_check", __name__)


@bp.get("/origin-check")
@cache_policy(NO_STORE)  # the answer follows the request's Origin and the deployment's settings
@declare(
    summary="Whether a page of the asking origin may read this service's answers (CORS)",
    answers={200: json_answer(OriginCheckSchema)},
)
def origin_check() -> ResponseReturnValue:
    """Whether the request's Origin may read the answers of the browser routes."""
    origin = request.headers.get("Origin")
    allowed = origin is not None and origin_allowed(origin)
    response = jsonify({"origin": clipped(origin, 200) if origin else None, "allowed": allowed})
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response

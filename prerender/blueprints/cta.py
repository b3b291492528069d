"""GET /{v}/no-supplier-add-to-cart-cta: a recipe publisher's add-to-cart button (README.md, "a recipe publisher's
add-to-cart button")."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.cta import build_cta, render_cta
from prerender.schemas.cta import CtaQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("cta", __name__)


@bp.get("/no-supplier-add-to-cart-cta")
@declare(
    summary="A recipe publisher's add-to-cart CTA",
    query=CtaQuery(),
    answers={
        200: html(
            "The <svc-no-supplier-add-to-cart-cta> fragment, its `in-basket` state the user's; an empty body when "
            "no recipe has that external id or id, or the upstream failed."
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid headers, or no `recipe_id`."),
    },
)
def get_cta(query: dict[str, Any]) -> Response:
    """The CTA of the publisher's recipe (its own id), in or out of the user's basket."""
    ctx = current_context()

    def render() -> str:
        cta = build_cta(ctx, query["recipe_id"], query["guests"])
        return render_cta(cta, ctx) if cta is not None else ""

    return fragment_response(render)  # the browser acts for the shopper the publisher's server named

"""GET /v2/svc-window-bootstrap: a fragment that loads only the browser SDK (v2 only)."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from prerender.rendering.assets import get_assets
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html
from prerender.web.http_caching import PRIVATE, SAME_FOR_EVERYONE, set_policy
from prerender.web.shopper import shopper_element

bp = Blueprint("bootstrap", __name__)

SDK_MODULES = ("sdk/svc.js",)


@bp.get("/svc-window-bootstrap")
@declare(
    summary="The browser SDK alone",
    answers={
        200: html(
            "The SDK's module script tag, and, when a valid supplier-token names the shopper, the shopper's "
            "credential element (then private)."
        ),
        304: NOT_MODIFIED,
    },
)
def window_bootstrap() -> Response:
    """The SDK module and the shopper's credential, for pages with custom or public recipe cards."""
    element = shopper_element(current_context())
    set_policy(PRIVATE if element else SAME_FOR_EVERYONE)  # without a shopper, the same for everyone
    fragment = render_template("scripts.html", module_urls=get_assets().module_urls(SDK_MODULES))
    return Response(element + fragment, mimetype="text/html")

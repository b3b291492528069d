"""GET /v2/svc-window-bootstrap: a fragment that loads only the browser SDK (v2 only)."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from prerender.rendering.assets import get_assets
from prerender.rendering.i18n import translator_for
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html
from prerender.web.degraded import marked_if_degraded
from prerender.web.http_caching import PRIVATE, PUBLIC, set_policy
from prerender.web.shopper import shopper_element

bp = Blueprint("bootstrap", __name__)

SDK_MODULES = ("sdk/svc.js",)


@bp.get("/svc-window-bootstrap")
@declare(
    summary="The browser SDK alone",
    answers={
        200: html(
            "The SDK's module script tag (after a JSON data block of the retailer's versions of the SDK's texts when "
            "its language-id has some), and, when a valid supplier-token names the shopper, the shopper's "
            "credential element (then private). When the token could not be checked (the upstream failed), the "
            "script tag alone, marked X-Degraded and kept by no cache."
        ),
        304: NOT_MODIFIED,
    },
)
def window_bootstrap() -> Response:
    """The SDK module and the shopper's credential, for pages with custom or public recipe cards."""
    ctx = current_context()
    element = shopper_element(ctx)
    # Without a shopper, the same for everyone with the same token and language-id (a retailer's versions of the
    # SDK's texts come with its language-id: templates/scripts.html).
    set_policy(PRIVATE if element else PUBLIC)
    fragment = render_template("scripts.html", module_urls=get_assets().module_urls(SDK_MODULES), t=translator_for(ctx))
    response = Response(element + fragment, mimetype="text/html")
    # The token could not be checked (the upstream failed): the shopper's credential is missing, and the copy
    # without it must reach no cache as the token's answer; or it was checked against the supplier's last good
    # copy (prerender/web/degraded.py).
    return marked_if_degraded(response)

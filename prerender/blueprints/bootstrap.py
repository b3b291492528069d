"""GET /v2/svc-window-bootstrap: a fragment that loads only the browser SDK (v2 only)."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from prerender.rendering.assets import get_assets
from prerender.web.contract import NOT_MODIFIED, declare, html
from prerender.web.http_caching import CachePolicy, cache_policy

bp = Blueprint("bootstrap", __name__)

SDK_MODULES = ("sdk/svc.js",)


@bp.get("/svc-window-bootstrap")
@cache_policy(CachePolicy(public=True, vary=()))
@declare(summary="The browser SDK alone", answers={200: html("The SDK's module script tag."), 304: NOT_MODIFIED})
def window_bootstrap() -> Response:
    """The SDK module alone, for pages with custom recipe cards."""
    fragment = render_template("scripts.html", module_urls=get_assets().module_urls(SDK_MODULES))
    return Response(fragment, mimetype="text/html")

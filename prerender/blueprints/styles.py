"""GET /{v}/styles and /{v}/styles/<component>: stylesheet links as {links, html} (spec: styles routes)."""
from __future__ import annotations

from flask import Blueprint, Response, jsonify
from markupsafe import escape
from werkzeug.exceptions import NotFound

from prerender.rendering.assets import get_assets
from prerender.web.http_caching import CachePolicy, cache_policy
from prerender.rendering.stylesheets import STYLE_BUNDLES, all_sheets

bp = Blueprint("styles", __name__)

# The links are the same for everyone: they only change with a deploy (new build id).
SAME_FOR_EVERYONE = CachePolicy(public=True, vary=())


def styles_response(sheets: tuple[str, ...]) -> Response:
    assets = get_assets()
    links = [assets.url(f"css/{name}.css") for name in sheets]
    html = "".join(f'<link rel="stylesheet" href="{escape(link)}">' for link in links)
    return jsonify(links=links, html=html)


@bp.get("/styles")
@cache_policy(SAME_FOR_EVERYONE)
def all_styles() -> Response:
    """Every stylesheet of every component, the design system first."""
    return styles_response(all_sheets())


@bp.get("/styles/<path:component>")
@cache_policy(SAME_FOR_EVERYONE)
def component_styles(component: str) -> Response:
    """The stylesheets of one component and its sub-components (the table in prerender/rendering/stylesheets.py)."""
    if component not in STYLE_BUNDLES:
        raise NotFound(f"No styles route for {component!r}.")
    return styles_response(STYLE_BUNDLES[component])

"""GET /{v}/styles and /{v}/styles/<component>: stylesheet links as {links, html}."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify
from markupsafe import escape
from marshmallow import Schema, fields
from werkzeug.exceptions import NotFound

from prerender.rendering.assets import get_assets
from prerender.rendering.stylesheets import STYLE_BUNDLES, all_sheets
from prerender.schemas.responses import StylesSchema
from prerender.web.contract import NOT_MODIFIED, declare, json_answer, problem
from prerender.web.http_caching import SAME_FOR_EVERYONE, cache_policy

bp = Blueprint("styles", __name__)


class ComponentPath(Schema):
    """`/styles/<component>`: a route of the table in prerender/rendering/stylesheets.py (another is a 404,
    a URL naming no styles route, not a malformed request)."""

    component = fields.String(required=True, metadata={"enum": sorted(STYLE_BUNDLES)})


def styles_response(sheets: tuple[str, ...]) -> Response:
    """The {links, html} answer of some sheets."""
    assets = get_assets()
    links = [assets.url(f"css/{name}.css") for name in sheets]
    html = "".join(f'<link rel="stylesheet" href="{escape(link)}">' for link in links)
    return jsonify(links=links, html=html)


@bp.get("/styles")
@cache_policy(SAME_FOR_EVERYONE)  # the links change with a deploy only (a new build id)
@declare(summary="Every stylesheet", answers={200: json_answer(StylesSchema), 304: NOT_MODIFIED})
def all_styles() -> Response:
    """Every stylesheet of every component, the design system first."""
    return styles_response(all_sheets())


@bp.get("/styles/<path:component>")
@cache_policy(SAME_FOR_EVERYONE)
@declare(
    summary="The stylesheets of one component",
    path=ComponentPath(),
    answers={200: json_answer(StylesSchema), 304: NOT_MODIFIED, 404: problem("No such component.")},
)
def component_styles(component: str) -> Response:
    """The stylesheets of one component and its sub-components."""
    if component not in STYLE_BUNDLES:
        raise NotFound(f"No styles route for {component!r}.")
    return styles_response(STYLE_BUNDLES[component])

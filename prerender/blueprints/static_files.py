"""GET /static/<build_id>/<path>: stylesheets and ES modules, immutable for a year."""

from __future__ import annotations

from flask import Blueprint, Response, send_from_directory
from werkzeug.exceptions import NotFound

from prerender.rendering.assets import get_assets

bp = Blueprint("static_files", __name__)

ONE_YEAR = 365 * 24 * 3600


@bp.get("/static/<build_id>/<path:name>")
def static_file(build_id: str, name: str) -> Response:
    """A file of the current build; another build id is a 404 (its content may differ)."""
    assets = get_assets()
    if build_id != assets.build_id or name not in assets.files:
        raise NotFound("No such static file in this build.")
    response = send_from_directory(assets.root, name, max_age=ONE_YEAR, conditional=True)
    response.cache_control.immutable = True
    response.cache_control.public = True
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response

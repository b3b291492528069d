"""GET /openapi.json: the OpenAPI document of every route (prerender/web/openapi.py). Outside the API versions,
no headers needed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from prerender.web.openapi import build_spec

bp = Blueprint("openapi", __name__)


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """The document, built once per application from its url_map and schemas."""
    document: dict[str, Any] | None = current_app.extensions.get("prerender.openapi")
    if document is None:
        document = current_app.extensions["prerender.openapi"] = build_spec(current_app)
    response = jsonify(document)
    response.cache_control.public = True
    response.cache_control.max_age = 300
    return response

"""GET /openapi.json: the OpenAPI document of every route (prerender/web/openapi.py). Outside the API versions,
no headers needed.

The document is built and serialized once per process, with its strong ETag: a request costs a copy of the
bytes, and a client that has them revalidates to a 304 (prerender/web/http_caching.py). Re-serializing it on
every request cost tens of milliseconds of CPU, which clients pipelining it turned into a worker's whole time.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Flask, Response, current_app
from werkzeug.http import generate_etag

from prerender.rendering.release import PACKAGE_VERSION
from prerender.web.http_caching import SAME_FOR_EVERYONE, cache_policy
from prerender.web.openapi import build_spec

bp = Blueprint("openapi", __name__)

EXTENSION_KEY = "prerender.openapi"

# The document's info.version for a checkout run without installing it, which has no release (/healthz: null).
UNINSTALLED_VERSION = "unreleased"


@dataclass(frozen=True)
class SerializedDocument:
    """The document as served, and its ETag."""

    body: bytes
    etag: str


def serialized_document(app: Flask) -> SerializedDocument:
    """The app's document, built from its url_map and schemas and serialized on first use; its `info.version` is the
    release this process runs, as /healthz says it."""
    document: SerializedDocument | None = app.extensions.get(EXTENSION_KEY)
    if document is None:
        spec = build_spec(app, version=PACKAGE_VERSION or UNINSTALLED_VERSION)
        body = (app.json.dumps(spec, separators=(",", ":")) + "\n").encode()  # as jsonify writes it
        document = app.extensions[EXTENSION_KEY] = SerializedDocument(body=body, etag=generate_etag(body))
    return document


@bp.get("/openapi.json")
@cache_policy(SAME_FOR_EVERYONE)
def openapi_document() -> Response:
    """The document, built once per application; 304 on a matching If-None-Match."""
    document = serialized_document(current_app)
    response = Response(document.body, mimetype="application/json")
    response.set_etag(document.etag)
    return response

"""GET /static/<build_id>/<path>: stylesheets and ES modules, immutable for a year, compressed when the browser
accepts it (the release tree's precompressed siblings, prerender/rendering/assets.py)."""

from __future__ import annotations

from pathlib import PurePosixPath

from flask import Blueprint, Response, request, send_from_directory
from werkzeug.exceptions import NotFound

from prerender.rendering.assets import ENCODINGS, get_assets

bp = Blueprint("static_files", __name__)

ONE_YEAR = 365 * 24 * 3600


@bp.get("/static/<build_id>/<path:name>")
def static_file(build_id: str, name: str) -> Response:
    """A file of the current build; another build id is a 404 (its content may differ)."""
    assets = get_assets()
    if build_id != assets.build_id or name not in assets.files:
        raise NotFound("No such static file in this build.")
    available = assets.tree.encodings.get(name, ())
    coding = chosen_encoding(available)
    if coding is None:
        response = send_from_directory(assets.root, name, max_age=ONE_YEAR, conditional=True)
    else:
        # The sibling's bytes under the file's name (hence its type), with the sibling's own ETag (werkzeug's
        # holds the path and size): a 304 answers for the variant the browser holds.
        response = send_from_directory(
            assets.root,
            name + ENCODINGS[coding],
            download_name=PurePosixPath(name).name,
            max_age=ONE_YEAR,
            conditional=True,
        )
        response.headers["Content-Encoding"] = coding
    if available:
        response.vary.add("Accept-Encoding")
    response.cache_control.immutable = True
    response.cache_control.public = True
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def chosen_encoding(available: tuple[str, ...]) -> str | None:
    """The available Content-Coding the request accepts best (q=0 refuses one; at equal quality the first,
    brotli before gzip), or None for the file as it is."""
    accepted = request.accept_encodings
    best: tuple[float, str] | None = None
    for coding in available:
        quality = accepted[coding]  # `*` included; 0 when not accepted
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, coding)
    return best[1] if best else None

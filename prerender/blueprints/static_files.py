"""GET /static/<build_id>/<path>: stylesheets and ES modules, immutable for a year, compressed when the browser
accepts it (the release tree's precompressed siblings, prerender/rendering/assets.py). Sent from the bytes read when
the process started, with an ETag of those bytes: a later release installed in place changes nothing this process
serves (docs/decisions.md, "A running process never reads a later release's files"); from disk in development.

A path may start with a configuration segment (`/static/<build_id>/~<config>/components/recipe-card.js`,
prerender/rendering/assets.py): the same file, which reads its configuration from its own URL. The older
form, the configuration as a query (`?prefix=acme&api=...`, which pages written by hand may still carry), is
redirected to it, so that the modules it imports are loaded under the same configuration."""

from __future__ import annotations

import io
from pathlib import PurePosixPath

from flask import Blueprint, Response, redirect, request, send_file, send_from_directory, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import NotFound

from prerender.config_checks import valid_prefix
from prerender.rendering.assets import (
    CONFIG_KEYS,
    CONFIG_MARK,
    ENCODINGS,
    AssetManifest,
    config_segment,
    get_assets,
    parse_config_segment,
    valid_api_base,
)

bp = Blueprint("static_files", __name__)

ONE_YEAR = 365 * 24 * 3600


@bp.get("/static/<build_id>/<path:name>")
def static_file(build_id: str, name: str) -> ResponseReturnValue:
    """A file of the current build, under a configuration segment or not; another build id is a 404."""
    assets = get_assets()
    if build_id != assets.build_id:
        raise NotFound("No such static file in this build.")
    if name.startswith(CONFIG_MARK):
        segment, _, name = name.partition("/")
        if parse_config_segment(segment) is None:
            raise NotFound("No such static file in this build.")
    elif legacy := legacy_config():
        if name not in assets.files:
            raise NotFound("No such static file in this build.")
        target = url_for(".static_file", build_id=build_id, name=f"{config_segment(legacy)}/{name}")
        moved = redirect(target, code=308)
        moved.headers["Access-Control-Allow-Origin"] = "*"
        moved.cache_control.public = True
        moved.cache_control.max_age = ONE_YEAR
        return moved
    if name not in assets.files:
        raise NotFound("No such static file in this build.")
    available = assets.tree.encodings.get(name, ())
    coding = chosen_encoding(available)
    # The sibling's bytes under the file's name (hence its type), with the sibling's own ETag: a 304 answers for the
    # variant the browser holds.
    stored = name if coding is None else name + ENCODINGS[coding]
    response = sent(assets, stored, download_name=PurePosixPath(name).name)
    if coding is not None:
        response.headers["Content-Encoding"] = coding
    if available:
        response.vary.add("Accept-Encoding")
    response.cache_control.immutable = True
    response.cache_control.public = True
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def sent(assets: AssetManifest, stored: str, *, download_name: str) -> Response:
    """A file of the tree (or a sibling), as read at start: its bytes, with the ETag of those bytes and the time the
    file had then (conditional: 304, ranges). In development, the file on disk as it is now (werkzeug's ETag of its
    path, size and time)."""
    if assets.from_disk:
        return send_from_directory(assets.root, stored, download_name=download_name, max_age=ONE_YEAR, conditional=True)
    content = assets.tree.contents[stored]
    return send_file(
        io.BytesIO(content.data),
        download_name=download_name,
        etag=content.etag,
        last_modified=content.modified,
        max_age=ONE_YEAR,
        conditional=True,
    )


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


def legacy_config() -> dict[str, str] | None:
    """The module configuration of the older query form (`?prefix=acme&api=...`), when the request has one and
    it is valid; otherwise None, and the query is ignored as before."""
    config = {key: request.args[key] for key in CONFIG_KEYS if request.args.get(key)}
    if config.get("prefix") == "svc":  # the default, which module URLs leave out
        del config["prefix"]
    if not config:
        return None
    if "prefix" in config and not valid_prefix(config["prefix"]):
        return None
    if "api" in config and not valid_api_base(config["api"]):
        return None
    return config

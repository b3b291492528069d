"""Pictures of the catalog, drawn as SVG by coreapi itself."""

import functools
import gzip
import hashlib
from dataclasses import asdict

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from coreapi.drawing import product_picture_svg, recipe_picture_svg
from coreapi.extensions import db
from coreapi.services import pictures
from plumbing.problems import NotFound

bp = Blueprint("media", __name__, url_prefix="/media")


@functools.lru_cache(maxsize=1024)  # more than the seed's pictures (69 recipes, 327 products): each gzipped once
def _encoded(svg: str) -> tuple[bytes, bytes, str]:
    """The picture's bytes, gzipped (level 9, no timestamp: the same bytes every time) and its entity tag."""
    data = svg.encode("utf-8")
    return data, gzip.compress(data, compresslevel=9, mtime=0), hashlib.sha256(data).hexdigest()[:32]


def _svg_response(svg: str) -> ResponseReturnValue:
    """The picture, gzipped for a client that accepts it. Its URL names the recipe or product, not the drawing
    (which follows the catalog's data): a day's cache, then a revalidation answered 304 by its entity tag, one
    per encoding."""
    data, gzipped, tag = _encoded(svg)
    wants_gzip = request.accept_encodings["gzip"] > 0
    response = current_app.response_class(gzipped if wants_gzip else data, mimetype="image/svg+xml")
    if wants_gzip:
        response.content_encoding = "gzip"
    response.vary.add("Accept-Encoding")
    response.cache_control.public = True
    response.cache_control.max_age = current_app.config["MEDIA_MAX_AGE"]
    response.set_etag(f"{tag}-gzip" if wants_gzip else tag)
    return response.make_conditional(request)


@bp.get("/recipes/<int:recipe_id>.svg")
def recipe_picture(recipe_id: int) -> ResponseReturnValue:
    """The picture of a recipe."""
    picture = pictures.recipe_picture(db.session(), recipe_id)
    if picture is None:
        raise NotFound(f"No recipe {recipe_id}.")
    return _svg_response(recipe_picture_svg(**asdict(picture)))


@bp.get("/products/<int:product_id>.svg")
def product_picture(product_id: int) -> ResponseReturnValue:
    """The picture of a product."""
    picture = pictures.product_picture(db.session(), product_id)
    if picture is None:
        raise NotFound(f"No product {product_id}.")
    return _svg_response(product_picture_svg(**asdict(picture)))

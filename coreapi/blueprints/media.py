"""Pictures of the catalog, drawn as SVG by coreapi itself."""

from dataclasses import asdict

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue

from coreapi.drawing import product_picture_svg, recipe_picture_svg
from coreapi.errors import NotFound
from coreapi.extensions import db
from coreapi.services import pictures

bp = Blueprint("media", __name__, url_prefix="/media")


def _svg_response(svg: str) -> ResponseReturnValue:
    response = current_app.response_class(svg, mimetype="image/svg+xml")
    response.cache_control.public = True
    response.cache_control.max_age = current_app.config["MEDIA_MAX_AGE"]
    response.add_etag()
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

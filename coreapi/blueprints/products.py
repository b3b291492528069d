"""The retailer's product catalog."""

from typing import Any

from flask import Blueprint

from coreapi.context import current
from coreapi.extensions import db
from coreapi.schemas.catalog import ProductsArgs, ProductSchema
from coreapi.schemas.common import dump_page
from coreapi.schemas.parsing import use_args
from coreapi.services import catalog

bp = Blueprint("products", __name__, url_prefix="/products")


@bp.get("")
@use_args(ProductsArgs(), location="query")
def index(args: dict[str, Any]) -> dict[str, Any]:
    """A page of products, with their price at ``store_id`` when given."""
    products = catalog.list_products(
        db.session(),
        store=args["store"],
        query=args["q"],
        ids=args["ids"],
        page=args["page"],
        per_page=args["per_page"],
        language=current().language,
    )
    return dump_page(ProductSchema(), products)

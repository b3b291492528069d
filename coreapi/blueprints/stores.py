"""The retailer's stores."""

from typing import Any

from flask import Blueprint

from coreapi.extensions import db
from coreapi.schemas.catalog import StoreSchema
from coreapi.schemas.common import dump_one
from coreapi.services import catalog
from plumbing.problems import NotFound

bp = Blueprint("stores", __name__, url_prefix="/stores")


@bp.get("")
def index() -> dict[str, Any]:
    """Every store."""
    return {"data": StoreSchema(many=True).dump(catalog.list_stores(db.session()))}


@bp.get("/<store_id>")
def detail(store_id: str) -> dict[str, Any]:
    """One store, or 404."""
    store = catalog.find_store(db.session(), store_id, with_coordinates=True)
    if store is None:
        raise NotFound(f"No store {store_id!r}.")
    return dump_one(StoreSchema(), store)

"""Recipe categories."""

from typing import Any

from flask import Blueprint

from coreapi.context import current
from coreapi.extensions import db
from coreapi.schemas.catalog import CategorySchema
from coreapi.services import catalog

bp = Blueprint("categories", __name__, url_prefix="/categories")


@bp.get("")
def index() -> dict[str, Any]:
    """Every category, names in the request's language."""
    categories = catalog.list_categories(db.session(), current().language)
    return {"data": CategorySchema(many=True).dump(categories)}

"""The calling supplier."""

from typing import Any

from flask import Blueprint

from coreapi.context import current_supplier
from coreapi.schemas.catalog import SupplierSchema
from coreapi.schemas.common import dump_one

bp = Blueprint("suppliers", __name__, url_prefix="/suppliers")


@bp.get("/me")
def me() -> dict[str, Any]:
    """The calling supplier: that of the ``Supplier-Token`` header, or the ``Supplier-Id`` of a
    service (``X-Service-Key``); 401 without one."""
    return dump_one(SupplierSchema(), current_supplier())

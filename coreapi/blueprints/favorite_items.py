"""The shopper's favorite products (``coreapi.services.favorite_items``).

They belong to the identity of ``Authorization`` under the calling supplier (both required, as for
baskets). ``PUT`` replaces the whole list: a retry is harmless, so it takes no ``Idempotency-Key``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from coreapi.blueprints import writes
from coreapi.context import current_identity, current_supplier, require_identity, require_supplier
from coreapi.extensions import db
from coreapi.schemas.favorite_items import FavoriteItemsArgs
from coreapi.schemas.parsing import use_args
from coreapi.services import favorite_items

bp = Blueprint("favorite_items", __name__, url_prefix="/favorite-items")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


def _answer(product_ids: list[int]) -> dict[str, Any]:
    return {"product_ids": [str(key) for key in product_ids]}


@bp.get("")
def show() -> dict[str, Any]:
    """The shopper's favorite products, in the order stored (``[]`` when it has none)."""
    return _answer(favorite_items.product_ids(db.session(), current_supplier().id, current_identity()))


@bp.put("")
@use_args(FavoriteItemsArgs(), location="json")
@writes.transactional
def replace(args: dict[str, Any]) -> dict[str, Any]:
    """Replace the shopper's favorite products with the known ones among ``product_ids``."""
    stored = favorite_items.replace(db.session(), current_supplier().id, current_identity(), args["product_ids"])
    return _answer(stored)

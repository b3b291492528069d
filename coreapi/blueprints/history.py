"""The shopper's history: its confirmed baskets (``GET /baskets/history``).

The shopper is the identity of ``Authorization`` under the calling supplier (both required), as for
the basket routes.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from coreapi.context import current, current_identity, current_supplier, require_identity, require_supplier
from coreapi.extensions import db
from coreapi.schemas.baskets import ConfirmedBasketSchema, HistoryArgs
from coreapi.schemas.common import dump_page
from coreapi.schemas.parsing import use_args
from coreapi.services import history
from coreapi.services.baskets import BasketOwner

bp = Blueprint("history", __name__, url_prefix="/baskets")
# Supplier, then identity: 401 before any validation of the arguments.
bp.before_request(require_supplier)
bp.before_request(require_identity)


@bp.get("/history")
@use_args(HistoryArgs(), location="query")
def index(args: dict[str, Any]) -> dict[str, Any]:
    """A page of the shopper's confirmed baskets, the most recently confirmed first."""
    owner = BasketOwner(current_supplier().id, current_identity())
    page = history.confirmed_baskets(
        db.session(), owner, page=args["page"], per_page=args["per_page"], language=current().language
    )
    return dump_page(ConfirmedBasketSchema(), page)

"""The rows of one shopper: a table's ``supplier_id``, ``identity_kind`` and ``identity_id`` (coreapi/models.py)
naming an identity under the supplier it shops with (``BasketOwner``, coreapi/services/baskets.py)."""

from __future__ import annotations

from sqlalchemy import ColumnElement

from coreapi.models import Basket, BasketTransfer, Event, FavoriteItems, IdempotencyKey, Menu, Preferences
from coreapi.services.identity import Identity

# The tables whose rows name their shopper so.
Owned = (
    type[Basket]
    | type[Menu]
    | type[Preferences]
    | type[FavoriteItems]
    | type[BasketTransfer]
    | type[IdempotencyKey]
    | type[Event]
)


def owned_by(model: Owned, supplier_id: int, identity: Identity) -> list[ColumnElement[bool]]:
    """SQL conditions: the row of ``model`` is the shopper's (``identity`` at ``supplier_id``)."""
    return [
        model.supplier_id == supplier_id,
        model.identity_kind == identity.kind.value,
        model.identity_id == identity.value,
    ]

"""Adding a supplier (``flask --app coreapi add-supplier``): a retailer or publisher served from now on.

The operator describes it (``coreapi/schemas/supplier_definition.py``: the seed's row without a token); the token
is made here unless given (``supplier_tokens.new_token``) and printed once by the command. Its id is the contract's
(the one its server and its pages use), so it is given, not made: an id already a supplier's is refused, and so is
an affiliated supplier that is not a retailer of this deployment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from coreapi.models import Supplier
from coreapi.services.supplier_tokens import new_token


class RefusedSupplier(ValueError):
    """A definition this deployment cannot take: its id is taken, or its affiliated retailer is not one."""


@dataclass(frozen=True)
class Onboarded:
    """The supplier added, and its token."""

    supplier_id: int
    name: str
    kind: str
    token: str


def add_supplier(session: Session, definition: dict[str, Any], *, token: str | None = None) -> Onboarded:
    """Add the supplier a validated definition describes; the caller commits."""
    if session.get(Supplier, definition["id"]) is not None:
        raise RefusedSupplier(f"Supplier {definition['id']} exists already.")
    affiliate_id = definition["affiliated_supplier_id"]
    if affiliate_id is not None:
        affiliate = session.get(Supplier, affiliate_id)
        if affiliate is None or affiliate.kind != "retailer":
            raise RefusedSupplier(f"The affiliated supplier {affiliate_id} is not a retailer of this deployment.")
    supplier = Supplier(
        id=definition["id"],
        name=definition["name"].strip(),
        token=new_token(session, token),
        kind=definition["kind"],
        personalization=definition["personalization"],
        affiliated_supplier_id=affiliate_id,
        routing=definition["routing"],
    )
    session.add(supplier)
    session.flush()
    return Onboarded(supplier_id=supplier.id, name=supplier.name, kind=supplier.kind, token=supplier.token)

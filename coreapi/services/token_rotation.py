"""Rotating a supplier's token (``flask --app coreapi rotate-token``), with an overlap.

A supplier's ``Supplier-Token`` is configured on each of its servers; they cannot all change it at the same moment.
A rotation gives the supplier a new token and keeps the one it replaces accepted for an overlap (24 hours unless
the operator says otherwise; none at all for a leaked token), after which a request naming it is refused as one
naming no supplier (``catalog.token_names``). One replaced token is kept per supplier: a rotation during the
overlap of the one before ends that overlap at once (the oldest token stops), which the command says.

The new token is made or checked by ``supplier_tokens.new_token``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session

from coreapi.services.catalog import get_supplier
from coreapi.services.moments import as_utc
from coreapi.services.supplier_tokens import new_token

DEFAULT_OVERLAP = dt.timedelta(hours=24)
# A week: long enough for a retailer's slowest deploy, short enough that a forgotten token does not live on.
MAX_OVERLAP = dt.timedelta(days=7)


@dataclass(frozen=True)
class Rotation:
    """A supplier's new token, and until when the one it replaced is accepted (``None``: not at all)."""

    supplier_id: int
    name: str
    token: str
    previous_accepted_until: dt.datetime | None
    # The token replaced by the rotation before, still accepted until this one: its overlap ended here.
    cut_short: bool


def rotate_token(
    session: Session,
    supplier_id: str,
    *,
    now: dt.datetime,
    overlap: dt.timedelta = DEFAULT_OVERLAP,
    token: str | None = None,
) -> Rotation:
    """Give a supplier a new token, the one it replaces accepted for ``overlap``; the caller commits.
    ``catalog.UnknownSupplier`` for an id that names none."""
    if not dt.timedelta(0) <= overlap <= MAX_OVERLAP:
        raise ValueError(f"The overlap must be between 0 and {MAX_OVERLAP.days} days.")
    supplier = get_supplier(session, supplier_id)
    made = new_token(session, token)
    cut_short = (
        supplier.previous_token is not None
        and supplier.previous_token_expires_at is not None
        and as_utc(supplier.previous_token_expires_at) > now
    )
    until = now + overlap if overlap else None
    supplier.previous_token = supplier.token if until is not None else None
    supplier.previous_token_expires_at = until
    supplier.token = made
    return Rotation(
        supplier_id=supplier.id,
        name=supplier.name,
        token=made,
        previous_accepted_until=until,
        cut_short=cut_short,
    )

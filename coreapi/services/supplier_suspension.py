"""Suspending a supplier (``flask --app coreapi suspend-supplier``), and serving it again.

A deployment serving several retailers and publishers stops one of them (a contract ended or paused, a token
leaked) without deleting anything: a suspended supplier stays in the database with its shoppers' baskets, orders,
menus and likes, but every API request naming it, by its ``Supplier-Token`` or as a service by its ``Supplier-Id``,
is refused as one naming an unknown supplier (``401``, ``catalog.supplier_active``). Its clients' handling of a
revoked token applies as it is: prerender forgets the supplier within its supplier cache's time
(``PRERENDER_SUPPLIER_CACHE_SECONDS``), after which its fragments are refused and its shoppers' credentials
answered as those of an unknown supplier. The commands still find it (``export-shopper``, ``forget-shopper``).
Resuming serves it again, with everything as it was; suspending it again keeps the first time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session

from coreapi.services.catalog import get_supplier
from coreapi.services.moments import as_utc


@dataclass(frozen=True)
class Suspension:
    """A suspended supplier, and since when (the first suspension's time)."""

    supplier_id: int
    name: str
    suspended_at: dt.datetime


def suspend_supplier(session: Session, supplier_id: str, *, now: dt.datetime) -> Suspension:
    """Suspend a supplier (its first suspension's time is kept); the caller commits. ``catalog.UnknownSupplier`` for
    an id that names none, here and in ``resume_supplier``."""
    supplier = get_supplier(session, supplier_id)
    if supplier.suspended_at is None:
        supplier.suspended_at = now
    return Suspension(supplier_id=supplier.id, name=supplier.name, suspended_at=as_utc(supplier.suspended_at))


def resume_supplier(session: Session, supplier_id: str) -> bool:
    """Serve a suspended supplier again; ``False`` if it was not suspended. The caller commits."""
    supplier = get_supplier(session, supplier_id)
    if supplier.suspended_at is None:
        return False
    supplier.suspended_at = None
    return True

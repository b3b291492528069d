"""A supplier's new token (``add-supplier``, ``rotate-token``): made here, or given by the operator and checked.

A made token is ``secrets.token_urlsafe(32)``: 256 random bits, which nobody can have tried before it existed (so
no client remembers it as unknown: prerender keeps an unknown token's answer for about a minute). A given one must be
``MIN_TOKEN_LENGTH`` to 200 characters of the URL-safe alphabet (it travels in a header) and be no supplier's token,
now or before a rotation.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from coreapi.models import Supplier

MIN_TOKEN_LENGTH = 24
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{{MIN_TOKEN_LENGTH},200}}")


class RefusedToken(ValueError):
    """A token the operator gave that cannot be a supplier's: malformed, or a supplier's already."""


def new_token(session: Session, given: str | None) -> str:
    """A new supplier token: ``given`` once checked, else a random one."""
    if given is None:
        return secrets.token_urlsafe(32)
    if not _TOKEN.fullmatch(given):
        raise RefusedToken(
            f"A token is {MIN_TOKEN_LENGTH} to 200 characters among A-Z, a-z, 0-9, '-' and '_'; "
            "leave --token out to have one made."
        )
    taken = session.scalars(
        select(Supplier.id).where(or_(Supplier.token == given, Supplier.previous_token == given))
    ).first()
    if taken is not None:
        raise RefusedToken("That token is, or was, a supplier's: choose another, or leave --token out.")
    return given

"""The ids a shopper's answers show for its baskets and menus: a keyed digest of the row's number, never the number.

The rows' numbers count the baskets and menus of every supplier of the deployment. Shown as they were (a menu's
`id`, a payment's `basket_id`, an order's `id` in the history), a supplier that made two menus for a shopper of its
own a minute apart learnt from their difference how many menus every other supplier's shoppers made meanwhile, and
likewise for baskets and orders: another retailer's activity, day by day. The id shown is now the first
``LENGTH`` hex digits of HMAC-SHA256(key, "<kind>:<number>"): the same for a row at every answer and on every node,
unrelated from one row to the next, and 80 bits, so two of a shopper's rows never share one in practice. No route
takes one back (they label what a shopper sees and what a payment confirmed), so nothing needs to reverse it.

The key is the ``public-ids`` row of ``instance_secrets``, made by migration 0017 at random once per database:
every node reads the same one, with no setting to keep equal across them, and a copy of the database shows the ids
the original did. A database whose schema was built without the migrations (``create_all``) gets its row at the
first id shown. Each process reads the key once (``PublicIdKey``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from coreapi.models import InstanceSecret

# The row of instance_secrets that holds the key.
SECRET_NAME = "public-ids"
# Hex digits of the digest an id keeps (80 bits).
LENGTH = 20
# What a number is the number of: part of the digest, so a basket and a menu of the same number differ.
BASKET = "basket"
MENU = "menu"


def public_id(key: bytes, kind: str, number: int) -> str:
    """The id shown for row ``number`` of ``kind``."""
    return hmac.new(key, f"{kind}:{number}".encode(), hashlib.sha256).hexdigest()[:LENGTH]


class PublicIdKey:
    """The key of the public ids, read from the database at its first use in this process, then kept."""

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def get(self, session: Session) -> bytes:
        """The key; made in the database first if it has none (a schema built by ``create_all``)."""
        if self._key is None:
            with self._lock:
                if self._key is None:
                    self._key = _read_or_make(session).encode()
        return self._key


def _read_or_make(session: Session) -> str:
    """The ``public-ids`` secret of the database, made in a transaction of its own when missing (two processes
    racing to make it both read the one that was stored)."""
    query = select(InstanceSecret.value).where(InstanceSecret.name == SECRET_NAME)
    value = session.scalar(query)
    if value is not None:
        return value
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    try:
        with engine.connect() as connection:
            connection.execute(insert(InstanceSecret).values(name=SECRET_NAME, value=secrets.token_hex(32)))
            connection.commit()
    except IntegrityError:
        pass  # another process made it first
    with engine.connect() as connection:
        made = connection.scalar(query)
    if made is None:
        raise RuntimeError("instance_secrets has no public-ids key after making one")
    return made

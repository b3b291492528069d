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
the original did. A database whose schema was built without the migrations (``create_all``, then adopted by
``db-upgrade``/``init-db``) gets its row at that upgrade (``ensure_key``, coreapi/migrate.py), never within a
request: a request that shows an id may be inside its write's transaction, which on SQLite holds the database's one
write lock that a second connection's insert would wait for in vain. Each process reads the key once
(``PublicIdKey``); a process that started before a downgrade and upgrade of 0017 (a new key) keeps the old one until
it is reloaded, which a release's steps do (docs/operations.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

from sqlalchemy import Connection, insert, inspect, select
from sqlalchemy.orm import Session

from coreapi.models import InstanceSecret

# The row of instance_secrets that holds the key.
SECRET_NAME = "public-ids"
# Hex digits of the digest an id keeps (80 bits).
LENGTH = 20
# What a number is the number of: part of the digest, so a basket and a menu of the same number differ.
BASKET = "basket"
MENU = "menu"
TRANSFER = "transfer"  # export-shopper's only: a transfer is named by its token elsewhere


KEY_QUERY = select(InstanceSecret.value).where(InstanceSecret.name == SECRET_NAME)


def public_id(key: bytes, kind: str, number: int) -> str:
    """The id shown for row ``number`` of ``kind``."""
    return hmac.new(key, f"{kind}:{number}".encode(), hashlib.sha256).hexdigest()[:LENGTH]


class MissingKey(RuntimeError):
    """The database has no key of public ids: its schema is not at 0017 or later, or the row was deleted."""


class PublicIdKey:
    """The key of the public ids, read from the database at its first use in this process, then kept."""

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def get(self, session: Session) -> bytes:
        """The key; MissingKey when the database has none."""
        if self._key is None:
            with self._lock:
                if self._key is None:
                    value = session.scalar(KEY_QUERY)
                    if value is None:
                        raise MissingKey(
                            "the database has no public-ids key in instance_secrets: run `flask --app coreapi "
                            "db-upgrade` (migration 0017 makes it)"
                        )
                    self._key = value.encode()
        return self._key


def ensure_key(connection: Connection) -> bool:
    """Make the ``public-ids`` key in ``connection``'s transaction when the table exists without it (a schema
    built by ``create_all`` and adopted, or a row deleted); whether it made one."""
    if InstanceSecret.__tablename__ not in inspect(connection).get_table_names():
        return False
    if connection.scalar(KEY_QUERY) is not None:
        return False
    connection.execute(insert(InstanceSecret).values(name=SECRET_NAME, value=secrets.token_hex(32)))
    return True

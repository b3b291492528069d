"""Flask extensions, created unbound and bound to an application by ``create_app``."""

import sqlite3
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import Engine, MetaData, event
from sqlalchemy.orm import DeclarativeBase

# Deterministic constraint names, identical on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of every coreapi model.

    The models subclass it directly, which type checkers understand, rather than ``db.Model``:
    Flask-SQLAlchemy builds ``db.Model`` as a copy of this class with the same registry and
    metadata (``db.metadata`` is ``Base.metadata``), adding ``Model.query``, automatic table names
    and bind keys, none of which coreapi uses.
    """

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


# The services take a ``sqlalchemy.orm.Session``: the routes pass ``db.session()``, the session of
# the current application context that the ``db.session`` proxy stands for.
db = SQLAlchemy(model_class=Base)


def _enable_foreign_keys(dbapi_connection: Any, connection_record: Any) -> None:
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()


def enforce_sqlite_foreign_keys(engine: Engine) -> None:
    """SQLite checks foreign keys only when asked to, on every new connection."""
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _enable_foreign_keys)

"""Alembic environment: coreapi's metadata, on the connection or engine of the Flask app.

Run through ``coreapi.migrate`` (``flask --app coreapi db-upgrade``...), never with an alembic.ini:
the connection comes in ``config.attributes["connection"]``, or else from ``db.engine`` of the
current application; the URL only for offline (``--sql``) runs.
"""

from __future__ import annotations

from alembic import context
from flask import current_app
from sqlalchemy.engine import Connection

import coreapi.models  # noqa: F401  (every table on the metadata)
from coreapi.extensions import db


def configure(connection: Connection) -> None:
    """Compare types; SQLite alters tables by copying them (batch mode). Each revision in a transaction of its
    own where the connection is in none (PostgreSQL, ``coreapi.migrate.schema_connection``), else all in the
    connection's (SQLite); ``on_version_apply`` (``coreapi.migrate.upgrade``'s check) is called in it."""
    after_each = context.config.attributes.get("on_version_apply")
    context.configure(
        connection=connection,
        target_metadata=db.metadata,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
        transaction_per_migration=True,
        on_version_apply=after_each,
    )


def run_migrations_offline() -> None:
    """Print the SQL for the app's database URL instead of running it."""
    context.configure(
        url=current_app.config["SQLALCHEMY_DATABASE_URI"],
        target_metadata=db.metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run on the given connection (its caller commits), or on a connection of ``db.engine``."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    with db.engine.connect() as connection:
        configure(connection)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

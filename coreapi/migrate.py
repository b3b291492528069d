"""The database schema under Alembic: upgrades, adopting a database made before migrations,
reset, and new revisions.

Schema changes run on a connection of their own (``schema_connection``), and two processes
upgrading at once run one after the other. On SQLite, everything runs in one transaction begun
IMMEDIATE (taking the database's write lock at once), so a failed upgrade leaves nothing behind;
foreign keys are off while the schema changes (batch migrations copy and drop tables, which would
otherwise cascade), then checked before the commit. On PostgreSQL, the connection holds an advisory
lock for its session and each revision runs in a transaction of its own (Alembic's
``transaction_per_migration``), waiting at most ``LOCK_TIMEOUT`` for a table's lock: a revision
that locks a table (an ALTER TABLE) releases it at its own commit instead of holding it through the
revisions after it (an index built on a large table), a revision may build an index CONCURRENTLY,
and a failed upgrade leaves the database at the last whole revision, which the release before
works on (docs/operations.md, "A new release").
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.operations.ops import MigrationScript
from alembic.runtime.migration import MigrationContext
from alembic.script import Script, ScriptDirectory
from sqlalchemy import Engine, MetaData, inspect, text
from sqlalchemy.engine import Connection

import coreapi.models  # noqa: F401  (every table on the metadata)
from coreapi.extensions import db
from coreapi.services import public_ids

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "alembic_version"
# Key of the PostgreSQL advisory lock that serialises schema changes ("coreapi" in ASCII, 63 bits).
_SCHEMA_LOCK_KEY = 0x636F7265617069
# How long a revision waits for a table's lock on PostgreSQL before it fails (and the upgrade stops, to be run
# again): an ALTER TABLE waiting behind a long query would otherwise queue every request's read of that table
# behind itself.
LOCK_TIMEOUT = "5s"
# How often an upgrade waiting for another one's schema lock tries again (PostgreSQL).
SCHEMA_LOCK_POLL_SECONDS = 0.2


class SchemaMismatch(Exception):
    """A database made before migrations whose tables differ from the models: not adopted."""

    def __init__(self, differences: Sequence[Any]) -> None:
        self.differences = list(differences)
        listing = "\n".join(f"  {difference}" for difference in self.differences)
        super().__init__(
            "The database has coreapi tables but no migration history (alembic_version), and "
            f"they differ from the models:\n{listing}\nBack it up and run "
            "`flask --app coreapi init-db --reset` (drops every table), or bring it in line "
            "with the models by hand and run the upgrade again."
        )


class UpgradeLeftDifferences(Exception):
    """An upgrade that reached head with the database's coreapi tables unlike the models: that revision rolled back."""

    def __init__(self, revision: str | None, differences: Sequence[Any]) -> None:
        self.differences = list(differences)
        listing = "\n".join(f"  {difference}" for difference in self.differences)
        super().__init__(
            f"After the upgrade to revision {revision}, the database's tables still differ from the models:\n"
            f"{listing}\nThat revision was rolled back (on PostgreSQL, each revision before it stays applied). "
            "The database's migration history does not match its tables: find which revision was applied "
            "differently before upgrading again."
        )


class BrokenForeignKeys(Exception):
    """SQLite rows whose foreign keys point nowhere after a schema change (rolled back)."""


@dataclass(frozen=True)
class Upgrade:
    """The revision before and after; ``adopted``: a pre-migration database stamped as head."""

    before: str | None
    after: str | None
    adopted: bool = False


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code: the package's scripts, on ``connection``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    config.attributes["connection"] = connection
    return config


@contextmanager
def schema_connection(engine: Engine) -> Iterator[Connection]:
    """A connection that may change the schema, alone (see the module's doc); what the caller did on it is
    committed when the block ends, rolled back when it raises."""
    if engine.dialect.name == "postgresql":
        with _postgresql_schema_session(engine) as connection:
            yield connection
        return
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            _set_foreign_keys(connection, False)
        try:
            with connection.begin():
                if sqlite:  # the driver would begin only at the first INSERT, DEFERRED
                    connection.exec_driver_sql("BEGIN IMMEDIATE")
                yield connection
                if sqlite:
                    _check_foreign_keys(connection)
        finally:
            if sqlite:
                _set_foreign_keys(connection, True)


@contextmanager
def _postgresql_schema_session(engine: Engine) -> Iterator[Connection]:
    """A connection holding the schema lock for its session, its lock waits bounded, outside any transaction
    (each revision begins its own)."""
    with engine.connect() as connection:
        # Polled, each try a transaction of its own: a session blocked in pg_advisory_lock would hold a snapshot,
        # which a concurrent upgrade's CREATE INDEX CONCURRENTLY waits for (a deadlock).
        while not connection.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": _SCHEMA_LOCK_KEY}):
            connection.commit()
            time.sleep(SCHEMA_LOCK_POLL_SECONDS)
        connection.exec_driver_sql(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        connection.commit()
        try:
            yield connection
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        finally:
            connection.exec_driver_sql("RESET lock_timeout")
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _SCHEMA_LOCK_KEY})
            connection.commit()


def _set_foreign_keys(connection: Connection, enforced: bool) -> None:
    """SQLite ignores this pragma inside a transaction: run and end one of its own."""
    connection.exec_driver_sql(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
    connection.commit()


def _check_foreign_keys(connection: Connection) -> None:
    violations = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if violations:
        raise BrokenForeignKeys(f"PRAGMA foreign_key_check: {violations[:10]}")


def current_revision(connection: Connection) -> str | None:
    """The database's revision; ``None`` when it has no migration history."""
    return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    """The newest revision of the package's scripts."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def model_tables() -> set[str]:
    return set(db.metadata.tables)


def differences(connection: Connection) -> list[Any]:
    """What separates the database's coreapi tables from the models (Alembic's autogenerate
    comparison: tables, columns, types, nullability, keys, indexes; not CHECK constraints)."""
    ours = model_tables()

    def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
        return type_ != "table" or name in ours

    context = MigrationContext.configure(connection, opts={"compare_type": True, "include_name": include_name})
    return list(compare_metadata(context, db.metadata))


def upgrade(connection: Connection, revision: str = "head") -> Upgrade:
    """Upgrade to ``revision``; a database whose coreapi tables predate migrations is first
    stamped as head when they match the models, and refused (``SchemaMismatch``) otherwise. Reaching
    head, the tables must match the models, or ``UpgradeLeftDifferences`` is raised and that revision
    rolled back: a history that says a revision ran when its tables are not there (a revision id
    reused by another script) is found at the upgrade, not by a failing write."""
    tables = set(inspect(connection).get_table_names())
    adopted = False
    if VERSION_TABLE not in tables and tables & model_tables():
        found = differences(connection)
        if found:
            raise SchemaMismatch(found)
        command.stamp(alembic_config(connection), "head")
        adopted = True
    before = None if adopted else current_revision(connection)
    newer = _older_than_current(connection, revision)
    if newer is not None:
        raise NotAnUpgrade(
            f"The database is at revision {newer}, newer than {revision}: nothing was changed. Going back to an older "
            'revision is `flask --app coreapi db-downgrade` (docs/operations.md, "Rolling back a release").'
        )
    if connection.dialect.name == "postgresql" and connection.in_transaction():
        connection.commit()  # revision by revision (see the module's doc): what came before (a reset) first
    config = alembic_config(connection)
    config.attributes["on_version_apply"] = _check_at_head
    command.upgrade(config, revision)
    # What a revision makes as data, an adopted schema lacks (it was built by create_all): made here, committed
    # with the rest (schema_connection).
    public_ids.ensure_key(connection)
    return Upgrade(before, current_revision(connection), adopted)


class NotAnUpgrade(Exception):
    """An upgrade asked to a revision older than the database's: that is a downgrade, asked for as such."""


def downgrade(connection: Connection, revision: str) -> Upgrade:
    """Downgrade to ``revision``, older than the database's (each revision's script says what its downgrade
    drops); revision by revision on PostgreSQL, as ``upgrade``. Alembic's ``CommandError`` for a revision that
    is not older."""
    before = current_revision(connection)
    if connection.dialect.name == "postgresql" and connection.in_transaction():
        connection.commit()
    command.downgrade(alembic_config(connection), revision)
    return Upgrade(before, current_revision(connection))


def _older_than_current(connection: Connection, revision: str) -> str | None:
    """The database's revision when ``revision`` is one of its ancestors (an "upgrade" that would do nothing)."""
    current = current_revision(connection)
    if current is None or revision in ("head", "heads", current):
        return None
    script = ScriptDirectory.from_config(alembic_config())
    ancestors = {found.revision for found in script.iterate_revisions(current, "base")}
    return current if revision in ancestors else None


def _check_at_head(*, ctx: MigrationContext, step: Any, heads: Any, run_args: Any) -> None:
    """Alembic's call after each revision, in that revision's transaction: once at head, the tables must match
    the models, or the revision is rolled back (``UpgradeLeftDifferences``)."""
    if step.is_upgrade and step.up_revision_id == head_revision():
        assert ctx.connection is not None
        found = differences(ctx.connection)
        if found:
            raise UpgradeLeftDifferences(step.up_revision_id, found)


def drop_everything(connection: Connection) -> list[str]:
    """Drop every table of the database's default schema, ``alembic_version`` included."""
    tables = MetaData()
    tables.reflect(connection)
    tables.drop_all(connection)
    return sorted(tables.tables)


def next_revision_id() -> str:
    """``0002`` after ``0001``: revisions are numbered in the order they were written."""
    script = ScriptDirectory.from_config(alembic_config())
    numbers = [int(r.revision) for r in script.walk_revisions() if r.revision.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"


def new_revision(connection: Connection, message: str, autogenerate: bool = True) -> Script | None:
    """Write ``versions/NNNN_<message>.py``; autogenerated from the models' differences with the
    database (which must be at head). ``None``: autogenerate found nothing to do."""

    def skip_empty(context: MigrationContext, revision: Any, scripts: list[Any]) -> None:
        script: MigrationScript = scripts[0]
        if autogenerate and all(ops.is_empty() for ops in script.upgrade_ops_list):
            scripts[:] = []

    written = command.revision(
        alembic_config(connection),
        message=message,
        autogenerate=autogenerate,
        rev_id=next_revision_id(),
        process_revision_directives=skip_empty,
    )
    return written if isinstance(written, Script) else None

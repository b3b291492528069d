"""The test schemas a killed session leaves on the shared PostgreSQL server go with a later session
(tests/databases.py): the first `PostgresSchemas` of a process drops those made more than STALE_AFTER ago, and
leaves alone a schema still young, a name without a time (an older checkout's, maybe running now) and every
schema that is not a test's."""

from __future__ import annotations

import time
import uuid

import pytest
from sqlalchemy import text

from tests.databases import STALE_AFTER, PostgresSchemas, Unreachable

pytestmark = pytest.mark.postgres


def test_stale_test_schemas_are_dropped_and_nothing_else() -> None:
    try:
        schemas = PostgresSchemas(prefix="live_test_")
    except Unreachable as error:
        pytest.skip(str(error))
    now = time.time()
    tag = uuid.uuid4().hex[:8]
    stale = f"live_test_{int(now - STALE_AFTER - 60)}_{tag}"
    kept = [
        f"live_test_{int(now - STALE_AFTER + 600)}_{tag}",  # young: a session may be using it
        f"live_test_{tag}0000",  # no time in its name
        f"other_{int(now - 10 * STALE_AFTER)}_{tag}",  # not a test schema
    ]
    try:
        with schemas.engine.connect() as connection:
            for name in [stale, *kept]:
                connection.execute(text(f'CREATE SCHEMA "{name}"'))
                connection.execute(text(f'CREATE TABLE "{name}".rows (id int)'))  # dropped with it (CASCADE)
        dropped = schemas.drop_stale_schemas(now=now)
        assert stale in dropped
        assert not set(kept) & set(dropped)
        with schemas.engine.connect() as connection:
            left = set(connection.execute(text("SELECT nspname FROM pg_namespace")).scalars())
        assert stale not in left
        assert set(kept) <= left
    finally:
        schemas.schemas.extend(kept)  # dropped by close()
        schemas.close()


def test_a_suites_prefix_must_be_one_the_sweep_knows() -> None:
    with pytest.raises(ValueError, match="TEST_SCHEMA_PREFIXES"):
        PostgresSchemas(prefix="mine_")

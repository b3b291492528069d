"""Health checks, and the release coreapi runs (docs/operations.md, "Health checks")."""

import logging
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from coreapi.migrate import current_revision
from coreapi.services.database_errors import driver_message
from plumbing.release import installed_version

log = logging.getLogger(__name__)

DISTRIBUTION = "prerender-coreapi"
# Read when the code is imported: the version of the code this process runs, whatever is installed after it
# (plumbing/release.py).
PACKAGE_VERSION = installed_version(DISTRIBUTION)


@dataclass(frozen=True)
class DatabaseHealth:
    """Whether the database answers, and the Alembic revision its schema is at (its `alembic_version`; None without
    a migration history, or when it does not answer)."""

    answers: bool
    schema: str | None = None


def database_health(session: Session) -> DatabaseHealth:
    """Whether the database answers a ``SELECT 1``, and its schema's revision, read at each check: the database is
    upgraded while coreapi runs (docs/operations.md, "A new release", step 4). A failure is one log line (a load
    balancer probes every few seconds: a traceback each time would bury the log while the database is down)."""
    try:
        session.execute(text("SELECT 1"))
        schema = current_revision(session.connection())
    except SQLAlchemyError as error:
        log.error("database health check failed: %s", driver_message(error))
        session.rollback()
        return DatabaseHealth(answers=False)
    return DatabaseHealth(answers=True, schema=schema)

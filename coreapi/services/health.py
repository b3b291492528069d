"""Health checks."""

import logging

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)


def database_answers(session: Session) -> bool:
    """Whether the database answers a ``SELECT 1``. A failure is one log line (a load balancer probes every few
    seconds: a traceback each time would bury the log while the database is down)."""
    try:
        session.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        log.error("database health check failed: %s", driver_message(error))
        session.rollback()
        return False
    return True


def driver_message(error: SQLAlchemyError) -> str:
    """The database driver's first line of a failure, or its class: SQLAlchemy's own text holds the statement and
    its parameters (shoppers' ids), which a log line must not."""
    cause = error.orig if isinstance(error, DBAPIError) else None
    lines = str(cause).strip().splitlines() if cause is not None else []
    return lines[0] if lines else type(cause or error).__name__

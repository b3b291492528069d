"""Health checks."""

import logging

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from coreapi.services.database_errors import driver_message

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

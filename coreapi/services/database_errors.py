"""What a database failure may say in a log line, and what a request refused for now tells its caller."""

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

# What a request refused for now says (a busy pool, a failing database, a deadline): try again in a second.
RETRY_SOON = {"Retry-After": "1"}


def driver_message(error: SQLAlchemyError) -> str:
    """The database driver's first line of a failure, or its class: SQLAlchemy's own text holds the statement and
    its parameters (shoppers' ids), which a log line must not."""
    cause = error.orig if isinstance(error, DBAPIError) else None
    lines = str(cause).strip().splitlines() if cause is not None else []
    return lines[0] if lines else type(cause or error).__name__

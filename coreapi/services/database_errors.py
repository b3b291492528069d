"""What a database failure may say in a log line."""

from sqlalchemy.exc import DBAPIError, SQLAlchemyError


def driver_message(error: SQLAlchemyError) -> str:
    """The database driver's first line of a failure, or its class: SQLAlchemy's own text holds the statement and
    its parameters (shoppers' ids), which a log line must not."""
    cause = error.orig if isinstance(error, DBAPIError) else None
    lines = str(cause).strip().splitlines() if cause is not None else []
    return lines[0] if lines else type(cause or error).__name__

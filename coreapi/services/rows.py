"""Bulk statements and how many rows they changed."""

from __future__ import annotations

from sqlalchemy import CursorResult, Delete, Update
from sqlalchemy.orm import Session


def execute_counted(session: Session, statement: Delete | Update) -> int:
    """Run a bulk DELETE or UPDATE (the session's loaded objects left as they are: the caller expires or commits)
    and return how many rows it removed or changed (0 for a result that holds no count)."""
    result = session.execute(statement.execution_options(synchronize_session=False))
    return result.rowcount if isinstance(result, CursorResult) else 0

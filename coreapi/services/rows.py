"""How many rows a statement changed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, Result


def changed_rows(result: Result[Any]) -> int:
    """The rows a DELETE or UPDATE removed or changed (0 for a result that holds no count)."""
    return result.rowcount if isinstance(result, CursorResult) else 0

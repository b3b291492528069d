"""Offset pagination of a SELECT."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    page: int
    per_page: int
    total: int

    def map(self, function: Callable[[T], U]) -> Page[U]:
        return Page([function(item) for item in self.items], self.page, self.per_page, self.total)


def paginate(session: Session, statement: Select[Any], page: int, per_page: int) -> Page[Any]:
    """One page of the entities ``statement`` selects (it must be ordered) and the total count."""
    count = select(func.count()).select_from(statement.order_by(None).subquery())
    total = session.scalar(count) or 0
    items = session.scalars(statement.limit(per_page).offset((page - 1) * per_page)).all()
    return Page(list(items), page, per_page, total)

"""Pagination arguments and the paginated list envelope."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from coreapi.services.pagination import Page

MAX_PER_PAGE = 100


class PaginationArgs(Schema):
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100_000))
    per_page = fields.Integer(load_default=20, validate=validate.Range(min=1, max=MAX_PER_PAGE))


def dump_page(schema: Schema, page: Page[Any]) -> dict[str, Any]:
    """``{"data": [...], "page", "per_page", "total"}``."""
    return {
        "data": schema.dump(page.items, many=True),
        "page": page.page,
        "per_page": page.per_page,
        "total": page.total,
    }


def dump_one(schema: Schema, obj: Any) -> dict[str, Any]:
    """The JSON object of one object (marshmallow types what ``dump`` returns as ``Any``)."""
    data: dict[str, Any] = schema.dump(obj)
    return data

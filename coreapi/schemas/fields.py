"""Fields shared by the schemas: ids, money, times in UTC, picture URLs, the store of a request.

(Recipe details build their quantities themselves: ``coreapi.services.quantities.quantity_number``.)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flask import current_app, url_for
from marshmallow import fields, validate
from webargs.fields import DelimitedList

from coreapi.extensions import db
from coreapi.models import Store
from coreapi.services.catalog import find_store
from coreapi.services.pricing import money_number
from coreapi.services.public_ids import public_id

MAX_IDS = 100
# The application's extension that keeps the key of the public ids (coreapi/__init__.py).
PUBLIC_ID_KEY = "coreapi_public_id_key"


class Id(fields.String):
    """An identifier: always a string in JSON, whatever the database keys it with."""


class PublicId(Id):
    """A basket's or a menu's row number, shown as its public id (coreapi/services/public_ids.py), with the key
    of the application's ``PUBLIC_ID_KEY`` extension."""

    def __init__(self, kind: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind = kind

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        if value is None:
            return None
        key = current_app.extensions[PUBLIC_ID_KEY].get(db.session())
        return public_id(key, self.kind, int(value))


def id_list(**kwargs: Any) -> DelimitedList:
    """A comma-separated list of at most ``MAX_IDS`` ids, in a query string."""
    return DelimitedList(fields.String(), validate=validate.Length(max=MAX_IDS), **kwargs)


class Money(fields.Field[Decimal]):
    """A ``Decimal`` amount as a JSON number with two decimals."""

    def _serialize(self, value: Decimal | None, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return money_number(value)


class UtcDateTime(fields.DateTime):
    """A stored time in ISO 8601, in UTC (``+00:00``); SQLite gives it back without its zone: UTC."""

    def _serialize(self, value: dt.datetime | None, attr: str | None, obj: Any, **kwargs: Any) -> str | float | None:
        if value is None:
            return None
        zoned = value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
        return super()._serialize(zoned, attr, obj, **kwargs)


# The media routes of the pictures, and the name of their id argument.
RECIPE_PICTURE = ("media.recipe_picture", "recipe_id")
PRODUCT_PICTURE = ("media.product_picture", "product_id")


class PictureUrl(fields.Field[int]):
    """The absolute URL of an object's picture, under ``PUBLIC_URL`` when it is configured."""

    def __init__(self, endpoint: str, id_argument: str, **kwargs: Any) -> None:
        kwargs.setdefault("attribute", "id")
        super().__init__(dump_only=True, **kwargs)
        self.endpoint = endpoint
        self.id_argument = id_argument

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str:
        return picture_url(self.endpoint, self.id_argument, value)


def picture_url(endpoint: str, id_argument: str, value: Any) -> str:
    """``PictureUrl``'s URL of one object (the routes take an integer id)."""
    public_url: str | None = current_app.config["PUBLIC_URL"]
    if public_url:
        return public_url + url_for(endpoint, **{id_argument: value})
    return url_for(endpoint, _external=True, **{id_argument: value})


# An id whose digits cannot be mistaken for the rest of a picture URL (see picture_urls).
_PLACEHOLDER_ID = 918273645


def picture_urls(endpoint: str, id_argument: str) -> Callable[[int], str]:
    """``picture_url`` of any id for the current request, with one ``url_for`` in all.

    The picture routes take ``<int:...>`` ids, which ``url_for`` writes as ``str(int(id))``: the
    URL of any id is the URL of a placeholder id with the id in its place. A batch of recipe
    details has thousands of pictures; ``url_for`` costs about 40 µs each.
    """
    template = picture_url(endpoint, id_argument, _PLACEHOLDER_ID)
    head, placeholder, tail = template.partition(str(_PLACEHOLDER_ID))
    if not placeholder or str(_PLACEHOLDER_ID) in tail:  # never with the routes of coreapi
        return lambda value: picture_url(endpoint, id_argument, value)
    return lambda value: f"{head}{int(value)}{tail}"


class StoreField(fields.Field[Store | None]):
    """A ``store_id`` parameter, loaded as the ``Store`` it names; an unknown store is invalid.

    An empty value means no store, like a missing one.
    """

    default_error_messages = {  # noqa: RUF012  (marshmallow's messages per class, never mutated)
        "unknown": "Unknown store.",
    }
    # The id is text, read (or refused, with its messages) by a String field.
    _store_id = fields.String()

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Store | None:
        store_id = self._store_id._deserialize(value, attr, data, **kwargs).strip()
        if not store_id:
            return None
        store = find_store(db.session(), store_id)
        if store is None:
            raise self.make_error("unknown")
        return store


class RequiredStoreField(StoreField):
    """A ``store_id`` that must name a store: missing or empty is ``400``, unknown too."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Store:
        store = super()._deserialize(value, attr, data, **kwargs)
        if store is None:
            raise self.make_error("required")
        return store

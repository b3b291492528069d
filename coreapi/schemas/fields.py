"""Fields shared by the schemas: ids, money, quantities, picture URLs, the store of a request."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flask import current_app, url_for
from marshmallow import fields, validate
from webargs.fields import DelimitedList

from coreapi.extensions import db
from coreapi.models import Store
from coreapi.services.catalog import find_store
from coreapi.services.pricing import to_cents
from coreapi.services.quantities import round_to

MAX_IDS = 100


class Id(fields.String):
    """An identifier: always a string in JSON, whatever the database keys it with."""


def id_list(**kwargs: Any) -> DelimitedList:
    """A comma-separated list of at most ``MAX_IDS`` ids, in a query string."""
    return DelimitedList(fields.String(), validate=validate.Length(max=MAX_IDS), **kwargs)


class Money(fields.Field):
    """A ``Decimal`` amount as a JSON number with two decimals."""

    def _serialize(self, value: Decimal | None, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else float(to_cents(value))


class Quantity(fields.Field):
    """A ``Decimal`` quantity as a JSON number: an integer when whole, else three decimals."""

    def _serialize(self, value: Decimal | None, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None:
            return None
        rounded = round_to(value, 3)
        return int(rounded) if rounded == rounded.to_integral_value() else float(rounded)


class PictureUrl(fields.Field):
    """The absolute URL of an object's picture, under ``PUBLIC_URL`` when it is configured."""

    def __init__(self, endpoint: str, id_argument: str, **kwargs: Any) -> None:
        kwargs.setdefault("attribute", "id")
        super().__init__(dump_only=True, **kwargs)
        self.endpoint = endpoint
        self.id_argument = id_argument

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str:
        public_url = current_app.config["PUBLIC_URL"]
        if public_url:
            return public_url + url_for(self.endpoint, **{self.id_argument: value})
        return url_for(self.endpoint, _external=True, **{self.id_argument: value})


class StoreField(fields.String):
    """A ``store_id`` parameter, loaded as the ``Store`` it names; an unknown store is invalid.

    An empty value means no store, like a missing one.
    """

    default_error_messages = {"unknown": "Unknown store."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Store | None:
        store_id = super()._deserialize(value, attr, data, **kwargs).strip()
        if not store_id:
            return None
        store = find_store(db.session, store_id)
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

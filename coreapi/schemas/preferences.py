"""Preferences: a shopper's, what it can choose from, and ``preferences=apply`` on the recipe reads."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from marshmallow import EXCLUDE, Schema, fields, validate
from sqlalchemy.orm import Session

from coreapi.extensions import db
from coreapi.models import MAX_PREFERRED_GUESTS, MIN_PREFERRED_GUESTS
from coreapi.schemas.fields import Id, UtcDateTime
from coreapi.services import preferences

# The only value of the ``preferences`` query parameter.
APPLY = "apply"


def apply_preferences() -> fields.String:
    """``preferences=apply``: the calling shopper's stored preferences filter the recipes; absent,
    they do not; any other value is invalid."""
    return fields.String(load_default=None, validate=validate.OneOf([APPLY]))


class ApplyPreferencesArgs(Schema):
    """The query string of ``POST /suggestions`` (its arguments are in the body)."""

    class Meta:
        unknown = EXCLUDE

    preferences = apply_preferences()


class CatalogIds(fields.List[str]):
    """A list of catalog ids, duplicates collapsed (the first kept), at most ``preferences.MAX_IDS``
    distinct ones, each one ``known`` answers for; an empty list when absent."""

    default_error_messages = {  # noqa: RUF012  (marshmallow's messages per class, never mutated)
        "too_many": f"At most {preferences.MAX_IDS} distinct ids.",
        "unknown": "{what}: {ids}.",
    }

    def __init__(self, known: Callable[[Session, Iterable[str]], set[str]], what: str, **kwargs: Any) -> None:
        super().__init__(fields.String(validate=validate.Length(min=1, max=64)), load_default=list, **kwargs)
        self.known = known
        self.what = what

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str | None]:
        items = super()._deserialize(value, attr, data, **kwargs)
        ids = [key for key in dict.fromkeys(items) if key is not None]  # (the items are never null)
        if len(ids) > preferences.MAX_IDS:
            raise self.make_error("too_many")
        known = self.known(db.session(), ids) if ids else set()
        unknown = [key for key in ids if key not in known]
        if unknown:
            raise self.make_error("unknown", what=self.what, ids=", ".join(unknown))
        return list(ids)


def _guests(**kwargs: Any) -> fields.Integer:
    return fields.Integer(validate=validate.Range(min=MIN_PREFERRED_GUESTS, max=MAX_PREFERRED_GUESTS), **kwargs)


class PreferencesArgs(Schema):
    """``PUT /preferences``: the whole preferences (a field left out is stored empty, or null)."""

    class Meta:
        unknown = EXCLUDE

    diets = CatalogIds(preferences.known_diets, "Not a diet")
    avoided_ingredients = CatalogIds(preferences.known_ingredients, "Unknown ingredient")
    missing_equipment = CatalogIds(preferences.known_equipment, "Unknown equipment")
    guests = _guests(strict=True, allow_none=True, load_default=None)


class PreferencesSchema(Schema):
    diets = fields.List(Id())
    avoided_ingredients = fields.List(Id())
    missing_equipment = fields.List(Id())
    guests = fields.Integer(allow_none=True)
    enabled = fields.Boolean()
    updated_at = UtcDateTime(allow_none=True)


class OptionSchema(Schema):
    id = Id()
    name = fields.String()


class GuestBoundsSchema(Schema):
    min = fields.Integer()
    max = fields.Integer()


class OptionsSchema(Schema):
    diets = fields.List(fields.Nested(OptionSchema))
    ingredients = fields.List(fields.Nested(OptionSchema))
    equipment = fields.List(fields.Nested(OptionSchema))
    guests = fields.Nested(GuestBoundsSchema)

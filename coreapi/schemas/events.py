"""Analytics events: what a browser may send, and how a session's events are listed."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_load, validate, validates

from coreapi.models import MAX_EVENT_ID_LENGTH
from coreapi.schemas.fields import Id
from coreapi.services.events import NewEvent
from coreapi.services.identity import MAX_ID_LENGTH

MAX_EVENTS = 100
MAX_NAME_LENGTH = 64
MAX_PATH_LENGTH = 512
MAX_PROPS = 20
MAX_PROP_NAME_LENGTH = 64
MAX_PROP_TEXT_LENGTH = 512


class PropValue(fields.Field[str | int | float | bool]):
    """A property's value: a string, a finite number or a boolean (nothing nested, no null)."""

    default_error_messages = {  # noqa: RUF012  (marshmallow's messages per class, never mutated)
        "invalid": "Must be a string, a number or a boolean.",
        "too_long": f"Longer than {MAX_PROP_TEXT_LENGTH} characters.",
    }

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str | int | float | bool:
        if isinstance(value, bool | int):
            return value
        if isinstance(value, float) and math.isfinite(value):
            return value
        if isinstance(value, str):
            if len(value) > MAX_PROP_TEXT_LENGTH:
                raise self.make_error("too_long")
            return value
        raise self.make_error("invalid")


class EventSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    # The browser's id of the event (prerender's SDK: a UUID): stored once per supplier, however many times
    # it is sent. Optional: events without one are all stored.
    id = fields.String(
        load_default=None,
        allow_none=True,
        data_key="id",
        attribute="event_id",
        validate=validate.Regexp(
            rf"[A-Za-z0-9][A-Za-z0-9._:-]{{0,{MAX_EVENT_ID_LENGTH - 1}}}\Z",
            error=f"1 to {MAX_EVENT_ID_LENGTH} letters, digits or ._:- characters, starting with a letter or digit.",
        ),
    )
    name = fields.String(
        required=True,
        validate=validate.Regexp(
            rf"[a-z.-]{{1,{MAX_NAME_LENGTH}}}\Z",
            error=f"1 to {MAX_NAME_LENGTH} characters among a-z, '.' and '-'.",
        ),
    )
    path = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=MAX_PATH_LENGTH))
    props = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=MAX_PROP_NAME_LENGTH)),
        values=PropValue(),
        load_default=dict,
        validate=validate.Length(max=MAX_PROPS),
    )
    # When the browser saw it; the time coreapi receives it when absent. Naive times are UTC.
    timestamp = fields.AwareDateTime(load_default=None, allow_none=True, default_timezone=dt.UTC)

    @validates("timestamp")
    def within_utc_years(self, value: dt.datetime | None, **_: Any) -> None:
        # Stored in UTC: 9999-12-31T23:59:59-14:00 is after year 9999 there, which Python cannot represent.
        if value is None:
            return
        try:
            value.astimezone(dt.UTC)
        except OverflowError as error:
            raise ValidationError("Must be a time between years 1 and 9999 in UTC.") from error

    @post_load
    def make_event(self, data: dict[str, Any], **kwargs: Any) -> NewEvent:
        return NewEvent(**data)


class EventsArgs(Schema):
    class Meta:
        unknown = EXCLUDE

    events = fields.List(
        fields.Nested(EventSchema),
        required=True,
        validate=validate.Length(min=1, max=MAX_EVENTS),
    )


class SessionEventsArgs(Schema):
    session_id = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ID_LENGTH))


class IdentitySchema(Schema):
    kind = fields.String()
    id = fields.String(attribute="value")


class StoredEventSchema(Schema):
    id = fields.String(attribute="event_id", allow_none=True)
    name = fields.String()
    path = fields.String(allow_none=True)
    props = fields.Dict(keys=fields.String())
    timestamp = fields.AwareDateTime()
    session_id = fields.String(allow_none=True)
    supplier_id = Id(allow_none=True)
    identity = fields.Nested(IdentitySchema, allow_none=True)

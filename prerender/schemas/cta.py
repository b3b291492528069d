"""Query string of the no-supplier add-to-cart CTA (`GET /{v}/no-supplier-add-to-cart-cta`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, pre_load, validate
from webargs.multidictproxy import MultiDictProxy

from prerender.schemas.fields import Integer, no_control_characters
from prerender.schemas.limits import MAX_EXTERNAL_ID_LENGTH, MAX_SERVES

# The publisher's own id is any text (its database's ids are its business; `no_control_characters`), of at least
# one character. Not `.` or `..`: the id is one segment of the upstream's path (prerender/gateway/calls.py,
# `segment`), and HTTP clients resolve those two as the path's dot segments (`/recipes/by-external-id/..` is sent
# as `/recipes/`).
DOT_SEGMENTS = (".", "..")


class CtaQuery(Schema):
    """`?recipe_id=&guests=`. Unknown parameters are ignored."""

    class Meta:
        unknown = EXCLUDE

    recipe_id = fields.String(
        required=True,
        validate=[
            validate.Length(1, MAX_EXTERNAL_ID_LENGTH),
            no_control_characters(),
            validate.NoneOf(DOT_SEGMENTS, error="Must not be '.' or '..'."),
        ],
        metadata={
            "description": "The publisher's own id of the recipe (its external id); when none matches, the value "
            "is used as the service's recipe id."
        },
    )
    guests = Integer(
        strict=False,
        validate=validate.Range(1, MAX_SERVES),
        load_default=None,
        metadata={
            "description": "Initial guest count, 1 to 50; any other value, or two different ones, is ignored (the "
            "recipe's applies).",
            "repeated": "ignored",
        },
    )

    @pre_load
    def ignore_bad_guests(self, data: Mapping[str, Any], **_: Any) -> dict[str, Any]:
        """A `guests` that is not 1 to 50 in decimal digits, or given twice with two values, is ignored, never
        refused: the recipe's own count applies (the host element's `guests` rule, README.md)."""
        loaded = {name: data.get(name) for name in self.fields if name in data}
        given = data.getlist("guests") if isinstance(data, MultiDictProxy) else []
        if len(set(given)) > 1:
            del loaded["guests"]
        if "guests" in loaded:
            try:
                self.fields["guests"].deserialize(loaded["guests"])
            except ValidationError:
                del loaded["guests"]
        return loaded

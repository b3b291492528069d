"""marshmallow fields both services read JSON bodies with the same way."""

from __future__ import annotations

from typing import Any

from marshmallow import fields


class OnlyJsonNumbers(fields.Number):  # type: ignore[type-arg]
    """Put before a number field (`class Amount(OnlyJsonNumbers, fields.Decimal)`): the value must be a JSON number
    and nothing else (`"12.5"`, `true` are invalid), where marshmallow would read a numeric text too."""

    def _validated(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class JsonNumber(OnlyJsonNumbers, fields.Float):
    """A number in a JSON body, as a float."""

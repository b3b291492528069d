"""marshmallow fields both services read JSON bodies with the same way."""

from __future__ import annotations

from typing import Any

from marshmallow import fields


class JsonNumber(fields.Float):
    """A number in a JSON body: a JSON number and nothing else (`"12.5"`, `true` are invalid), as a float."""

    def _validated(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)

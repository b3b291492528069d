"""Fields shared by the schemas."""

from __future__ import annotations

import decimal
import json
import re
from typing import Any, overload

from marshmallow import ValidationError, fields, validate

from plumbing.fields import OnlyJsonNumbers
from prerender.schemas.limits import MAX_ID_LENGTH

# Starts with a letter or digit: ids also go into upstream URL paths, where "." and ".." are special.
ID_PATTERN = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._:-]{{0,{MAX_ID_LENGTH - 1}}}$")
# An optional store's id as the OpenAPI document publishes it (OptionalStoreId): an id, empty or blank.
OPTIONAL_ID_PATTERN = rf"^(?:{ID_PATTERN.pattern[1:-1]}|\s*)$"
ID_MESSAGE = f"Must be 1 to {MAX_ID_LENGTH} letters, digits or ._:- characters, starting with a letter or digit."


# Who is asking: user, authless and session ids (emails, base64 session ids). They travel as header values.
IDENTITY_CHARACTERS = r"[\x21-\x7e]{1,128}"
IDENTITY_PATTERN = re.compile(rf"^{IDENTITY_CHARACTERS}$")
IDENTITY_MESSAGE = "Must be 1 to 128 printable ASCII characters without spaces."

# A text a page or a shopper writes (a search, a title, a publisher's id): anything but a control character
# (Unicode's Cc: C0, DEL and C1), which no one types and which HTML may not carry as text.
TEXT_PATTERN = re.compile(r"^[^\x00-\x1f\x7f-\x9f]*$")
TEXT_MESSAGE = "Must not contain control characters."

# An integer as a query string writes it: ASCII digits, an optional minus sign, nothing else (Python's int()
# would also take " 2", "+2", "2_0" and other scripts' digits).
DECIMAL_INTEGER = re.compile(r"-?[0-9]+")


class FullMatch(validate.Regexp):
    """marshmallow's Regexp, matched against the whole value: Regexp uses `re.match`, where `$` also matches
    before a final newline (`^[0-9]+$` takes "5" followed by a newline). The patterns keep their `^...$`: the OpenAPI
    document publishes them as ECMA-262, where a pattern matches anywhere unless anchored and `$` is the end."""

    @overload
    def __call__(self, value: str) -> str: ...

    @overload
    def __call__(self, value: bytes) -> bytes: ...

    def __call__(self, value: str | bytes) -> str | bytes:
        if self.regex.fullmatch(value) is None:  # type: ignore[arg-type]
            raise ValidationError(self._format_error(value))
        return value


def no_control_characters() -> FullMatch:
    """The rule of every free text of a request (TEXT_PATTERN)."""
    return FullMatch(TEXT_PATTERN, error=TEXT_MESSAGE)


def Identifier(**kwargs: Any) -> fields.String:
    """A recipe, product or store id."""
    return fields.String(validate=FullMatch(ID_PATTERN, error=ID_MESSAGE), **kwargs)


class OptionalStoreId(fields.String):
    """An optional `store_id`: absent, empty, blank or null all mean no store (the specification's "store_id
    missing: no error"; a customer's template often writes `store_id=` when its visitor chose none)."""

    def __init__(self, **kwargs: Any) -> None:
        # Published as it is read: an id, or nothing but blanks (the validator sees only ids: blanks become None).
        metadata = {"pattern": OPTIONAL_ID_PATTERN, **kwargs.pop("metadata", {})}
        super().__init__(allow_none=True, validate=FullMatch(ID_PATTERN, error=ID_MESSAGE), metadata=metadata, **kwargs)

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            value = None
        return super().deserialize(value, attr, data, **kwargs)


def product_id_of(value: Any) -> str:
    """A product id as a customer's JSON carries it: a string, or a whole number read as its digits (numeric ids
    are often sent as numbers); anything else is a ValidationError."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValidationError("Every id must be a string (or a whole number, read as its digits).")
    text = str(value)
    if not ID_PATTERN.fullmatch(text):
        raise ValidationError(ID_MESSAGE)
    return text


class ProductId(fields.String):
    """A product id in a JSON body (`product_id_of`), published as a string of the id pattern."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(validate=FullMatch(ID_PATTERN, error=ID_MESSAGE), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return product_id_of(value)


class Integer(fields.Integer):
    """An integer, never truncated nor converted from another type.

    `strict=True`, in a JSON body: a JSON integer and nothing else (`2.9`, `2.0`, `"2"`, `true` are invalid).
    `strict=False`, in a query string, whose values are all strings: a string of decimal digits (`"2.9"`,
    `"2_0"`, `" 2"` are invalid). Every integer field of a schema is one of these, with `strict` saying which
    (tests/unit/test_integer_fields.py checks every declared body and query)."""

    def __init__(self, *, strict: bool, **kwargs: Any) -> None:
        super().__init__(strict=strict, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        if not self.strict and not (
            isinstance(value, int) or (isinstance(value, str) and DECIMAL_INTEGER.fullmatch(value))
        ):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)  # strict: refuses anything but an int


class Amount(OnlyJsonNumbers, fields.Decimal):
    """An amount of money in a JSON body: a JSON number and nothing else (`"12.5"`, `true` are invalid), as a
    Decimal rounded to the cent (a browser's float sums such as 0.1 + 0.2 are 0.30000000000000004)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(places=2, rounding=decimal.ROUND_HALF_UP, as_string=False, **kwargs)


class JsonIdList(fields.Field[list[str]]):
    """A list of ids written as a JSON array in the query string: `["123","456"]`."""

    def __init__(self, *, min_items: int, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.min_items = min_items
        self.max_items = max_items

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str]:
        try:
            items = json.loads(value) if isinstance(value, str) else value
        # ValueError: a JSONDecodeError, or an integer of more digits than Python converts.
        except (ValueError, RecursionError) as error:
            raise ValidationError('Must be a JSON array of ids, e.g. ["123","456"].') from error
        if not isinstance(items, list):
            raise ValidationError('Must be a JSON array of ids, e.g. ["123","456"].')
        if not self.min_items <= len(items) <= self.max_items:
            raise ValidationError(f"Must hold {self.min_items} to {self.max_items} ids.")
        return [product_id_of(item) for item in items]

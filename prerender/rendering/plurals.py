"""Plural messages of the texts: `{count, plural, one {# recette} other {# recettes}}`.

A text of `prerender/i18n/*.json` (or of a retailer's override file) may hold, anywhere in it, a plural
argument, a subset of ICU MessageFormat that the SDK reads the same way (`prerender/static/sdk/texts.js`):

    {<parameter>, plural, <selector> {<message>} ... other {<message>}}

- a selector is a CLDR plural category of the language (`zero`, `one`, `two`, `few`, `many`, `other`; French
  and English use `one` and `other`) or an exact value (`=0`, `=2`); an exact value wins over a category,
  `other` is required;
- the category of the number is the language's CLDR plural rule (Babel's data): in French `one` is 0 and 1 and
  every number below 2 (1,5), in English exactly 1;
- in the chosen message `#` is the number, written as the language writes it (`1,5` in French); the message may
  hold `{parameters}` and plural arguments of its own;
- there is no quoting: an apostrophe is an apostrophe. A retailer's text whose plural argument is malformed (no
  `other`, unbalanced braces) is left out when its file is read (`parameters` below; prerender/rendering/i18n.py):
  the base text stands in. Formatting one anyway shows it as written, with a warning in the log; a parameter that
  is no number takes the `other` message, `#` being the value as given.
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from babel import Locale
from babel.numbers import format_decimal

log = logging.getLogger(__name__)

_START = re.compile(r"\{\s*(\w+)\s*,\s*plural\s*,")
_SELECTOR = re.compile(r"\s*(=\s*-?\d+(?:\.\d+)?|zero|one|two|few|many|other)\s*\{")
_END = re.compile(r"\s*\}")


class MalformedPlural(ValueError):
    """A plural argument that cannot be read."""


@cache
def _locale(language: str) -> Locale:
    return Locale.parse(language)


def plural_category(language: str, number: int | float | Decimal) -> str:
    """The CLDR plural category of `number` in `language` (`one` or `other` in French and English)."""
    return str(_locale(language).plural_form(number))


def format_plurals(text: str, params: Mapping[str, Any], language: str) -> str:
    """`text` with each plural argument replaced by its message for the number of its parameter (`{name}`
    placeholders are left to the caller). Malformed: `text` unchanged, logged."""
    if "plural" not in text:
        return text
    try:
        return _expand(text, params, language)
    except MalformedPlural as error:
        log.warning("plural text %r is malformed (%s): shown as written", text, error)
        return text


def parameters(text: str) -> set[str]:
    """The parameters `text` names, in its `{placeholders}` and its plural arguments (theirs and their messages').
    Raises ValueError (MalformedPlural for a plural argument) when `text` cannot be shown as a text of
    `prerender/i18n/*.json`: a plural argument that cannot be read, or braces `str.format` cannot read."""
    outside, arguments, messages = _parts(text)
    names = set(arguments).union(*(parameters(body) for body in messages))
    for _, field, spec, conversion in string.Formatter().parse(outside):
        if field is None:
            continue
        # `{count!r}`, `{count:>9}`: no text of the service writes one, and a retailer's would show quotes, pad a
        # page (`{count:100000000}`) or nest a field the check would not see.
        if spec or conversion:
            raise ValueError(f"{{{field}}} takes no conversion nor format")
        names.add(field)
    return names


def escapes_braces(text: str) -> bool:
    """Whether `text` writes a brace as `{{` or `}}` (`str.format`'s escape), in its own text or a plural message,
    which the browser SDK's `formatText` shows as written (prerender/static/sdk/texts.js). `text` reads
    (`parameters` raised nothing)."""
    outside, _, messages = _parts(text)
    literals = (literal for literal, *_ in string.Formatter().parse(outside))
    return any("{" in literal or "}" in literal for literal in literals) or any(map(escapes_braces, messages))


def _parts(text: str) -> tuple[str, list[str], list[str]]:
    """`text` without its plural arguments, the parameters they count, and their messages (MalformedPlural when one
    cannot be read)."""
    outside: list[str] = []
    arguments: list[str] = []
    messages: list[str] = []
    position = 0
    while (start := _START.search(text, position)) is not None:
        outside.append(text[position : start.start()])
        arguments.append(start.group(1))
        branches, position = _branches(text, start.end())
        messages.extend(branches.values())
    outside.append(text[position:])
    return "".join(outside), arguments, messages


def _expand(text: str, params: Mapping[str, Any], language: str) -> str:
    out: list[str] = []
    position = 0
    while (start := _START.search(text, position)) is not None:
        out.append(text[position : start.start()])
        branches, position = _branches(text, start.end())
        out.append(_choose(start.group(1), branches, params, language))
    out.append(text[position:])
    return "".join(out)


def _branches(text: str, position: int) -> tuple[dict[str, str], int]:
    """The selectors and messages of a plural argument whose options start at `position`; and where it ends."""
    branches: dict[str, str] = {}
    while (end := _END.match(text, position)) is None:
        selector = _SELECTOR.match(text, position)
        if selector is None:
            raise MalformedPlural(f"no selector at {position}")
        body_start = selector.end()
        body_end = _closing_brace(text, body_start)
        branches[re.sub(r"\s+", "", selector.group(1))] = text[body_start:body_end]
        position = body_end + 1
    if "other" not in branches:
        raise MalformedPlural("no `other` message")
    return branches, end.end()


def _closing_brace(text: str, position: int) -> int:
    """The index of the brace that closes the one opened just before `position`."""
    depth = 1
    for index in range(position, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    raise MalformedPlural("unbalanced braces")


def _choose(name: str, branches: dict[str, str], params: Mapping[str, Any], language: str) -> str:
    number = _number(params.get(name))
    if number is None:
        log.warning("plural parameter {%s} is not a number: %r", name, params.get(name))
        return _expand(branches["other"], params, language).replace("#", str(params.get(name, "#")))
    exact = next((body for key, body in branches.items() if key.startswith("=") and Decimal(key[1:]) == number), None)
    body = exact if exact is not None else branches.get(plural_category(language, number), branches["other"])
    # The message's own plural arguments first: a `#` of theirs is their number.
    return _expand(body, params, language).replace("#", format_decimal(number, locale=language))


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None

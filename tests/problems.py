"""Reading the `errors` of a problem (plumbing/problems.py): `{location: {field path: [messages]}}`, a nested
field by its dotted path (`contexts.0.position`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def names(fields: Mapping[str, Any], field: str) -> bool:
    """Whether the errors of one location name `field`, itself or one of its parts (`contexts` names
    `contexts.0.position`)."""
    return any(path == field or path.startswith(f"{field}.") for path in fields)

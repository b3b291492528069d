"""URLs of the customer's pages the fragments link to."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def with_query(url: str, **params: Any) -> str:
    """`url` with these parameters set (None or False: removed, True: `true`), its other parameters and its
    fragment kept."""
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    added = [(k, "true" if v is True else str(v)) for k, v in params.items() if v is not None and v is not False]
    return urlunsplit(parts._replace(query=urlencode(kept + added)))

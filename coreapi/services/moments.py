"""Stored times as the services compare and answer them."""

from __future__ import annotations

import datetime as dt


def as_utc(moment: dt.datetime) -> dt.datetime:
    """A stored time as an aware UTC one: SQLite gives them back without their zone (they were stored in UTC),
    PostgreSQL in the session's."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)

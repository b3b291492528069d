"""The history's days are the shoppers' (prerender/rendering/my_space.py, DISPLAY_TIME_ZONE): an order confirmed
at 23:30 UTC in winter was placed on the next day in Paris."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from prerender.rendering.i18n import TextCatalog
from prerender.rendering.my_space import date_text

PARIS = ZoneInfo("Europe/Paris")


@pytest.mark.parametrize(
    ("confirmed_at", "day", "text"),
    [
        ("2026-11-30T23:30:00+00:00", "2026-12-01", "1 décembre 2026"),
        ("2026-11-30T23:30:00Z", "2026-12-01", "1 décembre 2026"),
        ("2026-11-30T23:30:00", "2026-12-01", "1 décembre 2026"),  # no offset: UTC, as the upstream writes
        ("2026-11-30T22:59:59+00:00", "2026-11-30", "30 novembre 2026"),
        ("2026-06-30T22:30:00+00:00", "2026-07-01", "1 juillet 2026"),  # summer time: UTC+2
        ("2026-11-30T23:30:00+01:00", "2026-11-30", "30 novembre 2026"),  # already Paris time
        ("2026-11-30", "2026-11-30", "30 novembre 2026"),  # a day, not a moment: as it is
    ],
)
def test_an_orders_day_is_the_day_in_the_shoppers_time_zone(confirmed_at, day, text):
    assert date_text(confirmed_at, TextCatalog(overrides_dir=None).translator("fr"), PARIS) == (day, text)


def test_a_timestamp_python_does_not_read_shows_its_day():
    t = TextCatalog(overrides_dir=None).translator("fr")
    assert date_text("2026-11-30 23:30:00 UTC", t, PARIS) == ("2026-11-30", "30 novembre 2026")


def test_a_date_that_is_no_date_is_shown_as_sent():
    assert date_text("yesterday", TextCatalog(overrides_dir=None).translator("fr"), PARIS) == ("yesterday", "yesterday")

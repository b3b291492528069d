"""The upstream's clock learnt from the Date of its answers (prerender/gateway/upstream_clock.py): the bounds each
answer gives, the deadline moved only when the upstream is surely ahead (by the lower bound, never more), windows
that forget a clock set right, and one warning a window."""

from __future__ import annotations

import logging

import pytest
from werkzeug.http import http_date

from prerender.gateway.upstream_clock import MARGIN_SECONDS, UpstreamClock
from tests.clock import FakeClock

NOW = 1_795_000_000.0  # a whole second: the node's clock when the calls below are sent


def answered(clock: UpstreamClock, upstream_time: float, *, sent: float = NOW, took: float = 0.02) -> None:
    """A call sent at `sent` (node's time), answered `took` later, whose Date says `upstream_time`."""
    clock.observe(http_date(upstream_time), sent=sent, received=sent + took)


def test_without_answers_or_dates_nothing_is_corrected() -> None:
    clock = UpstreamClock()
    assert clock.deadline_correction() == 0.0
    clock.observe(None, sent=NOW, received=NOW + 0.01)
    clock.observe("not a date", sent=NOW, received=NOW + 0.01)
    assert clock.deadline_correction() == 0.0


def test_clocks_in_step_are_not_corrected() -> None:
    clock = UpstreamClock()
    for step in range(20):  # answers across many seconds, the upstream's clock the same as the node's
        answered(clock, NOW + step * 0.37 + 0.01, sent=NOW + step * 0.37)
    assert clock.deadline_correction() == 0.0


def test_an_upstream_ahead_moves_the_deadline_by_the_lower_bound_approaching_the_difference() -> None:
    clock = UpstreamClock()
    ahead = 1.5
    # One answer: its Date is rounded down to the second, so it proves only part of the difference.
    answered(clock, NOW + 0.3 + ahead, sent=NOW + 0.3)
    first = clock.deadline_correction()
    assert MARGIN_SECONDS < first <= ahead
    # Answers over a few seconds: one made just after the upstream's second ticked over proves nearly all of it.
    for step in range(1, 40):
        sent = NOW + 0.3 + step * 0.13
        answered(clock, sent + 0.01 + ahead, sent=sent)
    assert ahead - 0.05 <= clock.deadline_correction() <= ahead  # never more than the difference


def test_an_upstream_behind_is_not_corrected(caplog: pytest.LogCaptureFixture) -> None:
    clock = UpstreamClock()
    with caplog.at_level(logging.WARNING):
        for step in range(20):
            sent = NOW + step * 0.37
            answered(clock, sent - 3, sent=sent)
    assert clock.deadline_correction() == 0.0  # moving it could only cut the calls short
    (line,) = [r for r in caplog.records if r.name == "prerender.gateway.upstream_clock"]
    assert "behind" in line.getMessage()


def test_one_warning_a_window_and_a_clock_set_right_is_forgotten(caplog: pytest.LogCaptureFixture) -> None:
    monotonic = FakeClock()
    clock = UpstreamClock(window=600, monotonic=monotonic)
    with caplog.at_level(logging.WARNING):
        for step in range(30):
            sent = NOW + step * 0.13
            answered(clock, sent + 2, sent=sent)
    assert clock.deadline_correction() > 1.5
    assert len([r for r in caplog.records if "ahead" in r.getMessage()]) == 1
    # The upstream's clock is set right: its answers contradict the window's bounds, which start again at once.
    later = NOW + 100
    for step in range(30):
        sent = later + step * 0.13
        answered(clock, sent + 0.01, sent=sent)
    assert clock.deadline_correction() == 0.0
    # Two windows on, nothing of the old difference is left either way.
    monotonic.now += 1300
    assert clock.deadline_correction() == 0.0

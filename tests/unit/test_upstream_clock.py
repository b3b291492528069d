"""The upstream's clock learnt from the Date of its answers (prerender/gateway/upstream_clock.py): the bounds each
answer gives, the deadline moved only when the upstream is surely ahead (by the lower bound, never more), windows
that forget a clock set right, and one warning a window."""

from __future__ import annotations

import logging
import time

import pytest
from werkzeug.http import http_date

from prerender.gateway.upstream_clock import AGREEING_ANSWERS, MAX_CORRECTION_SECONDS, UpstreamClock
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
    # A few answers: not settled yet, nothing moved.
    for step in range(AGREEING_ANSWERS - 1):
        sent = NOW + 0.3 + step * 0.13
        answered(clock, sent + 0.01 + ahead, sent=sent)
    assert clock.deadline_correction() == 0.0
    # Answers over a few seconds: one made just after the upstream's second ticked over proves nearly all of it
    # (a Date is rounded down to the second: one answer alone proves only part of the difference).
    for step in range(AGREEING_ANSWERS - 1, 40):
        sent = NOW + 0.3 + step * 0.13
        answered(clock, sent + 0.01 + ahead, sent=sent)
    assert ahead - 0.05 <= clock.deadline_correction() <= ahead  # never more than the difference


def test_hosts_of_different_clocks_behind_one_address_move_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """A load balancer's hosts, one 2 s ahead and one in step: their answers contradict each other, so no deadline
    is moved (moving one meant for the host ahead would let the other finish a write after prerender gave up)."""
    clock = UpstreamClock()
    with caplog.at_level(logging.WARNING):
        for step in range(60):
            sent = NOW + step * 0.13
            answered(clock, sent + 0.01 + (2 if step % 2 else 0), sent=sent)
            assert clock.deadline_correction() == 0.0
    (line,) = [r for r in caplog.records if r.name == "prerender.gateway.upstream_clock"]
    assert "contradicting" in line.getMessage()


def test_a_date_in_asctime_form_is_read_in_utc_whatever_the_nodes_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        clock = UpstreamClock()
        sent = 784_111_777.0  # Sun Nov  6 08:49:37 1994 UTC, HTTP's own example
        for step in range(AGREEING_ANSWERS + 5):
            clock.observe("Sun Nov  6 08:49:37 1994", sent=sent + 0.3 + step * 0.01, received=sent + 0.31 + step * 0.01)
        assert clock.deadline_correction() == 0.0  # in step, not five hours ahead
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_the_correction_is_bounded() -> None:
    clock = UpstreamClock()
    for step in range(AGREEING_ANSWERS + 5):
        sent = NOW + step * 0.13
        answered(clock, sent + 3600, sent=sent)
    assert clock.deadline_correction() == MAX_CORRECTION_SECONDS


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

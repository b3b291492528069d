"""What a circuit breaker tells the on-call (prerender/gateway/breaker.py): one log line per change of state, with
why it opened, and the end of its cooldown reported when it comes, whether or not anything calls the resource (the
state gauge of an idle resource said "open" long after its upstream was back)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from prerender.gateway.breaker import CLOSED, HALF_OPEN, OPEN, BreakerPolicy, CircuitBreaker
from prerender.gateway.errors import CircuitOpen
from tests.clock import FakeClock


def said(caplog: pytest.LogCaptureFixture, name: str) -> list[tuple[str, str]]:
    """(level, message) of the lines about the breaker `name` (an app breaker of another test may log meanwhile)."""
    return [(r.levelname, r.getMessage()) for r in caplog.records if f"circuit for {name} " in r.getMessage()]


def test_each_change_of_state_is_one_line_and_the_cooldowns_end_comes_uncalled(caplog: pytest.LogCaptureFixture):
    clock, states = FakeClock(), []
    woken: list[tuple[float, Callable[[], None]]] = []
    breaker = CircuitBreaker(
        name="test-suggestions",
        policy=BreakerPolicy(minimum_calls=4, failure_rate=0.5, cooldown=5, probes=2),
        clock=clock,
        on_change=lambda _name, state: states.append(state),
        wake=lambda seconds, callback: woken.append((seconds, callback)),
    )
    caplog.set_level(logging.INFO, logger="prerender.gateway.breaker")
    for failed in (True, False, True, True):
        breaker.record_failure(False) if failed else breaker.record_success(False)
    assert states == [OPEN]
    for _ in range(3):  # refused calls change nothing, and say nothing more
        with pytest.raises(CircuitOpen):
            breaker.allow()
    assert said(caplog, "test-suggestions") == [
        ("WARNING", "circuit for test-suggestions opened (3 of its last 4 calls failed): calls refused for 5 s")
    ]

    assert [seconds for seconds, _ in woken] == [5]
    clock.now += 5
    woken[0][1]()  # the timer's call: no request came
    assert states == [OPEN, HALF_OPEN]
    assert said(caplog, "test-suggestions")[-1] == (
        "INFO",
        "circuit for test-suggestions half-open: the next 2 calls probe it",
    )

    assert breaker.allow() and breaker.allow()
    breaker.record_success(True)
    breaker.record_success(True)
    assert states == [OPEN, HALF_OPEN, CLOSED]
    assert said(caplog, "test-suggestions")[-1] == (
        "WARNING",
        "circuit for test-suggestions closed again: its probes passed",
    )
    assert len(said(caplog, "test-suggestions")) == 3


def test_a_failed_probe_opens_it_again_and_says_so(caplog: pytest.LogCaptureFixture):
    clock = FakeClock()
    woken: list[float] = []
    breaker = CircuitBreaker(
        name="test-recipes",
        policy=BreakerPolicy(minimum_calls=1, cooldown=5, probes=1),
        clock=clock,
        wake=lambda seconds, _callback: woken.append(seconds),
    )
    breaker.record_failure(False)
    clock.now += 5
    caplog.set_level(logging.INFO, logger="prerender.gateway.breaker")
    assert breaker.allow()
    breaker.record_failure(True)
    assert breaker.state == OPEN
    assert (
        said(caplog, "test-recipes")[-1][1] == "circuit for test-recipes opened (a probe failed): calls refused for 5 s"
    )
    assert woken == [5, 5]


def test_a_probe_that_ends_after_its_round_is_no_evidence():
    # Two probes out; the first fails and opens the circuit again; the second's late success must neither close it
    # nor count in the next round (it made the state read half-open while calls were refused).
    clock = FakeClock()
    breaker = CircuitBreaker(name="test-late", policy=BreakerPolicy(minimum_calls=1, cooldown=5, probes=2), clock=clock)
    breaker.record_failure(False)
    clock.now += 5
    assert breaker.allow() and breaker.allow()
    breaker.record_failure(True)
    breaker.record_success(True)  # the other probe, late
    assert breaker.state == OPEN
    with pytest.raises(CircuitOpen):
        breaker.allow()
    clock.now += 5
    assert breaker.allow() and breaker.allow()
    breaker.record_success(True)
    assert breaker.state == HALF_OPEN  # one of this round's two, not two
    breaker.record_success(True)
    assert breaker.state == CLOSED


def test_a_wake_before_the_cooldowns_end_waits_again():
    clock = FakeClock()
    woken: list[tuple[float, Callable[[], None]]] = []
    breaker = CircuitBreaker(
        name="test-early",
        policy=BreakerPolicy(minimum_calls=1, cooldown=5),
        clock=clock,
        wake=lambda seconds, callback: woken.append((seconds, callback)),
    )
    breaker.record_failure(False)
    clock.now += 3
    woken[0][1]()  # early: 2 s are left
    assert breaker.state == OPEN and [seconds for seconds, _ in woken] == [5, 2]

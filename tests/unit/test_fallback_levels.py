"""The level of a request's line about an upstream read it went without, or served from its last good copy
(prerender/gateway/fallbacks.py): a failure is an ERROR (a stale copy a WARNING), but a call that was never made
(shed at the door, refused by an open breaker or a full bulkhead, whose causes are logged once) is INFO, so that
an outage or a spike is a few lines, not one per request."""

from __future__ import annotations

import logging

import pytest

from prerender.gateway import CircuitOpen, Shed, UpstreamStatusError, UpstreamTimeout, UpstreamUnavailable
from prerender.gateway.errors import BudgetSpent, RequestShed
from prerender.gateway.fallbacks import failure_level, stale_level

NOT_MADE = [
    CircuitOpen("suggestions", retry_after=5),
    Shed("suggestions"),
    RequestShed("request shed before POST /suggestions"),
]
FAILED = [
    UpstreamUnavailable("cannot reach the upstream"),
    UpstreamTimeout("no answer within 0.8 s"),
    BudgetSpent("request budget spent before POST /suggestions"),
    UpstreamStatusError(503, {}, "POST /suggestions"),
]


@pytest.mark.parametrize("error", NOT_MADE, ids=lambda error: type(error).__name__)
def test_a_call_not_made_is_said_at_info(error: Exception) -> None:
    assert failure_level(error) == stale_level(error) == logging.INFO


@pytest.mark.parametrize("error", FAILED, ids=lambda error: type(error).__name__)
def test_a_call_that_failed_is_an_error_or_a_stale_copys_warning(error: Exception) -> None:
    assert failure_level(error) == logging.ERROR
    assert stale_level(error) == logging.WARNING

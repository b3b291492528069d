"""A caller's W3C trace through prerender into the real coreapi (plumbing/trace_context.py): prerender logs the
trace with its own span, names that span as the parent of its upstream calls and passes `tracestate` on; coreapi logs
the trace and prerender's span. A header that does not parse is ignored, never refused."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import request, request_started
from flask.testing import FlaskClient

from .conftest import headers

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{CALLER_SPAN}-01"
TRACESTATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
CARD = "/v1/recipe-card?recipe_id=3&store_id=1001"


@contextmanager
def coreapi_requests() -> Iterator[list[dict[str, str]]]:
    """The headers of every request the live coreapi (in this process, on its own thread) receives meanwhile."""
    seen: list[dict[str, str]] = []

    def record(_sender: object, **_extra: object) -> None:
        if request.path.startswith("/api/"):
            seen.append({name.lower(): value for name, value in request.headers.items()})

    with request_started.connected_to(record):
        yield seen


def prerender_line(caplog: pytest.LogCaptureFixture) -> logging.LogRecord:
    (line,) = [record for record in caplog.records if record.name == "prerender.request"]
    return line


def test_the_callers_trace_reaches_coreapi_under_prerenders_span(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), caplog.at_level(logging.INFO, logger="coreapi"), coreapi_requests() as upstream:
        answer = client.get(
            CARD, headers=headers(user="trace-user", traceparent=TRACEPARENT, tracestate=f"{TRACESTATE} ")
        )
    assert answer.status_code == 200
    line = prerender_line(caplog)
    assert (line.trace_id, line.parent_id) == (TRACE_ID, CALLER_SPAN)  # type: ignore[attr-defined]
    ours = line.span_id  # type: ignore[attr-defined]
    assert len(ours) == 16 and ours != CALLER_SPAN
    assert upstream, "the card read nothing from coreapi"
    for received in upstream:
        assert received["traceparent"] == f"00-{TRACE_ID}-{ours}-01"
        assert received["tracestate"] == TRACESTATE
    coreapi_lines = [
        r.getMessage() for r in caplog.records if r.name.startswith("coreapi") and " /api/" in r.getMessage()
    ]
    assert len(coreapi_lines) == len(upstream)
    assert all(text.endswith(f" trace={TRACE_ID} parent={ours}") for text in coreapi_lines), coreapi_lines


@pytest.mark.parametrize(
    "extra",
    [{}, {"traceparent": "00-not-a-trace-01", "tracestate": TRACESTATE}, {"tracestate": TRACESTATE}],
    ids=["none", "malformed", "state-alone"],
)
def test_without_a_valid_traceparent_the_calls_carry_no_trace(
    client: FlaskClient, caplog: pytest.LogCaptureFixture, extra: dict[str, str]
) -> None:
    with caplog.at_level(logging.INFO), coreapi_requests() as upstream:
        answer = client.get(CARD, headers=headers(user="trace-user-2", **extra))
    assert answer.status_code == 200
    assert not hasattr(prerender_line(caplog), "trace_id")
    assert upstream
    assert not [received for received in upstream if "traceparent" in received or "tracestate" in received]

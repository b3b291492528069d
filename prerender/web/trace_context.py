"""Every request's place in its caller's trace (plumbing/trace_context.py): read from `traceparent` and `tracestate`
when the request starts and held for the request in prerender/gateway/trace.py, where the upstream calls made for
it and the request log read it. A request without a valid `traceparent` has no trace; it is never refused for one."""

from __future__ import annotations

from flask import Flask, g, request

from plumbing.trace_context import TRACEPARENT, TRACESTATE, trace_of
from prerender.gateway import trace


def start_trace() -> None:
    """before_request: read the caller's trace, and make it the trace of the request's upstream calls."""
    g.trace_token = trace.start(trace_of(request.headers.getlist(TRACEPARENT), request.headers.getlist(TRACESTATE)))


def end_trace(_error: BaseException | None = None) -> None:
    """teardown_request: calls made after the request (none should be) belong to no trace of it."""
    token = g.pop("trace_token", None)
    if token is not None:
        trace.stop(token)


def register_trace_context(app: Flask) -> None:
    """Attach the trace's hooks to the app."""
    app.before_request(start_trace)
    app.teardown_request(end_trace)

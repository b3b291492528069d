"""Every request's place in its caller's trace (plumbing/trace_context.py): read from `traceparent` and `tracestate`
when the request starts, written in the request log, and named by the upstream calls made for it
(prerender/gateway/trace.py). A request without a valid `traceparent` has no trace; it is never refused for one."""

from __future__ import annotations

from flask import Flask, g, request

from plumbing.trace_context import TRACEPARENT, TRACESTATE, TraceContext, trace_of
from prerender.gateway import trace


def request_trace() -> TraceContext | None:
    """The current request's trace, None without one."""
    found: TraceContext | None = g.get("trace")
    return found


def start_trace() -> None:
    """before_request: read the caller's trace, and make it the trace of the request's upstream calls."""
    g.trace = trace_of(request.headers.getlist(TRACEPARENT), request.headers.getlist(TRACESTATE))
    g.trace_token = trace.start(g.trace)


def end_trace(_error: BaseException | None = None) -> None:
    """teardown_request: calls made after the request (none should be) belong to no trace of it."""
    token = g.pop("trace_token", None)
    if token is not None:
        trace.stop(token)


def register_trace_context(app: Flask) -> None:
    """Attach the trace's hooks to the app."""
    app.before_request(start_trace)
    app.teardown_request(end_trace)

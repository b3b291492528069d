"""The trace the current request belongs to (plumbing/trace_context.py), for the upstream calls made for it.

The request's hooks start it (prerender/web/trace_context.py); every call made for the request, on its own thread or
on the gateway's pool (`ConcurrentCalls.start` copies the context), names prerender's span as its parent
(`traceparent`) and passes the caller's `tracestate` on. Without a trace, calls carry neither header.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

from plumbing.trace_context import TraceContext

_trace: ContextVar[TraceContext | None] = ContextVar("prerender_trace", default=None)


def start(trace: TraceContext | None) -> Token[TraceContext | None]:
    """The current context's calls belong to `trace` (None: to none); `stop` with the returned token."""
    return _trace.set(trace)


def stop(token: Token[TraceContext | None]) -> None:
    """End what `start` began."""
    _trace.reset(token)


def current() -> TraceContext | None:
    """The current context's trace, None outside one (the request log names it)."""
    return _trace.get()


def outgoing_headers() -> dict[str, str]:
    """The trace headers of an upstream call made now: none outside a trace."""
    trace = _trace.get()
    return {} if trace is None else trace.outgoing_headers()

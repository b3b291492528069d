"""How long a request waited before this worker began it, from the front's arrival time (`X-Request-Start`).

Under CPU saturation a request waits before prerender reads it: in the socket, until the worker's loop comes back
to its connection. The upstream budget (prerender/web/upstream_budget.py) starts when the request is read, so a
fragment answered after its budget in the worker could be late by the whole wait. The shipped nginx
(deploy/nginx/prerender.conf) stamps each request with its arrival, `X-Request-Start: t=<$msec>` (epoch seconds,
milliseconds resolution), replacing any client's. With `TRUST_REQUEST_START` on, the wait counts against the
budget, and a request whose budget went by in the queue is shed at the door (prerender/web/admission.py).

Off by default: without a front that sets the header, a client's own would shorten its own budget (harmless, but
meaningless), and a front on another machine needs its clock kept in step with this one.
"""

from __future__ import annotations

import time

from flask import current_app, g, request

REQUEST_START_HEADER = "X-Request-Start"
# A wait longer than this is no queue but a clock out of step, or a made-up stamp: ignored.
MAX_BELIEVED_SECONDS = 60.0
# An epoch time stamp in seconds is about 1.7e9 today; in milliseconds 1.7e12, in microseconds 1.7e15 (other fronts
# send those, without a fraction).
_MILLISECONDS_FROM = 1e11
_MICROSECONDS_FROM = 1e14


def arrival_of(value: str) -> float | None:
    """The epoch seconds of an `X-Request-Start` value (`t=1700000000.123`, or bare; seconds, milliseconds or
    microseconds), None when it is not one."""
    text = value.strip().removeprefix("t=")
    try:
        stamp = float(text)
    except ValueError:
        return None
    if not stamp > 0 or stamp == float("inf"):
        return None
    if stamp >= _MICROSECONDS_FROM:
        return stamp / 1e6
    if stamp >= _MILLISECONDS_FROM:
        return stamp / 1e3
    return stamp


def measured_queue_seconds() -> float | None:
    """What `queued_seconds` measured for the current request, None when nothing asked (a route without a
    declaration): for the request's log line, which measures nothing itself."""
    measured: float | None = g.get("queued_seconds")
    return measured


def queued_seconds() -> float:
    """Seconds the current request waited between the front and this worker: 0 unless TRUST_REQUEST_START is on and
    the front stamped it believably (measured once per request)."""
    if "queued_seconds" not in g:
        g.queued_seconds = _measure()
    return float(g.queued_seconds)


def _measure() -> float:
    if not current_app.config["TRUST_REQUEST_START"]:
        return 0.0
    value = request.headers.get(REQUEST_START_HEADER)
    arrival = None if value is None else arrival_of(value)
    if arrival is None:
        return 0.0
    waited = time.time() - arrival
    return waited if 0.0 < waited <= MAX_BELIEVED_SECONDS else 0.0

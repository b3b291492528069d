"""The W3C Trace Context headers (`traceparent`, `tracestate`) a caller may send, read and passed on.

A retailer's server instrumented with OpenTelemetry, or a browser tag that traces a page's requests, sends a
`traceparent` naming its trace and the span that made the call. A service keeps the trace id, names a span of its
own as the parent of the calls it makes, and passes `tracestate` on unchanged (it adds no entry of its own), so that
the calls of one shopper's page can be followed through prerender into coreapi, each line of their logs naming the
trace. A header that does not parse is ignored, as the recommendation says, never refused: the request goes on
without a trace.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, replace

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"

# version "-" trace-id "-" parent-id "-" trace-flags, lower-case hex. A later version may append fields after a
# "-": its first four are read the same way (the recommendation's rule for versions it does not know).
_TRACEPARENT = re.compile(
    r"(?P<version>[0-9a-f]{2})-(?P<trace_id>[0-9a-f]{32})-(?P<parent_id>[0-9a-f]{16})-(?P<flags>[0-9a-f]{2})"
)
_TRACEPARENT_LENGTH = 55
# A tracestate entry: a key (simple, or tenant@system) "=" a value of printable characters but "," and "=", not ending
# in a space.
_TRACESTATE_ENTRY = re.compile(
    r"(?:[a-z][a-z0-9_*/-]{0,255}|[a-z0-9][a-z0-9_*/-]{0,240}@[a-z][a-z0-9_*/-]{0,13})"
    r"=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
)
TRACESTATE_MAX_ENTRIES = 32
# What is passed on of a longer tracestate: the length every participant must pass on, reached as the recommendation
# says, by leaving out the entries longer than TRACESTATE_LONG_ENTRY first, then entries from the end.
TRACESTATE_MAX_LENGTH = 512
TRACESTATE_LONG_ENTRY = 128
# The flags passed on: sampled (01) and random trace id (02); any other bit is not known and not passed on.
_KNOWN_FLAGS = 0x03


@dataclass(frozen=True)
class TraceContext:
    """A request's place in a trace: the trace, the caller's span (`parent_id`) and this service's own (`span_id`),
    which the calls it makes name as their parent."""

    trace_id: str
    parent_id: str
    span_id: str
    flags: str
    state: str | None = None

    def outgoing_headers(self) -> dict[str, str]:
        """The headers of a call this service makes within the trace: its own span as the parent."""
        headers = {TRACEPARENT: f"00-{self.trace_id}-{self.span_id}-{self.flags}"}
        if self.state:
            headers[TRACESTATE] = self.state
        return headers


def new_span_id() -> str:
    """A random span id (16 hex digits, never all zeros)."""
    while True:
        span_id = secrets.token_hex(8)
        if span_id.strip("0"):
            return span_id


def parse_traceparent(values: list[str]) -> TraceContext | None:
    """The trace a request's `traceparent` header(s) name, with a new span id for this service; None when there is
    none, more than one, or one that does not parse (version ff, a trace or parent id of zeros, a version 00 value
    with anything after it)."""
    if len(values) != 1:
        return None
    value = values[0].strip(" \t")
    match = _TRACEPARENT.match(value)
    if match is None or match["version"] == "ff":
        return None
    if len(value) != _TRACEPARENT_LENGTH and (match["version"] == "00" or value[_TRACEPARENT_LENGTH] != "-"):
        return None
    if not match["trace_id"].strip("0") or not match["parent_id"].strip("0"):
        return None
    flags = f"{int(match['flags'], 16) & _KNOWN_FLAGS:02x}"
    return TraceContext(trace_id=match["trace_id"], parent_id=match["parent_id"], span_id=new_span_id(), flags=flags)


def parse_tracestate(values: list[str]) -> str | None:
    """The `tracestate` to pass on: the header's entries (several headers are one list), within
    TRACESTATE_MAX_LENGTH (the long entries left out first, then entries from the end); None when it is absent,
    empty, or not a valid list (more than 32 entries, a malformed entry, a key twice)."""
    entries = [entry.strip(" \t") for value in values for entry in value.split(",")]
    entries = [entry for entry in entries if entry]
    if not entries or len(entries) > TRACESTATE_MAX_ENTRIES:
        return None
    if any(_TRACESTATE_ENTRY.fullmatch(entry) is None for entry in entries):
        return None
    keys = [entry.split("=", 1)[0] for entry in entries]
    if len(set(keys)) != len(keys):
        return None
    if len(",".join(entries)) > TRACESTATE_MAX_LENGTH:
        entries = [entry for entry in entries if len(entry) <= TRACESTATE_LONG_ENTRY]
    while len(",".join(entries)) > TRACESTATE_MAX_LENGTH:
        entries.pop()
    return ",".join(entries) or None


def trace_of(traceparent: list[str], tracestate: list[str]) -> TraceContext | None:
    """A request's trace from its headers' values (each header's every value, as received); its `tracestate` is read
    only with a valid `traceparent`."""
    trace = parse_traceparent(traceparent)
    if trace is None:
        return None
    return replace(trace, state=parse_tracestate(tracestate))

"""The W3C Trace Context headers as plumbing/trace_context.py reads them: what is kept, what is passed on, and what
is ignored (never refused)."""

from __future__ import annotations

import pytest

from plumbing.trace_context import (
    TRACESTATE_MAX_LENGTH,
    TraceContext,
    new_span_id,
    parse_traceparent,
    parse_tracestate,
    trace_of,
)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
VALID = f"00-{TRACE_ID}-{PARENT_ID}-01"


def test_a_valid_traceparent_names_the_trace_the_callers_span_and_a_new_span_of_ours() -> None:
    trace = parse_traceparent([VALID])
    assert trace is not None
    assert (trace.trace_id, trace.parent_id, trace.flags) == (TRACE_ID, PARENT_ID, "01")
    assert len(trace.span_id) == 16 and trace.span_id != PARENT_ID
    assert trace.outgoing_headers() == {"traceparent": f"00-{TRACE_ID}-{trace.span_id}-01"}


@pytest.mark.parametrize(
    "value",
    [
        "",
        VALID.upper(),  # lower-case hex only
        f"ff-{TRACE_ID}-{PARENT_ID}-01",  # version ff is never valid
        f"00-{'0' * 32}-{PARENT_ID}-01",  # a trace id of zeros
        f"00-{TRACE_ID}-{'0' * 16}-01",  # a parent id of zeros
        f"{VALID}-extra",  # version 00 has exactly four fields
        f"00-{TRACE_ID[:-1]}-{PARENT_ID}-01",
        f"00-{TRACE_ID}-{PARENT_ID}-1",
        f"0g-{TRACE_ID}-{PARENT_ID}-01",
        f"01-{TRACE_ID}-{PARENT_ID}-01x",  # a later version's extra fields start with "-"
        f"00_{TRACE_ID}_{PARENT_ID}_01",
    ],
)
def test_a_traceparent_that_does_not_parse_is_no_trace(value: str) -> None:
    assert parse_traceparent([value]) is None


def test_two_traceparent_headers_are_no_trace() -> None:
    assert parse_traceparent([VALID, VALID]) is None
    assert parse_traceparent([]) is None


def test_a_later_version_is_read_by_its_first_four_fields_and_passed_on_as_version_00() -> None:
    trace = parse_traceparent([f"cc-{TRACE_ID}-{PARENT_ID}-01-what-comes-next"])
    assert trace is not None and trace.trace_id == TRACE_ID
    assert trace.outgoing_headers()["traceparent"].startswith(f"00-{TRACE_ID}-")


@pytest.mark.parametrize(("given", "passed"), [("01", "01"), ("00", "00"), ("03", "03"), ("ff", "03"), ("08", "00")])
def test_only_the_known_flags_are_passed_on(given: str, passed: str) -> None:
    trace = parse_traceparent([f"00-{TRACE_ID}-{PARENT_ID}-{given}"])
    assert trace is not None and trace.flags == passed


def test_blanks_around_the_value_are_not_part_of_it() -> None:
    assert parse_traceparent([f" {VALID}\t"]) is not None


def test_tracestate_is_passed_on_as_one_list_of_its_headers_entries() -> None:
    assert (
        parse_tracestate(["rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE, ,"]) == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
    )
    assert parse_tracestate(["tenant1@vendor=a b c"]) == "tenant1@vendor=a b c"


@pytest.mark.parametrize(
    "values",
    [
        [],
        [""],
        ["Rojo=1"],  # keys are lower case
        ["rojo"],  # no value
        ["rojo=a,rojo=b"],  # a key twice
        ["rojo=caf\u00e9"],  # printable ASCII only
        ["rojo=a=b"],
        [",".join(f"k{n}=v" for n in range(33))],  # 32 entries at most
    ],
)
def test_a_tracestate_that_is_not_a_valid_list_is_not_passed_on(values: list[str]) -> None:
    assert parse_tracestate(values) is None


def test_a_long_tracestate_loses_its_long_entries_first_then_entries_from_the_end() -> None:
    """The recommendation's order: entries over 128 characters first, then from the end."""
    long = f"big={'v' * 200}"
    entries = ["a=1", long, *(f"k{n}={'v' * 100}" for n in range(5))]
    kept = parse_tracestate([",".join(entries)])
    assert kept is not None and len(kept) <= TRACESTATE_MAX_LENGTH
    assert kept == ",".join(["a=1", *entries[2:6]])  # the long one out, then the last one
    assert parse_tracestate([f"a=1,{long},b=2"]) == f"a=1,{long},b=2"  # within the length: kept whole


def test_tracestate_is_read_only_with_a_valid_traceparent() -> None:
    assert trace_of(["not a traceparent"], ["rojo=1"]) is None
    trace = trace_of([VALID], ["rojo=1"])
    assert isinstance(trace, TraceContext) and trace.state == "rojo=1"
    assert trace.outgoing_headers()["tracestate"] == "rojo=1"


def test_span_ids_are_new_each_time() -> None:
    assert len({new_span_id() for _ in range(50)}) == 50

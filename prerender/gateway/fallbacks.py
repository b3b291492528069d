"""What the current block had to do without, because the upstream failed: reads answered with their last good copy
(`served_stale`), and parts the page left out or showed as unavailable (`went_without`).

The read cache (prerender/gateway/read_cache.py), the recipes' and suggestions' batch reads note each stale copy
they serve; the renderers note each part they go without (the catalog's categories, a CTA's store list...). A
fragment route renders inside `recording()` and marks its answer degraded by what it finds (prerender/web/
fragment_response.py). Calls made on the gateway's pool see the same record (`ConcurrentCalls.start` copies the
context, and the record is one object shared by the copies).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class Fallbacks:
    """What one block did without: the reads served stale, and the parts left out ("recipe", "categories"...)."""

    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


# The record of the current block, or None outside one.
_current: ContextVar[Fallbacks | None] = ContextVar("prerender_fallbacks", default=None)


@contextmanager
def recording() -> Iterator[Fallbacks]:
    """Run the block with a fresh record, which the block's reads and renderers fill."""
    record = Fallbacks()
    token = _current.set(record)
    try:
        yield record
    finally:
        _current.reset(token)


def served_stale(what: str) -> None:
    """A read was answered with its last good copy (nothing recorded outside a recording block)."""
    record = _current.get()
    if record is not None:
        record.stale.append(what)


def went_without(what: str) -> None:
    """A part of the page was left out, or shown as unavailable, because the upstream failed."""
    record = _current.get()
    if record is not None:
        record.missing.append(what)

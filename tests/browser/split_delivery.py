"""The browser tests' page delivered in two parts, cut right before a marker (the forwarder itself:
bench/split_delivery.py). Chromium may paint the part it has parsed before the rest arrives, which is how a layout
that places a later element above an earlier one shifts (tests/browser/test_publisher.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bench.split_delivery import split_forwarder


@contextmanager
def split_delivery(
    site_url: str, *, before: str, pause: float = 0.8, release: threading.Event | None = None
) -> Iterator[str]:
    """The address of a forwarder to `site_url` whose HTML pages stop right before the first occurrence of
    `before` for `pause` seconds, or, given `release`, until the test sets it (every other answer comes whole).
    A forwarder that cut no page fails the test when it closes: a page that no longer holds `before` would
    otherwise be tested delivered whole."""
    marker = before.encode()
    forwarder = split_forwarder(site_url, cut=lambda _path, body: body.find(marker), pause=pause, release=release)
    with forwarder as (url, cuts):
        yield url
    assert cuts, f"no page of {site_url} held {before!r}: every page came whole"

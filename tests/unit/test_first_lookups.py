"""Lookups of supplier-tokens never seen valid (prerender/gateway/suppliers.py, `FirstLookups`): anyone may make
one up per request, so they are few at once per worker, and the requests of one token wait for its one lookup."""

from __future__ import annotations

import threading

import pytest

from prerender.gateway import Refused, Supplier
from prerender.gateway.suppliers import FirstLookups

ACME = Supplier(id="1", name="Acme", kind="retailer", personalization=True, affiliated_supplier_id=None)


def test_past_the_limit_a_new_token_is_refused_unsent() -> None:
    lookups = FirstLookups(limit=1)
    started, release = threading.Event(), threading.Event()

    def slow() -> Supplier | None:
        started.set()
        release.wait(5)
        return ACME

    first = threading.Thread(target=lambda: lookups.run("a", slow, answer=lambda: None))
    first.start()
    started.wait(5)
    sent: list[str] = []
    with pytest.raises(Refused):
        lookups.run("b", lambda: sent.append("b") or ACME, answer=lambda: None)
    assert sent == []
    release.set()
    first.join(5)
    assert lookups.run("b", lambda: ACME, answer=lambda: None) == ACME  # its place is free again


def test_the_requests_of_one_token_wait_for_its_one_lookup() -> None:
    lookups = FirstLookups(limit=1)
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []
    cache: dict[str, tuple[Supplier | None]] = {}

    def lookup() -> Supplier | None:
        calls.append("a")
        started.set()
        release.wait(5)
        cache["a"] = (ACME,)
        return ACME

    found_in_flight = threading.Event()

    class Watched(dict):
        """The lookups in flight, saying when a second request found the first's."""

        def get(self, key, default=None):
            value = super().get(key, default)
            if value is not None:
                found_in_flight.set()
            return value

    lookups._in_flight = Watched()
    results: list[Supplier | None] = []
    first = threading.Thread(target=lambda: results.append(lookups.run("a", lookup, answer=lambda: cache.get("a"))))
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: results.append(lookups.run("a", lookup, answer=lambda: cache.get("a"))))
    second.start()
    assert found_in_flight.wait(5)
    release.set()
    first.join(5)
    second.join(5)
    assert calls == ["a"] and results == [ACME, ACME]

"""The demo shop's per-thread sessions (examples/shop/sessions.py)."""

from __future__ import annotations

import os
import threading

import pytest
import requests

from examples.shop.sessions import ThreadLocalSessions, pooled_session


def counting_factory() -> tuple[list[requests.Session], ThreadLocalSessions]:
    made: list[requests.Session] = []

    def factory() -> requests.Session:
        made.append(requests.Session())
        return made[-1]

    return made, ThreadLocalSessions(factory=factory)


def test_a_session_is_made_on_first_use_and_kept_for_the_thread() -> None:
    made, sessions = counting_factory()
    assert made == []
    assert sessions.get() is sessions.get() is made[0]
    assert len(made) == 1


def test_each_thread_gets_its_own_session() -> None:
    made, sessions = counting_factory()
    mine = sessions.get()
    theirs: list[requests.Session] = []
    worker = threading.Thread(target=lambda: theirs.append(sessions.get()))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and len(made) == 2


def test_a_forked_process_makes_its_own_session(monkeypatch: pytest.MonkeyPatch) -> None:
    made, sessions = counting_factory()
    before = sessions.get()
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # the forking thread's locals survive in the child
    after = sessions.get()
    assert after is not before and sessions.get() is after and len(made) == 2


def test_pooled_sessions_never_retry() -> None:
    adapter = pooled_session(pool_size=3).get_adapter("https://shop.test")
    assert adapter.max_retries.total == 0 and adapter.poolmanager.connection_pool_kw["maxsize"] == 3


def test_the_shop_clients_have_one_session_per_thread() -> None:
    from examples.shop.catalog_client import CatalogClient
    from examples.shop.prerender_client import PrerenderClient

    for client in (CatalogClient("http://catalog.test"), PrerenderClient("http://prerender.test", "token")):
        mine = client.session
        theirs: list[requests.Session] = []
        worker = threading.Thread(target=lambda c=client, found=theirs: found.append(c.session))
        worker.start()
        worker.join()
        assert client.session is mine and theirs[0] is not mine

"""The per-thread sessions of the gateway (prerender/gateway/sessions.py) and of the demo shop
(examples/shop/sessions.py, its own copy: the shop imports nothing from prerender). Both keep the same
promises, so the same tests run on both."""

from __future__ import annotations

import os
import threading

import pytest
import requests

from examples.shop import sessions as shop_sessions
from examples.shop.catalog_client import CatalogClient
from examples.shop.prerender_client import PrerenderClient
from prerender.gateway import sessions as gateway_sessions

HELPERS = [gateway_sessions.ThreadLocalSessions, shop_sessions.ThreadLocalSessions]
Sessions = gateway_sessions.ThreadLocalSessions | shop_sessions.ThreadLocalSessions


@pytest.fixture(params=HELPERS, ids=["gateway", "shop"])
def counting(request: pytest.FixtureRequest) -> tuple[list[requests.Session], Sessions]:
    """A helper whose factory counts the sessions it makes."""
    made: list[requests.Session] = []

    def factory() -> requests.Session:
        made.append(requests.Session())
        return made[-1]

    return made, request.param(factory=factory)


def test_a_session_is_made_on_first_use_and_kept_for_the_thread(counting) -> None:
    made, sessions = counting
    assert made == []
    assert sessions.get() is sessions.get() is made[0]
    assert len(made) == 1


def test_each_thread_gets_its_own_session(counting) -> None:
    made, sessions = counting
    mine = sessions.get()
    theirs: list[requests.Session] = []
    worker = threading.Thread(target=lambda: theirs.append(sessions.get()))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and len(made) == 2


def test_a_forked_process_makes_its_own_session(counting, monkeypatch: pytest.MonkeyPatch) -> None:
    made, sessions = counting
    before = sessions.get()
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # the forking thread's locals survive in the child
    after = sessions.get()
    assert after is not before and sessions.get() is after and len(made) == 2


def test_the_shops_pooled_sessions_never_retry() -> None:
    adapter = shop_sessions.pooled_session(pool_size=3).get_adapter("https://shop.test")
    assert adapter.max_retries.total == 0 and adapter.poolmanager.connection_pool_kw["maxsize"] == 3


@pytest.mark.parametrize(
    "client", [CatalogClient("http://catalog.test"), PrerenderClient("http://prerender.test", "t")]
)
def test_the_shop_clients_have_one_session_per_thread(client: CatalogClient | PrerenderClient) -> None:
    mine = client.session
    theirs: list[requests.Session] = []
    worker = threading.Thread(target=lambda: theirs.append(client.session))
    worker.start()
    worker.join()
    assert client.session is mine and theirs[0] is not mine

"""The demo shop's own HTTP sessions (examples/shop/sessions.py): pooled without retries, one per thread."""

from __future__ import annotations

import threading

import pytest
import requests

from examples.shop import sessions as shop_sessions
from examples.shop.catalog_client import CatalogClient
from examples.shop.prerender_client import PrerenderClient


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

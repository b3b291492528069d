"""prerender under gunicorn's shipped worker class (gunicorn.conf.py: gevent) keeps what it relies on per
process: the upstream pool reads a shopper's preferences while the recipes load (prerender/rendering/catalog.py), the
circuit breaker opens on a dead upstream (prerender/gateway/breaker.py, tenant_breakers.py), and /metrics adds up
every worker's samples (PROMETHEUS_MULTIPROC_DIR, prerender/metrics.py)."""

from __future__ import annotations

import re
import signal
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bench import proxy
from tests.conftest import closed_port
from tests.live import Stack

from .conftest import GunicornPrerender
from .slow_clients import DEMO_HEADERS

DELAY = 0.4  # seconds the forwarder waits before each upstream call
BREAKER = "prerender_circuit_breaker_state"
TENANTS_OPEN = "prerender_circuit_breaker_tenants_open"
RELOAD_SECONDS = 30  # a bound on waiting for a reload's new workers, not a measurement


@pytest.fixture(scope="module")
def delayed_upstream(coreapi_url: str) -> Iterator[str]:
    """coreapi behind bench/proxy.py's forwarder, which waits DELAY before every call."""
    proxy.State.target = urllib.parse.urlsplit(coreapi_url)
    proxy.State.delay_seconds = DELAY
    server = proxy.Server(("127.0.0.1", 0), proxy.Forwarder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    proxy.State.delay_seconds = 0.0


def card(url: str, serves: int, recipe_id: int = 5) -> requests.Response:
    """README.md's card for a connected user; a new `serves` misses prerender's recipe cache."""
    path = f"/v1/recipe-card?recipe_id={recipe_id}&store_id=1001&serves={serves}"
    return requests.get(url + path, headers=DEMO_HEADERS, timeout=10)


def catalog_list(url: str, user: str, guests: int) -> requests.Response:
    """A shopper's catalog list at the personalized retailer (its recipes follow the shopper's preferences)."""
    headers = {**DEMO_HEADERS, "authorization": f"user_id {user}"}
    return requests.get(f"{url}/v2/catalog/list?store_id=1001&guests={guests}", headers=headers, timeout=20)


def test_the_preferences_load_while_the_recipes_load(delayed_upstream: str, stack: Stack, tmp_path: Path):
    """A catalog page reads the shopper's preferences and the page of recipes through the upstream pool at once
    (prerender/rendering/catalog.py, `start_preferences`), also under the shipped gevent workers: the forwarder,
    which holds each call DELAY, sees both in flight together, where one after the other it would see one at a
    time (read from the forwarder, not from a clock: the machine's speed does not matter). One worker: its cache
    then holds the supplier and the preference options after the first page."""
    with GunicornPrerender(tmp_path, delayed_upstream, stack, workers=1) as server:
        assert catalog_list(server.url, "worker-class-warm-up", 2).status_code == 200
        for guests in (3, 4, 5):
            with proxy.State.lock:
                proxy.State.peak_in_flight = 0
            response = catalog_list(server.url, f"worker-class-{guests}", guests)  # a new shopper, a new page
            assert response.status_code == 200 and response.content.strip()
            assert proxy.State.peak_in_flight >= 2, "the preferences waited for the recipes"


def metric(text: str, name: str, **labels: str) -> float:
    """The sum of a metric's samples whose labels include these."""
    total = 0.0
    for line in text.splitlines():
        match = re.fullmatch(rf"{name}(?:\{{(.*)\}})? (\S+)", line)
        if match and all(f'{key}="{value}"' in (match.group(1) or "") for key, value in labels.items()):
            total += float(match.group(2))
    return total


def test_the_breaker_opens_and_metrics_add_up_over_workers(stack: Stack, tmp_path: Path):
    dead = f"http://127.0.0.1:{closed_port()}"
    with GunicornPrerender(tmp_path, dead, stack) as server:
        # 80 cards: each worker's breakers judge once they know 20 calls (PRERENDER_UPSTREAM_BREAKER_MINIMUM_CALLS).
        answers = [card(server.url, serves, recipe_id) for recipe_id in (5, 6) for serves in range(2, 42)]
        assert all(answer.status_code == 200 and not answer.content.strip() for answer in answers)
        text = requests.get(server.url + "/metrics", timeout=10).text
        workers_counted = {path.name for path in server.metrics_dir.glob("counter_*.db")}
        # Every card is made for one tenant (the supplier lookup failed too: no supplier), so it is that tenant's
        # breaker of the recipes that opened (the most of the workers), as the resource's one breaker did before
        # retailers had their own; the shared one, which counts only the failures of two tenants or more, stayed
        # closed (docs/decisions.md, "One retailer's failures open its own breakers"). The baskets', never called,
        # are closed.
        assert metric(text, TENANTS_OPEN, resource="recipes") == 1
        assert metric(text, BREAKER, resource="recipes") == 0
        assert metric(text, TENANTS_OPEN, resource="baskets") == 0
        # A reload replaces the workers: their open breakers go with them (gunicorn.conf.py, child_exit), where the
        # gauge kept the dead workers' values until a restart, an alert that never cleared.
        assert server.process is not None
        server.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + RELOAD_SECONDS
        while metric(
            breakers := requests.get(server.url + "/metrics", timeout=10).text, TENANTS_OPEN, resource="recipes"
        ):
            assert time.monotonic() < deadline, f"the dead workers' open breakers are still reported: {breakers}"
            time.sleep(0.2)
    assert metric(text, "prerender_upstream_calls_total", outcome="circuit_open") > 0
    # Each worker writes its own samples; every card was counted, whichever worker answered it.
    assert len(workers_counted) == 2, workers_counted
    assert metric(text, "prerender_requests_total", endpoint="v1.recipe_card.get_card") == len(answers)

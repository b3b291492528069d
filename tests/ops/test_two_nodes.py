"""Two prerender nodes behind one nginx, as deploy/nginx/prerender.conf ships them (two `server` lines,
proxy_next_upstream): both under gunicorn with gunicorn.conf.py, sharing one Redis and the signing keys.

A credential one node issued verifies on the other; one node killed (SIGKILL, master and workers) under load
loses no GET it had not begun to answer (one whose answer it was sending is cut short: nginx has passed its
headers on and cannot start it again elsewhere); the browser's writes, resent with their Idempotency-Key after an
unknown outcome as the SDK does (prerender/static/sdk/http.js), all end done, each once. And a graceful reload
(SIGHUP to gunicorn's master) under load loses no request at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from bs4 import BeautifulSoup

from bench.nginx import NginxFront
from bench.stack import worker_pids
from tests.databases import RedisNamespace, Unreachable
from tests.live import TEST_BUDGETS, Stack

from .conftest import GunicornPrerender
from .slow_clients import DEMO_HEADERS

pytestmark = pytest.mark.nginx

TIMEOUT = 10
SIGNING_KEY = "two-nodes-signing-key-" + "n" * 32
# The SDK's unknown outcomes (prerender/static/sdk/http.js, OUTCOME_UNKNOWN): resent with the same key.
OUTCOME_UNKNOWN = {502, 503, 504}
# What requests raises for an answer whose body ends before its length or last chunk: a GET the killed node was
# answering at the instant it died.
CUT_SHORT = "ChunkedEncodingError"
CARD = "/v1/recipe-card?recipe_id={recipe}&store_id=1001"
# The tests' budgets (tests/live.py) as the nodes' settings.
ROOMY_BUDGETS = {f"PRERENDER_{name}": str(value) for name, value in TEST_BUDGETS.items()}


@pytest.fixture
def two_nodes(coreapi_url: str, stack: Stack, tmp_path: Path) -> Iterator[tuple[GunicornPrerender, GunicornPrerender]]:
    """Two prerender nodes of one deployment, one worker each: the same cache in Redis, the same signing keys."""
    try:
        redis = RedisNamespace()
    except Unreachable as error:
        # The test Redis is one of the machine's services (README.md, .ci/run); without it there is no shared cache.
        pytest.skip(f"two nodes share one Redis, as in production, and none answers: {error}")
    cache = redis.cache_config("nodes")
    environ = {
        "PRERENDER_CACHE_REDIS_URL": cache["CACHE_REDIS_URL"],
        "PRERENDER_CACHE_KEY_PREFIX": cache["CACHE_KEY_PREFIX"],
        "PRERENDER_SECRET_KEYS": json.dumps([SIGNING_KEY]),
        # Roomy budgets, as every live prerender of the tests has (tests/live.py): on a machine the rest of the
        # suite keeps busy, a card the survivor makes past the default 0.8 s is an empty card made in time (a CI
        # run saw 1 of 74), not a GET the kill lost, which is what the test counts.
        **ROOMY_BUDGETS,
    }
    try:
        with (
            GunicornPrerender(tmp_path / "a", coreapi_url, stack, workers=1, environ=environ) as node_a,
            GunicornPrerender(tmp_path / "b", coreapi_url, stack, workers=1, environ=environ) as node_b,
        ):
            yield node_a, node_b
    finally:
        redis.close()


def credential_from(url: str) -> str:
    """A new shopper's credential as a page gets it: the bootstrap's <svc-shopper>, asked with the supplier token
    (a user of this test alone: the live coreapi's baskets are shared by the session's tests)."""
    shopper = {**DEMO_HEADERS, "authorization": f"user_id two-nodes-{uuid.uuid4().hex[:12]}"}
    answer = requests.get(f"{url}/v2/svc-window-bootstrap", headers=shopper, timeout=TIMEOUT)
    answer.raise_for_status()
    element = BeautifulSoup(answer.text, "html.parser").find("svc-shopper")
    assert element is not None, "the bootstrap carries no credential"
    return str(element["credential"])


def browser_headers(credential: str) -> dict[str, str]:
    return {"authorization": f"Bearer {credential}", "language-id": "fr", "session-id": "s-123"}


def kill_node(node: GunicornPrerender) -> None:
    """A node that dies: its master and workers SIGKILLed, nothing finishes gracefully."""
    assert node.process is not None
    for pid in [*worker_pids(node.process.pid), node.process.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    node.process.wait(timeout=10)


class Load:
    """Threads sending GETs through nginx until stopped (bounded by count and time): the cards of a logged-in
    user (private: never from nginx's cache, each served by a node) and the shopper's basket."""

    def __init__(self, url: str, credential: str, *, threads: int = 4, max_seconds: float = 30.0) -> None:
        self.url = url
        self.browser = browser_headers(credential)
        self.threads = threads
        self.max_seconds = max_seconds
        self.stop = threading.Event()
        self.statuses: list[int | str] = []
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(threads)

    def _run(self, worker: int) -> None:
        session = requests.Session()
        started = time.monotonic()
        i = 0
        while not self.stop.is_set() and time.monotonic() - started < self.max_seconds and i < 5000:
            i += 1
            if i % 3 == 0:
                path, headers = "/v1/basket?store_id=1001", self.browser
            else:
                path, headers = CARD.format(recipe=1 + (worker + i) % 12), DEMO_HEADERS
            try:
                answer = session.get(self.url + path, headers=headers, timeout=TIMEOUT)
                status: int | str = answer.status_code
                if answer.status_code == 200 and not answer.content.strip():
                    status = "empty"
            except requests.RequestException as error:
                status = type(error).__name__
            with self._lock:
                self.statuses.append(status)

    def __enter__(self) -> Load:
        self.futures = [self._pool.submit(self._run, worker) for worker in range(self.threads)]
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for future in self.futures:
            future.result(timeout=60)
        self._pool.shutdown()

    def wait_for_answers(self, count: int, seconds: float = 20.0) -> None:
        """Until the load has had `count` answers (bounded): on a machine the rest of the suite keeps busy, the
        first ones may take a few seconds, which a fixed sleep would not wait."""
        deadline = time.monotonic() + seconds
        while len(self.statuses) < count and time.monotonic() < deadline:
            time.sleep(0.05)

    def failures(self) -> list[int | str]:
        return [status for status in self.statuses if status != 200]

    def lost(self) -> list[int | str]:
        """The failures but the answers cut short: refused, reset before an answer, an error status, an empty card."""
        return [status for status in self.failures() if status != CUT_SHORT]


def write_as_the_sdk_does(url: str, headers: dict[str, str], recipe_id: str) -> int:
    """POST /v1/basket/recipes with one Idempotency-Key, resent after a network failure or a 502/503/504 (the
    SDK's retries, a little more patient): the final status."""
    key = uuid.uuid4().hex
    body = {"recipe_id": recipe_id, "store_id": "1001", "guests": 4}
    status = 0
    for _ in range(6):
        try:
            answer = requests.post(
                f"{url}/v1/basket/recipes",
                json=body,
                headers={**headers, "idempotency-key": key},
                timeout=TIMEOUT,
            )
            status = answer.status_code
        except requests.RequestException:
            status = 0
        if status not in OUTCOME_UNKNOWN and status != 0:
            return status
        time.sleep(0.3)
    return status


def test_a_credential_one_node_issued_verifies_on_the_other(
    two_nodes: tuple[GunicornPrerender, GunicornPrerender],
) -> None:
    node_a, node_b = two_nodes
    credential = credential_from(node_a.url)
    answer = requests.get(f"{node_b.url}/v1/basket?store_id=1001", headers=browser_headers(credential), timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    assert answer.json()["store_id"] == "1001"


def test_killing_a_node_under_load_loses_no_get_and_applies_every_write_once(
    nginx_binary: str, tmp_path: Path, two_nodes: tuple[GunicornPrerender, GunicornPrerender]
) -> None:
    node_a, node_b = two_nodes
    with NginxFront(nginx_binary, tmp_path / "nginx", node_a.url, node_b.url) as front:
        credential = credential_from(front.url)
        browser = browser_headers(credential)
        recipes = [str(r) for r in range(1, 9)]
        with Load(front.url, credential) as load:
            load.wait_for_answers(2 * load.threads)  # both nodes serving (nginx takes turns)
            served_before = len(load.statuses)
            with ThreadPoolExecutor(4) as writers:
                finals = writers.map(lambda r: write_as_the_sdk_does(front.url, browser, r), recipes[:4])
                kill_node(node_a)
                finals_after = writers.map(lambda r: write_as_the_sdk_does(front.url, browser, r), recipes[4:])
                statuses = [*finals, *finals_after]
            load.wait_for_answers(len(load.statuses) + 2 * load.threads)  # the survivor carries the load
        assert served_before > 0 and len(load.statuses) > served_before
        # Every GET the dead node had not begun to answer went to the other node. The ones it was answering at the
        # instant it died (at most one per load thread) are cut short: nginx had passed their headers on.
        assert load.lost() == [], f"{len(load.lost())} lost GETs of {len(load.statuses)}: {load.lost()}"
        assert len(load.failures()) <= load.threads, load.failures()
        assert statuses == [200] * len(recipes)
        basket = requests.get(f"{front.url}/v1/basket?store_id=1001", headers=browser, timeout=TIMEOUT).json()
        in_basket = [recipe["recipe_id"] for recipe in basket["recipes"]]
        assert sorted(in_basket) == sorted(recipes)  # each once


def test_a_graceful_reload_under_load_loses_no_request(
    nginx_binary: str, coreapi_url: str, stack: Stack, tmp_path: Path
) -> None:
    """`kill -HUP` of gunicorn's master (docs/operations.md, "Several nodes, deploys and a node that dies"): new
    workers start, the old ones finish what they serve; with nginx in front, no request of the load fails."""
    # Roomy budgets, as every live prerender of the tests has (tests/live.py): the new workers start with empty
    # caches on a machine the rest of the suite keeps busy, and an empty card made in time is no lost request.
    with (
        GunicornPrerender(tmp_path / "a", coreapi_url, stack, workers=2, environ=ROOMY_BUDGETS) as node,
        NginxFront(nginx_binary, tmp_path / "nginx", node.url) as front,
    ):
        assert node.process is not None
        credential = credential_from(front.url)
        old_workers = set(worker_pids(node.process.pid))
        with Load(front.url, credential) as load:
            time.sleep(1)
            node.process.send_signal(signal.SIGHUP)
            for _ in range(100):  # until the old workers are gone (bounded)
                if old_workers.isdisjoint(worker_pids(node.process.pid)):
                    break
                time.sleep(0.1)
            time.sleep(1.5)
        assert old_workers.isdisjoint(worker_pids(node.process.pid)), "the workers were not replaced"
        assert load.statuses and load.failures() == [], f"{len(load.failures())} failed of {len(load.statuses)}"

"""gunicorn.conf.py recycles a worker on memory growth, not on a request count: a worker beyond
GUNICORN_MAX_WORKER_RSS_MB finishes its request and is replaced, and requests keep being answered; under the
defaults, many requests restart nothing."""

from __future__ import annotations

import time
from pathlib import Path

import requests

from tests.live import Stack

from .conftest import GunicornPrerender

RECYCLED = "recycling it"
AUTORESTART = "Autorestarting worker"
READY_ROUNDS = 40


def healthz(url: str, times: int) -> list[int]:
    return [requests.get(f"{url}/healthz", timeout=10).status_code for _ in range(times)]


def test_a_worker_grown_beyond_the_limit_is_replaced(stack: Stack, coreapi_url: str, tmp_path: Path):
    tiny = {"GUNICORN_MAX_WORKER_RSS_MB": "1", "GUNICORN_RSS_CHECK_EVERY": "5"}
    with GunicornPrerender(tmp_path, coreapi_url, stack, workers=1, environ=tiny) as server:
        statuses: list[int] = []
        for _ in range(READY_ROUNDS):  # the retired worker leaves once its loop notices (about a second)
            statuses += healthz(server.url, 5)
            if server.logs().count("Booting worker") >= 2:
                break
            time.sleep(0.5)
        logs = server.logs()
    assert set(statuses) == {200}  # answered all along, by the old worker and by its replacement
    assert RECYCLED in logs
    assert logs.count("Booting worker") >= 2


def test_the_default_restarts_nothing_after_many_requests(stack: Stack, coreapi_url: str, tmp_path: Path):
    with GunicornPrerender(tmp_path, coreapi_url, stack, workers=1) as server:
        assert healthz(server.url, 300) == [200] * 300
        logs = server.logs()
    assert RECYCLED not in logs and AUTORESTART not in logs
    assert logs.count("Booting worker") == 1

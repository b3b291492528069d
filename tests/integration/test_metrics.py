"""Prometheus metrics: in-process, and summed over real gunicorn workers."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from prerender import create_app
from tests.conftest import closed_port
from tests.faulty_upstream import status
from tests.live import Stack, running_prerender

from .conftest import NOPERS, headers

ROOT = Path(__file__).resolve().parents[2]


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition text (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_requests_upstream_calls_and_cache_are_counted(client):
    before = client.get("/metrics").get_data(as_text=True)
    client.get("/v1/recipe-card?recipe_id=2&store_id=1001", headers=headers())
    client.get("/v1/recipe-card?recipe_id=2&store_id=1001", headers=headers())
    after = client.get("/metrics").get_data(as_text=True)
    labels = {"endpoint": "v1.recipe_card.get_card", "status": "200", "version": "v1"}
    assert (
        sample(after, "prerender_requests_total", **labels) - sample(before, "prerender_requests_total", **labels) == 2
    )
    assert sample(after, "prerender_upstream_calls_total", endpoint="recipe", outcome="ok") > sample(
        before, "prerender_upstream_calls_total", endpoint="recipe", outcome="ok"
    )
    assert sample(after, "prerender_cache_lookups_total", result="hit") > sample(
        before, "prerender_cache_lookups_total", result="hit"
    )
    assert "prerender_circuit_breaker_state" in after


def total(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of `name` with these labels, whatever their others."""
    found = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{"):
            values = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
            if all(values.get(k) == v for k, v in labels.items()):
                found += float(line.rsplit(" ", 1)[1])
    return found


def test_an_unreachable_upstream_is_its_own_outcome(app_config):
    # The outcomes an on-call reads are words of docs/operations.md ("Metrics"), not the gateway's class names.
    app = create_app({**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}", "UPSTREAM_RETRIES": 0})
    client = app.test_client()
    before = client.get("/metrics").get_data(as_text=True)
    client.get("/v1/recipe-details?recipe_id=5", headers=headers(token=None))
    after = client.get("/metrics").get_data(as_text=True)
    name = "prerender_upstream_calls_total"
    assert total(after, name, outcome="unreachable") > total(before, name, outcome="unreachable")
    outcomes = set(re.findall(r'prerender_upstream_calls_total\{[^}]*outcome="([^"]+)"', after))
    words = {"ok", "circuit_open", "shed", "budget_spent", "budget_cut", "timeout", "unreachable", "bad_answer"}
    assert all(
        outcome in words | {"error", "status_4xx"} or re.fullmatch(r"status_5\d\d", outcome) for outcome in outcomes
    )


def test_unmatched_urls_share_one_series(client):
    client.get("/no/such/path/1")
    client.get("/no/such/path/2")
    text = client.get("/metrics").get_data(as_text=True)
    assert "/no/such" not in text and sample(text, "prerender_requests_total", endpoint="unmatched", status="404") >= 2


@pytest.fixture
def gunicorn_prerender(coreapi_url: str, stack: Stack, tmp_path: Path):
    """prerender under gunicorn with two workers and multiprocess metrics, on a free loopback port; on the
    postgresql-redis stack both workers share one Redis cache, as in production."""
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    env = {
        **os.environ,
        **stack.environ(),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "PRERENDER_UPSTREAM_URL": coreapi_url,
        "GUNICORN_WORKERS": "2",
        "GUNICORN_THREADS": "2",
        "PRERENDER_LOG_LEVEL": "WARNING",
    }
    with running_prerender(env) as url:
        yield url, metrics_dir


def test_counts_add_up_over_gunicorn_workers(gunicorn_prerender: tuple[str, Path]):
    url, metrics_dir = gunicorn_prerender

    def get(path: str) -> int:
        return requests.get(f"{url}{path}", headers=headers(token=None), timeout=5).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        # Until both workers have booted and answered (bounded): the sum below must span two processes.
        for _ in range(50):
            list(pool.map(get, ["/healthz"] * 16))
            if len(list(metrics_dir.glob("counter_*.db"))) == 2:
                break
        assert len(list(metrics_dir.glob("counter_*.db"))) == 2, "the second worker never answered"
        assert set(pool.map(get, ["/v1/styles/base"] * 40)) == {200}
    text = requests.get(f"{url}/metrics", timeout=5).text
    labels = {"endpoint": "v1.styles.component_styles", "status": "200", "version": "v1"}
    assert sample(text, "prerender_requests_total", **labels) == 40
    # The workers' cache (their shared Redis on the postgresql-redis stack) answers them.
    assert requests.get(f"{url}/readyz", timeout=5).json()["checks"] == {"cache": "ok", "service_key": "ok"}


def test_answers_are_counted_per_retailer_and_a_made_up_token_adds_no_series(client, proxy, app_config):
    """An operator of several retailers asks which one's cards are degraded or refused: the log line says it per
    request, the per-supplier series says it as a rate. A made-up token counts as no supplier (`none`), so that
    anyone sending tokens at random cannot make a series each."""
    name = "prerender_supplier_answers_total"
    before = client.get("/metrics").get_data(as_text=True)
    client.get("/v1/recipe-card?recipe_id=2&store_id=1001", headers=headers())
    client.get("/v1/recipe-card?recipe_id=2&store_id=1001&recipe_id=3", headers=headers())  # a 400
    for made_up in ("made-up-one-" + "x" * 24, "made-up-two-" + "y" * 24):
        client.get("/v1/recipe-card?recipe_id=2&store_id=1001", headers=headers(token=made_up))
    failing = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    failing.get("/v1/recipe-card?recipe_id=2&store_id=1001", headers=headers(token=NOPERS))  # its supplier cached
    proxy.faults["/api/v1/recipes"] = status(503)
    failing.get("/v1/recipe-card?recipe_id=3&store_id=1001", headers=headers(token=NOPERS))  # its recipe fails
    after = client.get("/metrics").get_data(as_text=True)

    def counted(supplier: str, outcome: str) -> float:
        return sample(after, name, supplier=supplier, outcome=outcome) - sample(
            before, name, supplier=supplier, outcome=outcome
        )

    assert counted("1", "whole") == 1 and counted("1", "refused") == 1
    assert counted("2", "whole") == 1 and counted("2", "degraded") == 1
    assert sum(counted("none", outcome) for outcome in ("whole", "degraded", "refused", "failed")) == 2
    suppliers = set(re.findall(r'prerender_supplier_answers_total\{[^}]*supplier="([^"]+)"', after))
    assert suppliers <= {"1", "2", "3", "none"}
    # Health, metrics and static files are not a retailer's answers.
    client.get("/healthz")
    assert sum(total(client.get("/metrics").get_data(as_text=True), name, supplier=s) for s in suppliers) == sum(
        total(after, name, supplier=s) for s in suppliers
    )

"""An upstream whose clock runs ahead of prerender's (hosts not kept in step), against the live coreapi behind a
proxy that shifts what its clock decides by (tests/faulty_upstream.py, `clock_ahead`: the deadline it reads and the
Date of its answers). coreapi refuses a call it reads after the deadline prerender told it; a fragment's calls have
0.8 s at most, so two seconds ahead it refused every one of them. prerender learns the difference from the Date of
the answers (prerender/gateway/upstream_clock.py) and tells its deadlines in the upstream's time."""

from __future__ import annotations

import logging
import time

import pytest
from prometheus_client import REGISTRY

from prerender import create_app
from prerender.config import DefaultConfig
from tests.faulty_upstream import FaultyUpstream

from .conftest import headers

AHEAD = 2.0
# Enough distinct cards (none cached) for the answers to span a few of the upstream's seconds.
CARDS = [(recipe, serves) for serves in range(2, 12) for recipe in ("1", "2", "3", "4", "5")]


def rendered(client, recipe: str, serves: int) -> bool:
    answer = client.get(
        "/v1/recipe-card", query_string={"recipe_id": recipe, "store_id": "1001", "serves": serves}, headers=headers()
    )
    assert answer.status_code == 200
    return "X-Degraded" not in answer.headers and b"svc-recipe-card" in answer.get_data()


@pytest.fixture
def skewed(proxy: FaultyUpstream, app_config: dict):
    """A prerender with the default fragment budget (0.8 s) before an upstream whose clock runs AHEAD seconds
    ahead; its breakers never open on the refusals, so every card asks."""
    proxy.clock_ahead = AHEAD
    config = {
        **app_config,
        "UPSTREAM_URL": proxy.url,
        "UPSTREAM_FRAGMENT_BUDGET": DefaultConfig.UPSTREAM_FRAGMENT_BUDGET,
        "UPSTREAM_BREAKER_MINIMUM_CALLS": 10_000,
    }
    return create_app(config).test_client()


def test_cards_render_once_the_upstreams_clock_is_learnt(
    skewed, proxy: FaultyUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    rendered_at_first = []
    with caplog.at_level(logging.WARNING):
        for recipe, serves in CARDS:
            rendered_at_first.append(rendered(skewed, recipe, serves))
            time.sleep(0.05)  # the answers' Dates span a few of the upstream's seconds
    calls = list(proxy.time_left)

    def time_left(recipe: str, serves: int) -> list[float]:
        """What the calls of a card had left when they reached the upstream, by its clock (a loaded machine may
        pass a call on after prerender stopped waiting for it: its card is known by its path, not its order)."""
        path = f"/api/v1/recipes/{recipe}?"
        return [left for asked, left in calls if asked.startswith(path) and f"serves={serves}&" in asked]

    # Refused at first: the first card's calls reached the upstream after their deadline by its clock.
    first = time_left(*CARDS[0])
    assert not rendered_at_first[0] and first and max(first) < 0, first
    # Then every deadline is told in the upstream's time: each call of the last ten cards reached it in time.
    last_ten = [(card, time_left(*card)) for card in CARDS[-10:]]
    assert any(left for _, left in last_ten) and all(min(left, default=1) > 0 for _, left in last_ten), last_ten
    # And those cards render, none empty. A card this machine kept waiting past its budget under load (its calls
    # in time, as just checked) is asked once more, as the next page view would.
    for was_rendered, (recipe, serves) in zip(rendered_at_first[-10:], CARDS[-10:], strict=True):
        assert was_rendered or rendered(skewed, recipe, serves), (recipe, serves, last_ten)
    ahead = REGISTRY.get_sample_value("prerender_upstream_clock_ahead_seconds")
    assert ahead is not None and AHEAD - 0.2 <= ahead <= AHEAD
    # The operator is told, once.
    warnings = [r for r in caplog.records if r.name == "prerender.gateway.upstream_clock"]
    assert len(warnings) == 1 and "ahead" in warnings[0].getMessage()

"""Customer integrations (examples/php, examples/java): a customer's page builder, run for real against the live
prerender and coreapi of tests/live.py, on the default stack only; its page in Chromium
(tests/chromium.py) where a test says so."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.live import use_live_servers
from tests.stacks import DEFAULT_STACK, only_stack_under

CUSTOMER_TESTS = Path(__file__).parent

# The seed's retailer (coreapi/seed/data/suppliers.json) and its store with the full assortment.
SUPPLIER_TOKEN = "demo-retailer-token"
STORE_ID = "1001"


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    only_stack_under(
        CUSTOMER_TESTS,
        items,
        DEFAULT_STACK,
        reason="a customer's client of prerender's HTTP routes: the backends behind them are covered on both "
        "stacks by tests/integration and tests/shop",
    )


@dataclass(frozen=True)
class LivePrerender:
    """What a customer's server is configured with: prerender's address, its supplier token, a store."""

    url: str
    supplier_token: str = SUPPLIER_TOKEN
    store_id: str = STORE_ID


@pytest.fixture(scope="session")
def live_prerender(prerender_url: str) -> LivePrerender:
    return LivePrerender(prerender_url)


def assert_headings_in_order(soup: BeautifulSoup) -> None:
    """The page's headings and its fragments' together skip no level going down (axe-core's `heading-order`): a
    card's title is an `<h3>`, so the customer's page has an `<h2>` above its cards."""
    levels = [int(heading.name[1]) for heading in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])]
    assert levels and levels[0] == 1, levels
    skips = [(before, after) for before, after in pairwise(levels) if after > before + 1]
    assert not skips, f"headings {levels} skip a level at {skips}"

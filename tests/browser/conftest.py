"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium; the `browser`, `context` and `page`
fixtures of tests/chromium.py) against the demo shop, which calls a live prerender and coreapi (tests/live.py), all
on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.publisher import create_app as create_publisher
from examples.shop import create_app as create_shop
from tests.demo_sites import PUBLISHER_SECRET_KEY, SHOP_SECRET_KEY
from tests.live import LiveServer, use_live_servers
from tests.stacks import DEFAULT_STACK, only_stack_under

BROWSER_TESTS = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # `pytestmark` in a conftest marks nothing: mark this folder's tests here (`-m "not browser"` works).
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)
    only_stack_under(
        BROWSER_TESTS,
        items,
        DEFAULT_STACK,
        reason="client-side behaviour in a real Chromium, the slowest tests: the backends it does "
        "not depend on are covered on both stacks by tests/integration and tests/shop",
    )


def _shop(coreapi_url: str, prerender_url: str, **overrides: object) -> LiveServer:
    return LiveServer(
        create_shop(
            {
                "PRERENDER_URL": prerender_url,
                "COREAPI_URL": coreapi_url,
                "SECRET_KEY": SHOP_SECRET_KEY,
                "PRERENDER_READ_TIMEOUT": 10.0,
                "COREAPI_READ_TIMEOUT": 10.0,
                "PRERENDER_PAGE_BUDGET": 30.0,
                **overrides,
            }
        )
    )


@pytest.fixture(scope="session")
def shop_url(coreapi_url: str, prerender_url: str) -> Iterator[str]:
    with _shop(coreapi_url, prerender_url) as server:
        yield server.url


@pytest.fixture(scope="session")
def nopers_shop_url(coreapi_url: str, prerender_url: str) -> Iterator[str]:
    """The shop of a supplier with personalization disabled (`demo-nopers-token`)."""
    with _shop(coreapi_url, prerender_url, SUPPLIER_TOKEN="demo-nopers-token") as server:
        yield server.url


@pytest.fixture(scope="session")
def silent_cart_shop_url(coreapi_url: str, prerender_url: str) -> Iterator[str]:
    """A shop whose cart applies the basket's pushes but never reports back (the rollback case)."""
    with _shop(coreapi_url, prerender_url, CART_REPORTS_PUSHES=False) as server:
        yield server.url


@pytest.fixture(scope="session")
def publisher_url(coreapi_url: str, prerender_url: str) -> Iterator[str]:
    """The demo recipe blog (examples/publisher, the publisher `demo-publisher-token`) on the live prerender (the
    blog calls prerender only; coreapi is behind it). Its recipe pages carry prerender's no-supplier add-to-cart
    button, its readers are logged out (an authless id from prerender, in a cookie). Its transfer goes where the
    retailer's routing says (the seed's http://127.0.0.1:8080), not to `shop_url`'s port: a test of the
    transfer routes that origin to the test shop."""
    blog = create_publisher(
        {
            "PRERENDER_URL": prerender_url,
            "SECRET_KEY": PUBLISHER_SECRET_KEY,
            "PRERENDER_READ_TIMEOUT": 10.0,
            "PRERENDER_PAGE_BUDGET": 30.0,
        }
    )
    with LiveServer(blog) as server:
        yield server.url

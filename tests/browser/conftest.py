"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium) against the demo shop, which
calls a live prerender and coreapi (tests/live.py), all on loopback."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from examples.shop import create_app as create_shop
from tests.live import LiveServer

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
# The machine's network is closed: keep Chromium from calling home (DESIGN section 10, env notes).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def shop_url(coreapi_url: str, prerender_url: str) -> Iterator[str]:
    app = create_shop({"PRERENDER_URL": prerender_url, "COREAPI_URL": coreapi_url, "PRERENDER_READ_TIMEOUT": 10.0,
                       "COREAPI_READ_TIMEOUT": 10.0, "PRERENDER_PAGE_BUDGET": 30.0})
    with LiveServer(app) as server:
        yield server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile per test (cookies, storage): tests never share state."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()

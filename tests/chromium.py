"""Chromium for the tests that drive a browser (tests/browser, and the customers' pages of tests/customers): a pytest
plugin loaded by tests/conftest.py, so that one Playwright and one Chromium serve the whole session (a second
sync Playwright in the same session would fail). Debian's Chromium (/usr/bin/chromium), a fresh profile per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
# The machine's network is closed: keep Chromium from calling home (only loopback is reachable in tests).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Pages Playwright answers itself (a customer origin routed to the test shop) count as public to Chromium,
    # whose Local Network Access checks would refuse them the loopback prerender. In production the customer's
    # site and prerender are both public: the check has nothing to say there.
    "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests",
]


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package (.ci/run does)")
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def caching_browser(playwright: Playwright) -> Iterator[Browser]:
    """Chromium with its back/forward cache, as shoppers have it: Playwright turns it off unless told not to
    (tests/browser/test_back_forward_cache.py)."""
    browser = playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, ignore_default_args=["--disable-back-forward-cache"]
    )
    yield browser
    browser.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile per test (cookies, storage): tests never share state."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    """A page of the test's context; any uncaught error in it fails the test."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, f"uncaught page errors: {errors}"

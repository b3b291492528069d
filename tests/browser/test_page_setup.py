"""A customer's page that never calls `supplier.setup` nor `pos.load` (sdk/page-calls.js): what a shopper starts
there does not spin forever. The drawer waits PAGE_CALL_WAIT_MS for the setup, then shows its error state with a
retry button, the console names the missing call, and the retry works once the page has called it; "add all"
waits as long for the store, then says so in the drawer. Playwright's clock moves the time: no test waits for it.

The host page is the customer's: a card fragment its server got from the live prerender, on a loopback server
of this module, with the stylesheets in its head and no script of its own."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator

import pytest
import requests
from flask import Flask
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.live import LiveServer

from .axe import assert_no_axe_violations
from .helpers import BROWSER_ROUTE

RETAILER_TOKEN = "demo-retailer-token"
STORE_ID = "1001"
RECIPE_ID = "1"
PAGE_CALL_WAIT_MS = 5000  # sdk/page-calls.js
# The console errors that name the missing calls (sdk/http.js, sdk/basket.js).
SETUP_MISSING = "[svc] the page has not called svc.supplier.setup({ language }) within 5 s"
STORE_MISSING = "[svc] the page has not called svc.pos.load(storeId) within 5 s"


def server_headers() -> dict[str, str]:
    """What the customer's server sends for a logged-out visitor."""
    return {
        "authless-id": f"t-anon-{uuid.uuid4().hex}",
        "language-id": "fr",
        "session-id": "page-setup-browser",
        "supplier-token": RETAILER_TOKEN,
    }


def host_page(prerender_url: str) -> str:
    """The customer's page: the styles in its head, one card; no `supplier.setup`, no `pos.load`."""
    headers = server_headers()
    styles = "".join(
        requests.get(f"{prerender_url}/v1/styles/{component}", headers=headers, timeout=10).json()["html"]
        for component in ("base", "recipe-card")
    )
    card = requests.get(
        f"{prerender_url}/v1/recipe-card",
        params={"recipe_id": RECIPE_ID, "store_id": STORE_ID},
        headers=headers,
        timeout=10,
    )
    assert card.status_code == 200 and "<svc-recipe-card" in card.text, card.text
    return f"""<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Une page sans mise en place</title>
{styles}
</head>
<body>
<main>
<h1>Une page sans mise en place</h1>
<section style="max-width: 360px"><h2>La recette du moment</h2>{card.text}</section>
</main>
</body>
</html>"""


@pytest.fixture(scope="module")
def host_url(prerender_url: str) -> Iterator[str]:
    page = host_page(prerender_url)
    app = Flask(__name__)
    app.add_url_rule("/", "page", lambda: page)
    with LiveServer(app) as server:
        yield server.url


def console_errors(page: Page) -> list[str]:
    """The page's console errors, as they come."""
    errors: list[str] = []

    def keep(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", keep)
    return errors


def assert_accessible(page: Page, what: str) -> None:
    """axe-core, whose run needs the page's timers: the clock flows meanwhile, then is paused again."""
    page.clock.resume()
    assert_no_axe_violations(page, what=what)
    page.clock.pause_at(dt.datetime.fromtimestamp(page.evaluate("() => Date.now()") / 1000 + 1))


def test_the_drawer_of_a_page_that_never_calls_setup_shows_an_error_with_a_working_retry(
    page: Page, host_url: str, prerender_url: str
) -> None:
    errors = console_errors(page)
    sent: list[str] = []  # the requests to prerender's browser routes
    page.on("request", lambda r: sent.append(r.url) if BROWSER_ROUTE.search(r.url) else None)
    start = dt.datetime.now()
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))  # time moves only when the test says
    page.goto(host_url)
    card = page.locator("svc-recipe-card[hydrated]")
    expect(card).to_be_visible()

    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-drawer__loading")).to_be_attached()
    page.clock.run_for(PAGE_CALL_WAIT_MS - 100)
    expect(dialog.locator(".svc-drawer__loading")).to_be_attached()  # still waiting for the page
    page.clock.run_for(200)

    retry = dialog.locator("[data-action=retry]")
    expect(retry).to_be_visible()
    expect(retry).to_be_focused()
    expect(dialog.locator(".svc-drawer__error[role=alert] p")).to_have_text("La recette n'a pas pu être chargée.")
    assert sent == []  # nothing was sent without the setup
    setup_errors = [text for text in errors if text.startswith(SETUP_MISSING)]
    assert len(setup_errors) == 1, errors
    assert "nothing is sent to prerender until it does" in setup_errors[0]
    assert_accessible(page, "the drawer of a page that never called supplier.setup")

    # Retried before the setup: the same error again, the console not told twice.
    retry.click()
    page.clock.run_for(PAGE_CALL_WAIT_MS + 100)
    expect(retry).to_be_visible()
    assert len([text for text in errors if text.startswith(SETUP_MISSING)]) == 1

    page.evaluate("() => window.svc.supplier.setup({ language: 'fr' })")
    retry.click()
    details = dialog.locator(".svc-recipe-details")
    expect(details).to_be_visible()
    expect(dialog.locator(".svc-drawer__error")).to_have_count(0)
    assert any(url.startswith(f"{prerender_url}/v1/recipe-details?") for url in sent), sent

    # No pos.load either: "add all" waits for the store as long, then says so in the drawer and the console.
    dialog.locator(".svc-recipe-details__add-all").click()
    page.clock.run_for(PAGE_CALL_WAIT_MS + 100)
    message = dialog.locator(".svc-drawer__message--error")
    expect(message).to_be_visible()
    assert not [url for url in sent if "/basket/recipes" in url]  # nothing was written without the store
    store_errors = [text for text in errors if text.startswith(STORE_MISSING)]
    assert len(store_errors) == 1 and "needs the page's store" in store_errors[0], errors
    assert_accessible(page, "the drawer's message when the page never called pos.load")

    page.evaluate(f"() => window.svc.pos.load('{STORE_ID}')")
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")

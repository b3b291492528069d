"""Two suppliers' pages on one site, in two tabs of one browser (a retailer's shelf and, under a publisher's token,
a recipe blog the same site serves): the SDK's tabs share one BroadcastChannel per site, and each tab follows the
tabs of its own supplier only (prerender/static/sdk/tabs.js). Before, a tab took the credential the other
supplier's page had just been given, and its cards, basket and writes became that supplier's shopper's.

The host pages are the customer's, on a loopback server of this module holding the fragments its server got from
the live prerender (tests/browser/test_planner_entry.py, HostPages)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import BrowserContext, Page

from .helpers import customer_page
from .test_planner_entry import RETAILER_TOKEN, HostPages

PUBLISHER_TOKEN = "demo-publisher-token"
STORE = "1001"
# Every shopper the page's SDK acted for, in order (`kind:id`, "" without one).
RECORD_SHOPPERS = """() => {
    window.shoppers = [];
    window.svc.user.user$.subscribe((user) => window.shoppers.push(user ? `${user.kind}:${user.id}` : ""));
}"""


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


def fragment(prerender_url: str, path: str, *, token: str, user: str, **params: str) -> str:
    """What the customer's server inserts: the fragment it asked prerender for, with its token and its user."""
    answer = requests.get(
        f"{prerender_url}{path}",
        params=params,
        headers={
            "authorization": f"user_id {user}",
            "language-id": "fr",
            "session-id": "suppliers",
            "supplier-token": token,
        },
        timeout=10,
    )
    assert answer.status_code == 200 and "-shopper" in answer.text, answer.text
    return answer.text


def open_recording(context: BrowserContext, url: str) -> Page:
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.svc?.user?.user$?.value")
    page.evaluate(RECORD_SHOPPERS)
    return page


def test_a_tab_follows_only_the_tabs_of_its_own_supplier(
    context: BrowserContext, host_pages: HostPages, prerender_url: str
) -> None:
    run = uuid.uuid4().hex[:8]
    shopper, reader, other_shopper = f"shelf-{run}", f"reader-{run}", f"shelf-two-{run}"
    for path, token, user in (
        ("/shelf", RETAILER_TOKEN, shopper),
        ("/blog", PUBLISHER_TOKEN, reader),
        ("/shelf-two", RETAILER_TOKEN, other_shopper),
    ):
        if token == RETAILER_TOKEN:
            body = fragment(prerender_url, "/v1/recipe-card", token=token, user=user, recipe_id="5", store_id=STORE)
        else:
            body = fragment(prerender_url, "/v1/no-supplier-add-to-cart-cta", token=token, user=user, recipe_id="5")
        host_pages.pages[path] = customer_page(path, body, store=STORE)

    shelf = open_recording(context, f"{host_pages.url}/shelf")
    blog = open_recording(context, f"{host_pages.url}/blog")
    # A second shelf tab, the retailer's page for another of its shoppers (a login there, in the same ten minutes):
    # the first shelf follows it, which shows the tabs talk; the blog's shopper never came in between.
    second_shelf = open_recording(context, f"{host_pages.url}/shelf-two")
    shelf.wait_for_function("id => window.svc.user.user$.value?.id === id", arg=other_shopper)

    assert shelf.evaluate("window.shoppers") == [f"user:{shopper}", f"user:{other_shopper}"]
    assert blog.evaluate("window.shoppers") == [f"user:{reader}"]
    assert second_shelf.evaluate("window.shoppers") == [f"user:{other_shopper}"]


def test_a_page_with_two_suppliers_fragments_acts_for_the_first_and_says_so(
    context: BrowserContext, host_pages: HostPages, prerender_url: str
) -> None:
    """A retailer's page that also inserted a publisher's CTA (its own token's fragment is the page's): the SDK acts
    for the retailer's shopper, and says in the console that the other supplier's credential is ignored."""
    run = uuid.uuid4().hex[:8]
    shopper, reader = f"mixed-{run}", f"mixed-reader-{run}"
    card = fragment(prerender_url, "/v1/recipe-card", token=RETAILER_TOKEN, user=shopper, recipe_id="5", store_id=STORE)
    cta = fragment(prerender_url, "/v1/no-supplier-add-to-cart-cta", token=PUBLISHER_TOKEN, user=reader, recipe_id="5")
    host_pages.pages["/mixed"] = customer_page("mixed", card + cta, store=STORE)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{host_pages.url}/mixed")
    page.wait_for_function("() => window.svc?.user?.user$?.value")
    assert page.evaluate("() => window.svc.user.user$.value.id") == shopper
    page.wait_for_function("() => document.querySelectorAll('svc-shopper').length === 2")
    assert [text for text in errors if "-shopper elements of supplier" in text] == [
        "[svc] the svc-shopper elements of supplier 3 are ignored: this page's credentials are supplier 1's. "
        "A page holds the fragments of one supplier token."
    ]

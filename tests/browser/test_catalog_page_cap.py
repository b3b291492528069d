"""The catalog list's last reachable page, in Chromium: a customer's page holds page 99 of a list longer than the
routes' 100 pages (a live coreapi holding thousands of recipes, tests/live.py); its "more" loads page 100 in
place, then offers no more (page 101 would be a 400) and shows the sentence saying how many the pages list."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Page, expect

import prerender
from prerender.rendering.i18n import TextCatalog
from prerender.schemas.catalog import MAX_CATALOG_PAGE
from tests.live import TEST_BUDGETS, LiveServer, Stack, crowded_coreapi

from .axe import assert_no_axe_violations
from .helpers import customer_page
from .test_planner_entry import RETAILER_TOKEN, WIDTHS, HostPages

FR = TextCatalog(overrides_dir=None).translator("fr")
STORE = "1001"


@pytest.fixture(scope="module")
def crowded_prerender_url(stack: Stack) -> Iterator[str]:
    with crowded_coreapi(stack) as coreapi_url:
        app = prerender.create_app(
            {"UPSTREAM_URL": coreapi_url, "LOG_LEVEL": "WARNING", **TEST_BUDGETS, **stack.cache_config("crowded")}
        )
        with LiveServer(app) as server:
            yield server.url


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


def host_page(prerender_url: str) -> str:
    """The customer's list page at page 99, as its server asked prerender for it."""
    hdrs = {
        "authless-id": f"t-anon-{uuid.uuid4().hex}",
        "language-id": "fr",
        "session-id": "page-cap-browser",
        "supplier-token": RETAILER_TOKEN,
    }
    styles = [
        requests.get(f"{prerender_url}/v2/styles{route}", headers=hdrs, timeout=10)
        for route in ("/base", "/catalog/catalog-list")
    ]
    fragment = requests.get(
        f"{prerender_url}/v2/catalog/list",
        params={"all_recipes": "true", "store_id": STORE, "page": MAX_CATALOG_PAGE - 1},
        headers=hdrs,
        timeout=10,
    )
    assert [answer.status_code for answer in (*styles, fragment)] == [200, 200, 200], fragment.text
    head = "".join(answer.json()["html"] for answer in styles)
    return customer_page("Toutes nos recettes", fragment.text, head=head, store=STORE)


@pytest.mark.parametrize("width", list(WIDTHS))
def test_more_loads_the_last_page_then_says_how_many_the_pages_list(
    page: Page, crowded_prerender_url: str, host_pages: HostPages, width: str
) -> None:
    page.set_viewport_size(WIDTHS[width])
    host_pages.pages["/recettes"] = host_page(crowded_prerender_url)
    page.goto(f"{host_pages.url}/recettes")
    catalog = page.locator("svc-catalog[hydrated]")
    results = catalog.locator("[data-role=results]")
    expect(results.locator(":scope > li")).to_have_count(20)
    expect(catalog.locator("[data-role=listed-at-most]")).to_have_count(0)

    catalog.locator("[data-action=load-more]").click()
    expect(results.locator(":scope > li")).to_have_count(40)
    # No "more" any longer, and the sentence below the list, once.
    expect(catalog.locator("[data-action=load-more]")).to_have_count(0)
    sentence = catalog.locator("p[data-role=listed-at-most]")
    expect(sentence).to_have_count(1)
    expect(sentence).to_be_visible()
    expect(sentence).to_have_text(FR("CATALOG.LISTED_AT_MOST", count=MAX_CATALOG_PAGE * 20))
    assert_no_axe_violations(page, ["svc-catalog"], what=f"the list's last reachable page ({width})")

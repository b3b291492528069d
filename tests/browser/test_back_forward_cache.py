"""A page of the retailer's restored by Back from Chromium's back/forward cache, as it was left, while the shopper
changed the basket or the menu on the page that replaced it in the same tab: the SDK's components show the basket
and the menu as they are now (sdk/tabs.js tells them the page came back; docs/sdk.md, section 3).

The demo shop's pages are `no-store` (they hold the shopper's credential), which keeps them out of the cache; a
retailer's may be cacheable. These tests answer the shop's pages as `private, no-cache`, as such a retailer's,
in a Chromium whose cache is on (`caching_browser`, tests/chromium.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from tests.browser.helpers import hydrated_cards, new_user, origin_served_by, visit

from .test_publisher import QUICHE, SHOP, fill_basket, open_recipe

# Each `pageshow` of the document: `persisted` is true when it came back from the cache.
RECORD_SHOWS = "window.__shows = []; addEventListener('pageshow', (event) => window.__shows.push(event.persisted));"


@pytest.fixture
def context(caching_browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile of the Chromium whose back/forward cache is on."""
    context = caching_browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    yield context
    context.close()


def cacheable(route: Route) -> None:
    """A page answered as a site's that the back/forward cache may keep."""
    response = route.fetch()
    route.fulfill(response=response, headers={**response.headers, "cache-control": "private, no-cache"})


def cacheable_pages(context: BrowserContext, shop_url: str) -> None:
    """The shop's pages answered as a retailer's that the back/forward cache may keep."""
    pages = re.compile(rf"^{re.escape(shop_url)}/(idees|planner)?[^.]*$")
    context.route(pages, cacheable)
    context.add_init_script(RECORD_SHOWS)


def back_from_the_cache(page: Page) -> None:
    """Back, and the page shown again is the one kept in the cache (not loaded again)."""
    page.go_back(wait_until="commit")  # a restored page fires no `load`
    page.wait_for_function("() => window.__shows.length > 0 && window.__shows.at(-1) === true", timeout=5_000)


def test_a_card_page_restored_from_the_cache_shows_the_basket_as_it_is_now(
    page: Page, context: BrowserContext, shop_url: str
):
    """A recipe added on the shelf, taken out of the basket on the basket's page, then Back: the shelf's card,
    kept as it was left, says the recipe is not in the basket."""
    cacheable_pages(context, shop_url)
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()

    page.goto(f"{shop_url}/idees/panier")
    entry = page.locator(f".svc-basket-preview__item[data-recipe-id='{recipe_id}']")
    entry.locator("[data-action=remove-recipe]").click()
    expect(entry).to_have_count(0)

    back_from_the_cache(page)
    expect(page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").first).to_have_attribute("in-basket", "false")


def test_a_menu_page_restored_from_the_cache_draws_the_menu_changed_meanwhile(
    page: Page, context: BrowserContext, shop_url: str
):
    """The current-menu page, left for another current-menu page where the shopper adds a suggestion, then Back:
    the page kept in the cache draws its menu again, the recipe in it (it heard nothing while it was kept)."""
    cacheable_pages(context, shop_url)
    visit(context, page, shop_url, "/planner/current-menu", user=new_user())
    planner = page.locator("svc-planner[hydrated]")
    expect(planner).to_be_visible()
    page.keyboard.press("Escape")  # the onboarding of the first visit
    expect(page.locator("svc-planner-onboarding[open]")).to_have_count(0)

    page.goto(f"{shop_url}/planner/current-menu?again=1")
    there = page.locator("svc-planner[hydrated]")
    suggestion = there.locator("[data-role=panel-items] > li:has([data-action=add]:not([disabled]))").first
    recipe_id = suggestion.get_attribute("data-recipe-id")
    suggestion.locator("[data-action=add]").click()
    expect(there.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(1)

    back_from_the_cache(page)
    expect(page.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(1)


def test_a_page_restored_with_its_drawer_open_keeps_the_drawer_working(
    page: Page, context: BrowserContext, shop_url: str
):
    """Left with a recipe's drawer open (the address bar, a bookmark), then Back: the page comes back with the
    drawer open, which still adds the recipe, and closing it gives the page its scroll again. Meanwhile the basket
    page, restored after a recipe was added on the shelf, lists it."""
    cacheable_pages(context, shop_url)
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    add_all = dialog.locator(".svc-recipe-details__add-all")
    expect(add_all).to_be_visible()
    page.goto(f"{shop_url}/idees/panier")
    items = page.locator(".svc-basket-preview__item")
    expect(page.locator(".svc-basket-preview")).to_be_visible()
    expect(items).to_have_count(0)

    back_from_the_cache(page)
    expect(dialog).to_be_visible()
    add_all.click()
    expect(card).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("getComputedStyle(document.documentElement).overflow") != "hidden"

    page.go_forward(wait_until="commit")
    page.wait_for_function("() => window.__shows.at(-1) === true", timeout=5_000)
    expect(items).to_have_count(1)


def test_a_blog_page_restored_after_its_transfer_reads_the_basket_once(
    page: Page, context: BrowserContext, publisher_url: str, shop_url: str
):
    """A publisher's recipe page whose basket went to the retailer, then Back: the page comes back with its drawer
    open as it was left, and its button says the recipe is no longer in the basket. The basket is read once for
    that (the SDK reads it when a page comes back, sdk/tabs.js); the drawer's transfer panel read it a second time."""
    context.route(re.compile(rf"^{re.escape(publisher_url)}/recettes/[^.]*$"), cacheable)
    context.add_init_script(RECORD_SHOWS)
    with origin_served_by(page, SHOP, shop_url) as shop:
        cta = open_recipe(page, publisher_url, QUICHE)
        fill_basket(page, cta).locator("[data-action='transfer']").click()
        page.wait_for_url(re.compile(rf"^{re.escape(shop)}/idees"))
        expect(page.locator(".svc-toaster")).to_contain_text("Le Magazine Cuisine", timeout=15_000)  # redeemed
        reads: list[str] = []
        page.on(
            "request",
            lambda request: (
                reads.append(request.url)
                if request.method == "GET" and urlsplit(request.url).path.endswith("/basket")
                else None
            ),
        )
        back_from_the_cache(page)
        expect(page.locator("svc-drawer[open]")).to_be_visible()
        expect(cta).to_have_attribute("in-basket", "false")
        # One more read through the SDK's queue of basket calls: every read the restored page queued is done before.
        page.evaluate("() => window.svc.basket.reload()")
    assert len(reads) == 2, reads

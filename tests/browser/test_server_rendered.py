"""What a shopper sees before any script runs, and the module loading rules of the fragments."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from examples.shop.visitor import STORE_COOKIE

from .helpers import loaded


@pytest.fixture
def phone_without_scripts(browser: Browser, shop_url: str) -> Iterator[Page]:
    """A page of a phone (375 px) whose browser runs no script, a visitor of the shop at store 1001."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 375, "height": 800})
    try:
        context.add_cookies([{"name": STORE_COOKIE, "value": "1001", "url": shop_url}])
        yield context.new_page()
    finally:
        context.close()


def test_a_card_reads_completely_with_javascript_disabled(phone_without_scripts: Page, shop_url: str):
    page = phone_without_scripts
    page.goto(f"{shop_url}/")
    card = page.locator(".svc-recipe-card").first
    card.scroll_into_view_if_needed()
    assert card.locator(".svc-recipe-card__title").inner_text().strip()
    picture = card.locator("img")
    picture.scroll_into_view_if_needed()
    loaded(page, picture)
    assert card.locator(".svc-recipe-card__meta").is_visible()
    assert card.locator(".svc-recipe-pricing__amount").first.inner_text().strip().endswith("€")
    assert card.locator(".svc-recipe-card__title").is_visible()
    box = card.bounding_box()
    assert box and 100 < box["width"] <= 375 and box["height"] > 150


def test_two_fragments_load_the_sdk_module_once(page: Page, shop_url: str):
    sdk_requests: list[str] = []
    page.on("request", lambda request: sdk_requests.append(request.url) if "/sdk/svc.js" in request.url else None)
    page.goto(f"{shop_url}/")
    page.wait_for_load_state("networkidle")
    fragments = page.locator(".svc-recipe-card").count()
    assert fragments >= 2
    assert len(sdk_requests) == 1
    assert page.evaluate("Object.keys(window).filter(k => k === 'svc').length") == 1
    assert page.evaluate("customElements.get('svc-recipe-card') !== undefined")


def test_a_phone_reaches_the_planners_menu_and_back_without_javascript(phone_without_scripts: Page, shop_url: str):
    # The quick menu's "see my menu" and the menu's back link submit the page's views form: the shop's page
    # comes back in the other view (with scripts, components/planner.js switches it in place).
    page = phone_without_scripts
    page.goto(f"{shop_url}/planner/current-menu")
    planner = page.locator("svc-planner")
    expect(planner).to_have_class(re.compile("svc-planner--view-recipe"))
    expect(planner.locator(".svc-planner__menu")).to_be_hidden()
    planner.locator(".svc-quick-menu__see-menu").click()
    expect(page).to_have_url(re.compile(r"[?&]view=menu\b"))
    expect(planner).to_have_class(re.compile("svc-planner--view-menu"))
    expect(planner.locator(".svc-planner__menu")).to_be_visible()
    expect(planner.locator(".svc-planner__suggestions")).to_be_hidden()
    assert "store_id=1001" in page.url
    planner.locator(".svc-planner__back").click()
    expect(page).to_have_url(re.compile(r"[?&]view=recipe\b"))
    expect(planner.locator(".svc-planner__suggestions")).to_be_visible()
    expect(planner.locator(".svc-planner__menu")).to_be_hidden()

    # A panel filtered by types and a keyword keeps them through the other view and back.
    page.goto(f"{shop_url}/planner/current-menu?recipe_type_id=dessert,main-dish&search=tarte")
    planner.locator(".svc-quick-menu__see-menu").click()
    expect(planner).to_have_class(re.compile("svc-planner--view-menu"))
    planner.locator(".svc-planner__back").click()
    expect(planner.locator(".svc-planner__search-input")).to_have_value("tarte")
    pressed = planner.locator(".svc-planner__types [aria-pressed=true]")
    expect(pressed).to_have_count(2)

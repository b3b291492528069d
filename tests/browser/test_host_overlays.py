"""The service's overlays above the retailer's own page (prerender/static/sdk/top-layer.js, docs/styles.md): a host
element at the highest z-index (a chat widget, a cookie banner) right over the drawer's close button or over the
toaster covers neither; the shopper's pointer reaches them, and the host's element again once the drawer closes.
The planner's onboarding: tests/browser/test_planner_entry.py."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import cover_with_host_widget, hydrated_cards, reached, run_clock_until_shown, visit
from .test_drawer_opening import CANNOT_OPEN, DRAWER_MODULE

WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 740}}


@pytest.mark.parametrize("size", list(WIDTHS.values()), ids=list(WIDTHS))
def test_the_drawer_is_above_the_host_pages_own_widgets(
    page: Page, context: BrowserContext, shop_url: str, size: dict[str, int]
):
    page.set_viewport_size(size)
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog", name=title)
    footer_button = dialog.locator(".svc-recipe-details__footer button").first
    expect(footer_button).to_be_visible()
    close = dialog.locator(".svc-drawer__close")

    widget = cover_with_host_widget(close)
    cover_with_host_widget(footer_button)
    assert reached(close), "the host's widget covers the drawer's close button"
    assert reached(footer_button), "the host's widget covers the drawer's main button"
    close.click()  # Playwright clicks only what the pointer would reach
    expect(dialog).to_be_hidden()
    # Closed, the drawer leaves the top layer: the host's widget takes the shopper's clicks again.
    assert reached(widget)


def test_the_toaster_stays_above_the_host_page_and_a_drawer_opened_after_it(
    page: Page, context: BrowserContext, shop_url: str
):
    """The drawer's module failed once ("cannot open" in the toaster); the next click opens the drawer while the
    message still shows: it shows above the drawer and above the host's widget."""
    start = dt.datetime(2026, 1, 5, 10, 0, 0)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))  # the message stays while the test looks
    page.route(DRAWER_MODULE, lambda route: route.abort("connectionrefused"))
    visit(context, page, shop_url)
    title = hydrated_cards(page).first.locator(".svc-recipe-card__title-button")
    toaster = page.locator(".svc-toaster")
    title.click()
    run_clock_until_shown(page, toaster, CANNOT_OPEN)
    cover_with_host_widget(toaster)
    assert reached(toaster), "the host's widget covers the toaster"

    page.unroute(DRAWER_MODULE)
    title.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(toaster).to_have_text(CANNOT_OPEN)
    assert reached(toaster), "the drawer covers the toaster"

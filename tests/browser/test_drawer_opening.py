"""The drawer's module loaded on the first opening (prerender/static/sdk/drawer-loading.js), with prerender hung or
down for it: the shopper who clicks a card is told the recipe is on its way, then that it cannot open for now,
instead of seeing nothing; a later click opens it once prerender answers again."""

from __future__ import annotations

import datetime as dt

from playwright.sync_api import BrowserContext, Page, Route, expect

from .axe import assert_no_axe_violations
from .helpers import hydrated_cards, visit

DRAWER_MODULE = "**/components/drawer.js*"
OPENING = "Ouverture de la recette…"
CANNOT_OPEN = "La recette ne peut pas s'ouvrir pour le moment. Réessayez dans un instant."


def test_a_drawer_module_that_does_not_arrive_is_told_and_given_up(page: Page, context: BrowserContext, shop_url: str):
    held: list[Route] = []

    def hold(route: Route) -> None:  # prerender hung for the drawer's module: no answer until released
        held.append(route)

    page.route(DRAWER_MODULE, hold)
    start = dt.datetime(2026, 1, 5, 10, 0, 0)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))
    visit(context, page, shop_url)
    title = hydrated_cards(page).first.locator(".svc-recipe-card__title-button")
    dialog = page.get_by_role("dialog")
    toaster = page.locator(".svc-toaster")

    title.click()
    page.wait_for_function("() => true")  # the click's import is under way
    assert held, "the click asked for the drawer's module"
    page.clock.run_for(1100)
    expect(toaster).to_have_text(OPENING)
    expect(toaster).to_have_attribute("role", "status")
    page.clock.run_for(9000)
    expect(toaster).to_have_text(CANNOT_OPEN)
    expect(dialog).to_be_hidden()

    # prerender answers at last: the module arrives, but the shopper was told it would not open, so it does not.
    for route in held:
        route.continue_()
    page.unroute(DRAWER_MODULE)
    page.wait_for_load_state("networkidle")
    page.clock.run_for(500)
    expect(dialog).to_be_hidden()
    # The next click opens it at once.
    title.click()
    expect(dialog).to_be_visible()
    expect(toaster).not_to_have_text(OPENING)


def test_a_drawer_module_that_fails_is_told_at_once_and_the_next_click_opens(
    page: Page, context: BrowserContext, shop_url: str
):
    page.route(DRAWER_MODULE, lambda route: route.abort("connectionrefused"))  # the prerender node is down
    visit(context, page, shop_url)
    title = hydrated_cards(page).first.locator(".svc-recipe-card__title-button")
    dialog = page.get_by_role("dialog")
    toaster = page.locator(".svc-toaster")

    title.click()
    expect(toaster).to_have_text(CANNOT_OPEN)
    expect(toaster).to_have_attribute("role", "status")
    expect(dialog).to_be_hidden()
    # axe runs on real timers: this test's clock is the page's own (the toaster is the same with either message)
    assert_no_axe_violations(page, include=[".svc-toaster"], what="the notice of a drawer that cannot open")

    page.unroute(DRAWER_MODULE)  # the node is back
    title.click()
    expect(dialog).to_be_visible()

"""The drawer's module loaded on the first opening (prerender/static/sdk/drawer-loading.js), with prerender hung or
down for it: the shopper who clicks a card is told the recipe is on its way, then that it cannot open for now,
instead of seeing nothing; a later click opens it once prerender answers again."""

from __future__ import annotations

import datetime as dt

from playwright.sync_api import BrowserContext, Page, Route, expect

from .axe import assert_no_axe_violations
from .helpers import hydrated_cards, visit

DRAWER_MODULE = "**/components/drawer.js*"
DRAWER_ELEMENT = "svc-drawer"  # what the module defines when it runs
OPENING = "Ouverture de la recette…"
CANNOT_OPEN = "La recette ne peut pas s'ouvrir pour le moment. Réessayez dans un instant."
BASKET_CANNOT_OPEN = "Votre panier ne peut pas s'ouvrir pour le moment. Réessayez dans un instant."
RELOAD = "L'ouverture a encore échoué. Rechargez la page pour réessayer."


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
    page.clock.run_for(1100)
    expect(toaster).to_have_text(OPENING)
    expect(toaster).to_have_attribute("role", "status")
    assert len(held) == 1, "the click asked for the drawer's module once"
    page.clock.run_for(9000)
    expect(toaster).to_have_text(CANNOT_OPEN)
    expect(dialog).to_be_hidden()

    # prerender answers at last: the module arrives and runs (its element is defined), but the shopper was told
    # it would not open, so it does not.
    with page.expect_response(DRAWER_MODULE):
        held[0].continue_()
    page.unroute(DRAWER_MODULE, hold)
    page.wait_for_function(f"() => !!customElements.get({DRAWER_ELEMENT!r})", polling=100)
    page.clock.run_for(500)
    expect(dialog).to_be_hidden()
    # The next click opens it at once (nothing to wait for: the clock stays paused).
    title.click()
    expect(dialog).to_be_visible()


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

    # A second failure: the browser may keep a failed module (Chromium does not), so the page is to be reloaded.
    title.click()
    expect(toaster).to_have_text(RELOAD)

    page.unroute(DRAWER_MODULE)  # the node is back
    title.click()
    expect(dialog).to_be_visible()

    # The basket preview says it is the basket that cannot open.
    page.reload()
    page.route(DRAWER_MODULE, lambda route: route.abort("connectionrefused"))
    page.wait_for_function("() => window.svc?.basket?.openPreview !== undefined")
    page.evaluate("() => window.svc.basket.openPreview().catch(() => {})")
    expect(toaster).to_have_text(BASKET_CANNOT_OPEN)


def test_a_preview_whose_module_fails_rejects_with_the_sdks_problem(page: Page, context: BrowserContext, shop_url: str):
    """The drawer loaded, then the basket preview's own module fails (the prerender node went down): the call
    rejects with an `svc.ApiError`, as every call of the SDK does, not the browser's TypeError."""
    visit(context, page, shop_url)
    hydrated_cards(page).first.locator(".svc-recipe-card__title-button").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.route("**/components/catalog.js*", lambda route: route.abort("connectionrefused"))
    rejected = page.evaluate(
        """() => window.svc.basket.openPreview().then(
            () => null,
            (error) => ({ api: error instanceof window.svc.ApiError, status: error.status, type: error.problem?.type }),
        )"""
    )
    assert rejected == {"api": True, "status": 0, "type": "about:blank#drawer-unavailable"}

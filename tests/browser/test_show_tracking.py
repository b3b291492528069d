"""recipe.show (docs/sdk.md, analytics): 80 % of a card on screen for one second, once per recipe per five
minutes; for prerender's cards and for the shop's own cards ("Nos fiches maison", /idees/fiches). Time is
Playwright's clock."""

from __future__ import annotations

import datetime as dt

from playwright.sync_api import BrowserContext, Page, expect

from .helpers import hidden, hydrated_cards, record_events, seen, shows_of, stored_events, visit

START = dt.datetime(2026, 1, 5, 10, 0, 0)


def paused_clock(page: Page) -> None:
    page.clock.install(time=START)
    page.clock.pause_at(START + dt.timedelta(seconds=1))


def test_a_native_card_is_shown_after_one_second_once_per_five_minutes(
    page: Page, context: BrowserContext, shop_url: str, coreapi_url: str
):
    paused_clock(page)
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    expect(card).to_be_visible()
    recipe_id = card.get_attribute("recipe-id")
    record_events(page)
    seen(page, card)
    page.clock.run_for(900)
    assert shows_of(page, recipe_id) == 0
    page.clock.run_for(200)
    assert shows_of(page, recipe_id) == 1

    hidden(page, card)
    seen(page, card)
    page.clock.run_for(2000)
    assert shows_of(page, recipe_id) == 1  # not twice within five minutes

    hidden(page, card)
    page.clock.fast_forward("05:01")
    seen(page, card)
    page.clock.run_for(1100)
    assert shows_of(page, recipe_id) == 2

    with page.expect_response(lambda r: r.url.endswith("/v1/events") and r.request.method == "POST"):
        page.evaluate("window.svc.analytics.flush()")
    stored = stored_events(coreapi_url, context, shop_url)
    shows = [e for e in stored if e["name"] == "recipe.show" and str(e["props"]["recipe_id"]) == recipe_id]
    assert len(shows) == 2  # the shop's session id is the SDK's: coreapi has them under it
    assert any(e["name"] == "pageview" and e["path"] == "/" for e in stored)


def test_a_card_under_the_open_drawer_is_not_shown_until_it_closes(page: Page, context: BrowserContext, shop_url: str):
    """While the drawer covers the page (its backdrop, its panel) the cards behind it are not on screen for the
    shopper: a card's second stops when the drawer opens and runs again once it is closed (an analyst counted
    cards under the drawer, and under the planner's onboarding, as shown)."""
    paused_clock(page)
    visit(context, page, shop_url)
    cards = hydrated_cards(page)
    expect(cards.first).to_be_visible()
    record_events(page)
    behind = cards.nth(1)
    recipe_id = behind.get_attribute("recipe-id")
    seen(page, behind)
    page.clock.run_for(500)
    page.evaluate("id => window.svc.recipes.openDetails(id)", cards.first.get_attribute("recipe-id"))
    expect(page.get_by_role("dialog")).to_be_visible()
    page.clock.run_for(3000)
    assert shows_of(page, recipe_id) == 0
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()
    page.clock.run_for(900)
    assert shows_of(page, recipe_id) == 0  # a whole second again, from the close
    page.clock.run_for(200)
    assert shows_of(page, recipe_id) == 1


def test_the_shops_own_cards_are_tracked_and_listed_as_sent(page: Page, context: BrowserContext, shop_url: str):
    paused_clock(page)
    visit(context, page, shop_url, "/idees/fiches")
    panel = page.locator("[data-events]")
    expect(panel.locator("[data-event-name=pageview]")).to_have_count(1)
    card = page.locator("[data-recipe-card]").first
    recipe_id = card.get_attribute("data-recipe-id")
    shown = panel.locator(f"[data-event-name='recipe.show'][data-recipe-id='{recipe_id}']")
    seen(page, card)
    page.clock.run_for(900)
    expect(shown).to_have_count(0)
    page.clock.run_for(200)
    expect(shown).to_have_count(1)
    hidden(page, card)
    seen(page, card)
    page.clock.run_for(2000)
    expect(shown).to_have_count(1)


def test_disconnect_stops_the_tracking(page: Page, context: BrowserContext, shop_url: str):
    paused_clock(page)
    visit(context, page, shop_url, "/idees/fiches")
    card = page.locator("[data-recipe-card]").first
    expect(card).to_be_visible()
    record_events(page)
    hidden(page, card)
    card.evaluate("""el => {
        window.__kept = window.svc.analytics.attachRecipeCardShowTracking({ element: el, recipeId: "kept-1" });
        window.svc.analytics.attachRecipeCardShowTracking({ element: el, recipeId: "gone-1" }).disconnect();
      }""")
    seen(page, card)
    page.clock.run_for(1500)
    assert shows_of(page, "kept-1") == 1
    assert shows_of(page, "gone-1") == 0


def test_without_intersection_observer_nothing_is_tracked_and_everything_else_works(
    page: Page, context: BrowserContext, shop_url: str
):
    """Older browsers and some hardened modes have no IntersectionObserver: no card is told as shown, and neither
    prerender's cards nor the page's own code that attaches its cards to the tracking stop (an outside check found
    an uncaught error per card, cards never hydrated, and the shop's "see the recipe" buttons dead)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script("delete window.IntersectionObserver;")
    visit(context, page, shop_url)
    expect(hydrated_cards(page).first).to_be_visible()
    page.goto(f"{shop_url}/idees/fiches")
    page.locator("[data-recipe-card] [data-open-recipe]").first.click()
    expect(page.get_by_role("dialog")).to_be_visible()
    assert errors == []

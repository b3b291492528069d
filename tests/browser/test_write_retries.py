"""A basket write whose outcome the browser cannot know (the service answered 504 after applying it) is sent
again by the SDK with the same Idempotency-Key, so it is applied once (prerender/static/sdk/http.js).
The 504 is injected with Playwright's routing, a fault on the wire; the write itself reaches the real stack."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, Route, expect

from .helpers import hydrated_cards, visit


def test_a_write_answered_504_after_it_was_applied_is_retried_with_the_same_key(
    page: Page, context: BrowserContext, shop_url: str
):
    keys: list[str] = []

    def applied_then_504(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        keys.append(route.request.headers.get("idempotency-key", ""))
        answer = route.fetch()  # the write reaches prerender and the upstream...
        if len(keys) == 1:  # ...but the first answer is lost on the way back
            route.fulfill(
                status=504,
                content_type="application/problem+json",
                body='{"type": "about:blank", "title": "Gateway Timeout", "status": 504}',
            )
        else:
            route.fulfill(response=answer)

    visit(context, page, shop_url)
    page.route("**/v1/basket/recipes", applied_then_504)
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()

    expect(page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").first).to_have_attribute("in-basket", "true")
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1], keys
    assert not page.get_by_role("dialog").locator("[role=alert]").is_visible()  # the shopper saw no error

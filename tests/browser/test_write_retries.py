"""A basket write whose outcome the browser cannot know (the service answered 504 after applying it) is sent
again by the SDK with the same Idempotency-Key, so it is applied once (prerender/static/sdk/http.js).
The 504 is injected with Playwright's routing, a fault on the wire; the write itself reaches the real stack."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, Route, expect

from .helpers import hydrated_cards, new_user, visit


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


def test_an_add_all_applied_with_every_answer_lost_goes_again_with_its_key_and_its_products_reach_the_cart(
    page: Page, context: BrowserContext, shop_url: str
):
    """The write reached the service on each attempt and every answer was lost: the shopper is told it failed (the
    service holds it). Pressed again, it goes with the same key: the service answers its first outcome, changes
    included, and the products reach the cart (with a new key it would answer "already there, nothing to add")."""
    lose = {"answers": True}
    keys: list[str] = []

    def answers_lost(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        keys.append(route.request.headers.get("idempotency-key", ""))
        if not lose["answers"]:
            route.continue_()
            return
        route.fetch()  # applied by the service (or answered as applied)...
        route.abort("connectionreset")  # ...its answer lost

    visit(context, page, shop_url, user=new_user())
    page.route("**/v1/basket/recipes", answers_lost)
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    drawer = page.get_by_role("dialog")
    drawer.locator(".svc-recipe-details__add-all").click()
    expect(drawer.locator(".svc-drawer__message-text[role=alert]")).to_have_text(
        "Connexion impossible. Vérifiez votre réseau et réessayez."
    )
    expect(card).to_have_attribute("in-basket", "false")
    expect(page.locator("[data-cart-count]")).to_have_text("0")

    lose["answers"] = False
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/v1/basket/recipes")) as again:
        drawer.locator(".svc-recipe-details__add-all").click()
    assert again.value.ok and again.value.json()["changes"], "the first outcome's changes, not an empty answer"
    expect(card).to_have_attribute("in-basket", "true")
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")
    assert len(keys) == 4 and set(keys) == {keys[0]} and keys[0], keys  # three lost attempts, then the same write


def test_a_rollback_that_gets_no_answer_says_the_change_could_not_be_undone(
    page: Page, context: BrowserContext, shop_url: str
):
    """The shop's cart refused the products and the undo gets no answer either: the drawer says the change could not
    be undone (not that it was), and the card shows what the service holds."""

    def cart_down(route: Route) -> None:
        route.abort() if route.request.method == "POST" else route.continue_()

    def undo_down(route: Route) -> None:
        route.abort() if route.request.method == "DELETE" else route.continue_()

    visit(context, page, shop_url, user=new_user())
    page.route("**/cart/lines", cart_down)
    page.route("**/v1/basket/recipes/**", undo_down)
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    drawer = page.get_by_role("dialog")
    drawer.locator(".svc-recipe-details__add-all").click()
    expect(drawer.locator(".svc-drawer__message-text[role=alert]")).to_have_text(
        "Le panier du magasin n'a pas suivi, et la modification n'a pas pu être annulée. Vérifiez votre connexion."
    )
    expect(card).to_have_attribute("in-basket", "true")  # what the service holds

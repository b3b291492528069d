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


def test_an_add_all_applied_with_every_answer_lost_is_undone_before_the_next_one_whose_products_reach_the_cart(
    page: Page, context: BrowserContext, shop_url: str
):
    """The write reached the service on each attempt and every answer was lost: the shopper is told it failed (the
    service holds it). Pressed again, the SDK first undoes it, then sends it anew: its products reach the cart
    (sent as it was, the service would answer "already there, nothing to add")."""
    lose = {"answers": True}
    writes: list[str] = []

    def answers_lost(route: Route) -> None:
        writes.append(f"{route.request.method} {route.request.url.split('/v1/', 1)[1].split('?')[0]}")
        if not lose["answers"]:
            route.continue_()
            return
        route.fetch()  # applied by the service...
        route.abort("connectionreset")  # ...its answer lost

    visit(context, page, shop_url, user=new_user())
    page.route("**/v1/basket/recipes**", answers_lost)
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    drawer = page.get_by_role("dialog")
    drawer.locator(".svc-recipe-details__add-all").click()
    expect(drawer.locator(".svc-drawer__message-text")).to_have_text(
        "Connexion impossible. Vérifiez votre réseau et réessayez."
    )
    expect(card).to_have_attribute("in-basket", "false")
    expect(page.locator("[data-cart-count]")).to_have_text("0")

    lose["answers"] = False
    drawer.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")
    first_after = writes.index(f"DELETE basket/recipes/{recipe_id}")
    assert writes[:first_after] == ["POST basket/recipes"] * 3, writes  # the three attempts, each applied or replayed
    assert writes[first_after:] == [f"DELETE basket/recipes/{recipe_id}", "POST basket/recipes"], writes


def test_a_rollback_that_meets_the_network_down_says_so_and_is_sent_once_the_service_answers(
    page: Page, context: BrowserContext, shop_url: str
):
    """The shop's cart refused the products and the undo gets no answer either: the drawer says the change will be
    undone once the connection is back (not that it was), and it is, without the shopper doing anything."""
    down = {"is": False}

    def cart_down(route: Route) -> None:
        route.abort() if route.request.method == "POST" else route.continue_()

    def undo_down(route: Route) -> None:
        route.abort() if down["is"] and route.request.method == "DELETE" else route.continue_()

    visit(context, page, shop_url, user=new_user())
    page.route("**/cart/lines", cart_down)
    page.route("**/v1/basket/recipes/**", undo_down)
    down["is"] = True
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    drawer = page.get_by_role("dialog")
    drawer.locator(".svc-recipe-details__add-all").click()
    expect(drawer.locator(".svc-drawer__message-text")).to_have_text(
        "Le panier du magasin n'a pas suivi : la modification sera annulée dès que la connexion reviendra."
    )
    expect(card).to_have_attribute("in-basket", "true")  # what the service holds, until the undo reaches it
    down["is"] = False
    expect(card).to_have_attribute("in-basket", "false", timeout=15_000)
    expect(page.locator("[data-cart-count]")).to_have_text("0")

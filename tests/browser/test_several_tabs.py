"""One shopper in two tabs of the demo shop (two pages of one browser context: the same cookies, storage and
BroadcastChannel origin), against the live stack: what one tab does, the other follows without a reload
(prerender/static/sdk/tabs.js). A recipe added in one tab shows in the other; a login or a logout in one tab
moves the other's writes to the shopper the site's cookies now name."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Locator, Page, Response, Route, expect

from examples.shop.visitor import USER_COOKIE

from .axe import assert_no_axe_violations
from .helpers import basket_of, hydrated_cards, new_user, recipes_in, shopper_credential, visit

# Whom the page's SDK acts for, as `kind:id` (null without a credential, or while a navigation has not yet defined
# `window.svc`: a wait that reads it across the logout's navigation threw there, failing a CI run).
IDENTITY = "() => { const user = window.svc?.user?.user$?.value; return user ? `${user.kind}:${user.id}` : null; }"


def _add_first_recipe(page: Page, index: int = 0) -> str:
    """A card's recipe (the first), all of it, through the drawer ("add all"); returns its id once the card says so."""
    card = hydrated_cards(page).nth(index)
    recipe_id = str(card.get_attribute("recipe-id"))
    card.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    return recipe_id


def test_a_recipe_added_in_one_tab_shows_in_the_other_without_a_reload(context: BrowserContext, shop_url: str):
    user = new_user()
    first, second = context.new_page(), context.new_page()
    visit(context, first, shop_url, user=user)
    visit(context, second, shop_url, user=user)
    expect(hydrated_cards(second).first).to_be_visible()
    second.wait_for_function("() => window.svc.basket.basket$.value !== undefined")

    recipe_id = _add_first_recipe(first)

    for card in second.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").all():
        expect(card).to_have_attribute("in-basket", "true")
    second.wait_for_function(
        "id => window.svc.basket.basket$.value.recipes.some((entry) => entry.recipe_id === id)", arg=recipe_id
    )


def test_the_basket_preview_shows_a_recipe_added_in_another_tab_and_keeps_the_focus(
    context: BrowserContext, shop_url: str
):
    user = new_user()
    shelf, preview_tab = context.new_page(), context.new_page()
    visit(context, shelf, shop_url, user=user)
    visit(context, preview_tab, shop_url, "/idees/panier", user=user)
    preview = preview_tab.locator("svc-catalog[hydrated]")
    expect(preview.locator("[data-role=empty]")).to_be_visible()  # a new user's basket: empty

    first = _add_first_recipe(shelf)
    row = preview.locator(f".svc-basket-preview__item[data-recipe-id='{first}']")
    expect(row).to_be_visible()
    expect(preview.locator("[data-role=empty]")).to_be_hidden()
    expect(preview.locator("[data-role=summary]")).to_have_text(re.compile(r"^1 recette · \d+ produits?$"))
    assert_no_axe_violations(preview_tab, ["svc-catalog"], what="the preview redrawn after another tab's addition")

    # The shopper is on the row's "remove" button when another recipe arrives: the focus stays on it.
    row.locator("[data-action=remove-recipe]").focus()
    second = _add_first_recipe(shelf, 1)
    expect(preview.locator(f".svc-basket-preview__item[data-recipe-id='{second}']")).to_be_visible()
    expect(preview.locator(".svc-basket-preview__item")).to_have_count(2)
    expect(row.locator("[data-action=remove-recipe]")).to_be_focused()


def test_a_drawer_open_in_one_tab_follows_the_guests_another_tab_set(context: BrowserContext, shop_url: str):
    """The same recipe's drawer in both tabs: "add all" for one more guest in one, and the other's stepper shows
    that count (its "+" then goes from there, not from the count it showed before)."""
    user = new_user()
    first, second = context.new_page(), context.new_page()
    visit(context, first, shop_url, user=user)
    visit(context, second, shop_url, user=user)
    opened = []
    for page in (first, second):
        card = hydrated_cards(page).first
        card.locator(".svc-recipe-card-cta").click()
        dialog = page.get_by_role("dialog")
        expect(dialog.locator(".svc-recipe-details__add-all")).to_be_enabled()
        opened.append(dialog)
    shown = int(opened[1].locator("[data-role=guests]").inner_text())
    opened[0].locator("[data-action=guests-increase]").click()
    expect(opened[0].locator("[data-role=guests]")).to_have_text(str(shown + 1))
    expect(opened[0].locator(f"svc-recipe-details[guests='{shown + 1}']")).to_be_attached()
    opened[0].locator(".svc-recipe-details__add-all").click()

    expect(opened[1].locator("[data-role=guests]")).to_have_text(str(shown + 1))
    expect(opened[1].locator("svc-recipe-details")).to_have_attribute("in-basket", "true")


def test_after_a_login_in_another_tab_the_logged_out_tab_adds_to_the_users_basket(
    context: BrowserContext, prerender_url: str, shop_url: str
):
    visitor_tab = context.new_page()
    visit(context, visitor_tab, shop_url)
    assert visitor_tab.evaluate(IDENTITY).startswith("authless:")
    visitor_credential = str(visitor_tab.locator("svc-shopper").last.get_attribute("credential"))

    # The shopper logs in in another tab: the site's cookies name the user, and that tab's page says so.
    user = new_user()
    login_tab = context.new_page()
    visit(context, login_tab, shop_url, user=user)
    assert login_tab.evaluate(IDENTITY) == f"user:{user}"
    visitor_tab.wait_for_function(f"() => ({IDENTITY})() === 'user:{user}'")

    recipe_id = _add_first_recipe(visitor_tab)

    assert recipe_id in recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=user)))
    assert recipe_id not in recipes_in(basket_of(prerender_url, visitor_credential))


def test_after_a_logout_in_another_tab_the_users_tab_no_longer_writes_to_the_users_basket(
    context: BrowserContext, prerender_url: str, shop_url: str
):
    user = new_user()
    user_tab, logout_tab = context.new_page(), context.new_page()
    visit(context, user_tab, shop_url, user=user)
    visit(context, logout_tab, shop_url, user=user)
    assert user_tab.evaluate(IDENTITY) == f"user:{user}"

    logout_tab.locator("[data-account=logout]").click()
    logout_tab.wait_for_function(f"() => ({IDENTITY})()?.startsWith('authless:')")
    visitor = str(logout_tab.evaluate(IDENTITY))
    assert all(cookie["name"] != USER_COOKIE for cookie in context.cookies(shop_url))
    user_tab.wait_for_function(f"() => ({IDENTITY})() === '{visitor}'")

    recipe_id = _add_first_recipe(user_tab)

    assert recipe_id not in recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=user)))
    visitor_credential = str(logout_tab.locator("svc-shopper").last.get_attribute("credential"))
    assert recipe_id in recipes_in(basket_of(prerender_url, visitor_credential))


def test_without_broadcast_channel_a_logout_in_another_tab_is_still_followed(context: BrowserContext, shop_url: str):
    """A browser without BroadcastChannel: the tabs follow nothing else, but a logout still reaches the tabs acting
    for the user (through localStorage's storage event), so none of them goes on liking or adding as the user who
    left a shared device (an outside check found the other tab liking a recipe as that user)."""
    context.add_init_script("delete window.BroadcastChannel;")
    user = new_user()
    user_tab, logout_tab = context.new_page(), context.new_page()
    visit(context, user_tab, shop_url, user=user)
    visit(context, logout_tab, shop_url, user=user)
    assert user_tab.evaluate("() => typeof BroadcastChannel") == "undefined"
    assert user_tab.evaluate(IDENTITY) == f"user:{user}"
    logout_tab.locator("[data-account=logout]").click()
    logout_tab.wait_for_function(f"() => ({IDENTITY})()?.startsWith('authless:')")
    user_tab.wait_for_function(f"() => ({IDENTITY})() !== 'user:{user}'")


def test_a_logout_leaves_nothing_of_the_shopper_in_the_browsers_storage(context: BrowserContext, shop_url: str):
    """The shop's logout calls `svc.user.reset()`: the next person at a shared device finds none of the user's
    entries (a diet saved in the preferences, a payment started), only the browser's own."""
    user = new_user()
    page = context.new_page()
    visit(context, page, shop_url, user=user)
    page.wait_for_function(f"() => ({IDENTITY})() === 'user:{user}'")
    shoppers = [
        "_svc/supplier-1/preferences",
        "_svc/supplier-1/payment-started",
        "_svc/cachedFinalizeMenuUrl",
        "_svc/planner/guests",
    ]
    page.evaluate(
        """(user) => {
          localStorage.setItem("_svc/supplier-1/preferences", JSON.stringify({ diets: ["sans-gluten"] }));
          // What paymentStarted keeps for this user (a cart paid a moment ago), valid as the SDK reads it.
          const cart = [{ id: "100001", quantity: 1 }];
          const kept = { total: 12, cart, at: Date.now(), shopper: user };
          localStorage.setItem("_svc/supplier-1/payment-started", JSON.stringify(kept));
          localStorage.setItem("_svc/cachedFinalizeMenuUrl", location.origin + "/planificateur");
          localStorage.setItem("_svc/planner/guests", "6");
          localStorage.setItem("_svc/planner/onboarded", "true");  // the browser's own: it stays
        }""",
        f"user:{user}",
    )
    page.evaluate("() => window.svc.basketSync.retailerBasketChanged([])")  # a report reads the kept cart, keeps it
    stored = "() => Object.keys(localStorage).filter((key) => key.startsWith('_svc/'))"
    assert set(shoppers) <= set(page.evaluate(stored))  # there before the logout
    page.locator("[data-account=logout]").click()
    page.wait_for_function(f"() => ({IDENTITY})()?.startsWith('authless:')")
    kept = page.evaluate(stored)
    assert not set(shoppers) & set(kept), kept
    assert "_svc/planner/onboarded" in kept  # the browser's (sdk/storage-entries.js, BROWSER_ENTRIES)


def test_a_finalize_waiting_for_a_login_resumes_in_the_login_tab_only(context: BrowserContext, shop_url: str):
    """The planner's finalize asked for a login (its resume URL in localStorage, which the tabs share): the tab
    where the shopper logs in goes back to it; a tab that only took the user's credential from it stays."""
    visitor_tab = context.new_page()
    visit(context, visitor_tab, shop_url, "/idees")
    visitor_tab.evaluate(
        """url => {
          localStorage.setItem("_svc/cachedFinalizeMenuUrl", url);
          const needs = { needs: "login", at: Date.now(), store: "1001" };
          localStorage.setItem("_svc/supplier-1/planner/finalizeNeeds", JSON.stringify(needs));
        }""",
        f"{shop_url}/planner/current-menu",
    )
    user = new_user()
    login_tab = context.new_page()
    visit(context, login_tab, shop_url, user=user, wait_until="commit")
    login_tab.wait_for_url(f"{shop_url}/planner/current-menu")
    visitor_tab.wait_for_function(f"() => ({IDENTITY})() === 'user:{user}'")
    visitor_tab.wait_for_load_state("load")
    assert visitor_tab.url == f"{shop_url}/idees"


def test_a_heart_pressed_in_one_tab_is_pressed_in_the_other(context: BrowserContext, shop_url: str):
    user = new_user()
    first, second = context.new_page(), context.new_page()
    visit(context, first, shop_url, user=user)
    visit(context, second, shop_url, user=user)
    recipe_id = hydrated_cards(first).first.get_attribute("recipe-id")
    heart = hydrated_cards(first).first.locator(".svc-like-button")
    other = second.locator(f"svc-recipe-card[recipe-id='{recipe_id}'] .svc-like-button").first
    expect(other).to_have_attribute("aria-pressed", "false")
    heart.click()
    expect(heart).to_have_attribute("aria-pressed", "true")
    expect(other).to_have_attribute("aria-pressed", "true")
    heart.click()
    expect(other).to_have_attribute("aria-pressed", "false")


def test_a_product_added_to_a_recipe_another_device_added_keeps_its_lines(browser, shop_url: str):
    """The recipe's drawer open on one device; the recipe added whole on another; then one product added in the
    first drawer, which had not heard: the service sets that line in the entry it holds, and the rest stays."""
    user = new_user()
    devices = [browser.new_context(), browser.new_context()]
    try:
        phone, laptop = devices[0].new_page(), devices[1].new_page()
        visit(devices[0], phone, shop_url, user=user)
        card = hydrated_cards(phone).first
        recipe_id = str(card.get_attribute("recipe-id"))
        card.locator(".svc-recipe-card-cta").click()
        dialog = phone.get_by_role("dialog")
        expect(dialog.locator(".svc-recipe-details__add-all")).to_be_enabled()

        visit(devices[1], laptop, shop_url, user=user)
        expect(hydrated_cards(laptop).first).to_be_visible()
        # The laptop's "add all" of that recipe (its shelf may not show it: the SDK's call the drawer makes).
        laptop.evaluate("id => window.svc[Symbol.for('prerender.sdk.internal')].basket.addRecipe(id, 4)", recipe_id)
        laptop.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
        whole = laptop.evaluate(
            "id => window.svc.basket.basket$.value.recipes.find((r) => r.recipe_id === id)", recipe_id
        )

        dialog.locator("[data-panel=shopping] [data-action=add-product]").first.click()
        phone.wait_for_function(
            "id => window.svc.basket.basket$.value.recipes.some((r) => r.recipe_id === id)", arg=recipe_id
        )
        phone.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
        entry = phone.evaluate(
            "id => window.svc.basket.basket$.value.recipes.find((r) => r.recipe_id === id)", recipe_id
        )
        assert entry["guests"] == whole["guests"]
        assert len(entry["lines"]) == len(whole["lines"])
    finally:
        for device in devices:
            device.close()


def _open_drawer(page: Page, index: int) -> str:
    """Opens the drawer of the shelf's card at ``index``, ready to "add all"; returns the card's recipe id."""
    card = hydrated_cards(page).nth(index)
    recipe_id = str(card.get_attribute("recipe-id"))
    card.locator(".svc-recipe-card-cta").click()
    expect(page.get_by_role("dialog").locator(".svc-recipe-details__add-all")).to_be_enabled()
    return recipe_id


def test_two_recipes_added_at_the_same_moment_in_two_tabs_are_both_kept(
    context: BrowserContext, prerender_url: str, shop_url: str
):
    """Two tabs' "add all" pressed in the same millisecond: each tab pushes its products to the shop's cart and
    reports the cart it gets back, which may not show the other tab's products yet. Both recipes stay in the
    basket, and the shop's cart holds the products of both."""
    user = new_user()
    first, second = context.new_page(), context.new_page()
    seen: Counter[tuple[Page, str]] = Counter()

    def count_answers(page: Page) -> None:
        def answered(response: Response) -> None:
            path = response.url.split("?")[0]
            for route in ("/basket/reconcile", "/basket/recipes"):
                if path.endswith(route):
                    seen[(page, route)] += 1

        page.on("response", answered)

    def wait_until(done: Callable[[], bool], what: str) -> None:
        for _ in range(200):  # 10 s at most
            if done():
                return
            first.wait_for_timeout(50)
        raise AssertionError(what)

    for page in (first, second):
        count_answers(page)
        visit(context, page, shop_url, user=user)
    recipes = [_open_drawer(first, 0), _open_drawer(second, 1)]
    for page in (first, second):  # the cart each page reports at load
        wait_until(lambda page=page: seen[(page, "/basket/reconcile")] > 0, "a tab did not report its cart")

    # Both clicks at one moment of the clock the two pages share.
    seen.clear()
    at = first.evaluate("() => Date.now() + 400")
    for page in (first, second):
        page.evaluate(
            """at => setTimeout(() => {
                 document.querySelector("[role=dialog] .svc-recipe-details__add-all").click();
               }, at - Date.now())""",
            at,
        )
    # Both writes answered, and a cart reconciled (each tab's, or only the newer one: a tab whose own reconcile was
    # still queued when the other tab told it a newer cart does not send it); then nothing is left to do.
    for page in (first, second):
        wait_until(lambda page=page: seen[(page, "/basket/recipes")] > 0, "a tab's add all was not answered")
    wait_until(lambda: seen[(first, "/basket/reconcile")] + seen[(second, "/basket/reconcile")] > 0, "no cart came")
    for page in (first, second):
        page.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")

    basket = basket_of(prerender_url, shopper_credential(prerender_url, user=user))
    assert sorted(recipes_in(basket)) == sorted(recipes)
    cart = {line["id"]: line["quantity"] for line in first.request.get(f"{shop_url}/cart/lines").json()["lines"]}
    for product in basket["products"]:
        assert cart.get(str(product["id"]), 0) >= product["quantity"], product


def test_a_tab_s_older_cart_reaching_the_service_after_another_tab_s_newer_one_takes_nothing_out(
    context: BrowserContext, prerender_url: str, shop_url: str
):
    """Two tabs' reconciles crossing on their way. The first tab adds its recipe and reports the cart the shop
    gives back (its own products only); that reconcile is held on the network while the second tab adds its
    recipe and reconciles the cart that shows both (which ends their wait: coreapi/services/cart_waits.py). The
    first tab's older cart, arriving last, takes nothing out: both recipes stay, as the shop's cart holds both."""
    user = new_user()
    first, second = context.new_page(), context.new_page()
    for page in (first, second):
        visit(context, page, shop_url, user=user)
    recipes = [_open_drawer(first, 0), _open_drawer(second, 1)]
    for page in (first, second):  # the carts they reported at load are reconciled
        page.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")

    held: list[Route] = []
    first.route(re.compile(r"/basket/reconcile(\?|$)"), lambda route: held.append(route))
    first.locator("[role=dialog] .svc-recipe-details__add-all").click()
    for _ in range(200):  # 10 s at most
        if held:
            break
        first.wait_for_timeout(50)
    assert held, "the first tab did not report its cart"

    with second.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")):
        second.locator("[role=dialog] .svc-recipe-details__add-all").click()
    second.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
    credential = shopper_credential(prerender_url, user=user)
    both = basket_of(prerender_url, credential)
    assert sorted(recipes_in(both)) == sorted(recipes)

    with first.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")) as answered:
        held[0].continue_()
    assert answered.value.status == 200
    first.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
    assert basket_of(prerender_url, credential) == both
    cart = {line["id"]: line["quantity"] for line in first.request.get(f"{shop_url}/cart/lines").json()["lines"]}
    for product in both["products"]:
        assert cart.get(str(product["id"]), 0) >= product["quantity"], product


def test_a_recipe_removed_in_one_tab_after_the_cart_changed_in_another_stays_removed(
    context: BrowserContext, prerender_url: str, shop_url: str
):
    """The preview's tab last saw the cart when it loaded; the shopper then takes one more of a recipe's product on
    the cart page, in another tab, and removes that recipe in the preview: the cart keeps the extra one, and the
    removal is checked against the cart as the cart page reported it (checked against the preview page's own copy,
    it waited for none of that product, and was undone 5 s later)."""
    user = new_user()
    shelf = context.new_page()
    visit(context, shelf, shop_url, user=user)
    recipe_id = _add_first_recipe(shelf)
    preview_tab = context.new_page()
    preview_tab.clock.install()  # its 5 s time limit passes when the test says
    visit(context, preview_tab, shop_url, "/idees/panier", user=user)
    row = preview_tab.locator(f"svc-catalog[hydrated] .svc-basket-preview__item[data-recipe-id='{recipe_id}']")
    expect(row).to_be_visible()

    cart_tab = context.new_page()
    visit(context, cart_tab, shop_url, "/cart", user=user)
    line = cart_tab.locator("li.cart-line").first
    product_id = str(line.get_attribute("data-product-id"))
    # One more of it, on the cart page, which reports the cart (its reconcile answered: the cart was told around).
    with cart_tab.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")):
        line.locator("[data-cart-action=more]").click()

    with preview_tab.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")):
        row.locator("[data-action=remove-recipe]").click()
    preview_tab.clock.run_for(6000)
    preview_tab.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")

    assert recipe_id not in recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=user)))
    expect(row).to_be_hidden()
    cart = {line["id"]: line["quantity"] for line in cart_tab.request.get(f"{shop_url}/cart/lines").json()["lines"]}
    assert cart == {product_id: 1}


def _two_planners(context: BrowserContext, shop_url: str, stores: tuple[str, str] = ("1001", "1001")) -> list[Locator]:
    """The current-menu page of one user in two tabs (at those stores, in that order), the first visit's onboarding
    closed: the two `<svc-planner>` elements."""
    user = new_user()
    planners = []
    for index, store in enumerate(stores):
        page = context.new_page()
        visit(context, page, shop_url, "/planner/current-menu", user=user, store=store)
        planner = page.locator("svc-planner[hydrated]")
        expect(planner).to_be_visible()
        if index == 0:
            page.keyboard.press("Escape")  # the onboarding of the first visit
            expect(page.locator("svc-planner-onboarding[open]")).to_have_count(0)
        planners.append(planner)
    return planners


def _suggestion_to_add(planner: Locator) -> tuple[str, Locator]:
    suggestion = planner.locator("[data-role=panel-items] > li:has([data-action=add]:not([disabled]))").first
    return str(suggestion.get_attribute("data-recipe-id")), suggestion


def test_a_recipe_added_to_the_menu_in_one_tab_shows_in_the_other_tabs_planner(context: BrowserContext, shop_url: str):
    """The current-menu page open in two tabs: a suggestion added in one is in the other's menu, without a reload,
    and the other's suggestion says "in the menu"; removed again, it leaves the other's menu and can be added."""
    planner, other = _two_planners(context, shop_url)
    recipe_id, suggestion = _suggestion_to_add(planner)
    row = other.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")
    add_there = other.locator(f".svc-planner__suggestion[data-recipe-id='{recipe_id}'] [data-action=add]")
    expect(row).to_have_count(0)
    suggestion.locator("[data-action=add]").click()
    expect(planner.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(1)

    expect(row).to_have_count(1)
    expect(add_there).to_be_disabled()
    assert_no_axe_violations(other.page, ["svc-planner"], what="the menu drawn again after another tab's addition")

    planner.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}'] [data-action=remove]").click()
    expect(row).to_have_count(0)
    expect(add_there).to_be_enabled()


def test_the_guests_changed_in_one_tab_reach_the_other_tabs_planner_and_its_cards(
    context: BrowserContext, shop_url: str
):
    """The menu's guests changed in one tab: the other tab's menu says the new count, and so do the cards of its
    panel (drawn for the count the page was first drawn for until then); the card's control that had the focus
    there has it again."""
    planner, other = _two_planners(context, shop_url)
    start = int(other.get_attribute("guests") or "0")
    cards = other.locator("[data-role=panel-items] .svc-recipe-card")
    expect(cards.first).to_have_attribute("guests", str(start))
    second = other.locator("[data-role=panel-items] > li").nth(1)
    second.locator("[data-action=see-recipe]").focus()
    planner.locator(".svc-planner__menu [data-action=guests-increase]").click()
    expect(other).to_have_attribute("guests", str(start + 1))
    expect(other).not_to_have_attribute("busy", "")
    # The card the shopper was on there is drawn again, its control keeping the focus.
    expect(second.locator("[data-action=see-recipe]")).to_be_focused()
    shown = cards.evaluate_all(
        "(cards) => cards.map((c) => [c.getAttribute('guests'),"
        " c.querySelector('.svc-recipe-card__guests').textContent.trim()])"
    )
    assert shown and {tuple(pair) for pair in shown} == {(str(start + 1), f"{start + 1} pers.")}


def test_a_planner_tab_at_another_store_does_not_draw_the_menu_another_tab_changed(
    context: BrowserContext, shop_url: str
):
    """Drawing the page asks the menu at the tab's store, which moves the menu there (docs/upstream.md): a tab left at
    another store leaves the menu where the shopper's newer tab put it."""
    stale, planner = _two_planners(context, shop_url, stores=("1002", "1001"))
    # What the stale tab hears (its page's own element heard it first: the SDK's stream calls it before this one).
    stale.page.evaluate(
        """() => {
          window.heard = [];
          const { planner } = window.svc[Symbol.for("prerender.sdk.internal")];
          planner.changedElsewhere$.subscribe((m) => window.heard.push(m));
        }"""
    )
    recipe_id, suggestion = _suggestion_to_add(planner)
    suggestion.locator("[data-action=add]").click()
    expect(planner.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(1)
    stale.page.wait_for_function("() => window.heard.length === 1")
    expect(stale).not_to_have_attribute("busy", "")
    expect(stale.locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(0)
    menu = planner.page.evaluate(
        """() => window.svc[Symbol.for("prerender.sdk.internal")].client
          .request("GET", "/menu/current", { version: "v2" })"""
    )
    assert str(menu["store_id"]) == "1001"


def test_a_drawer_following_another_tab_keeps_the_alternatives_list_the_shopper_had_open(
    context: BrowserContext, shop_url: str
):
    user = new_user()
    first, second = context.new_page(), context.new_page()
    visit(context, first, shop_url, user=user)
    visit(context, second, shop_url, user=user)
    opened = []
    for page in (first, second):
        card = hydrated_cards(page).first
        card.locator(".svc-recipe-card-cta").click()
        dialog = page.get_by_role("dialog")
        expect(dialog.locator(".svc-recipe-details__add-all")).to_be_enabled()
        opened.append(dialog)
    row = opened[1].locator("[data-ingredient-id]:has(.svc-recipe-details__replace)").first
    ingredient = row.get_attribute("data-ingredient-id")
    row.locator(".svc-recipe-details__replace").click()
    alternatives = row.locator(".svc-recipe-details__alternatives")
    expect(alternatives).to_be_visible()
    where = """() => {
      const active = document.activeElement;
      return [active.closest("[data-ingredient-id]")?.dataset.ingredientId,
              Boolean(active.closest(".svc-recipe-details__alternatives"))];
    }"""
    assert second.evaluate(where) == [ingredient, True]  # on the list's first product

    shown = int(opened[1].locator("[data-role=guests]").inner_text())
    opened[0].locator("[data-action=guests-increase]").click()
    expect(opened[0].locator(f"svc-recipe-details[guests='{shown + 1}']")).to_be_attached()
    opened[0].locator(".svc-recipe-details__add-all").click()

    expect(opened[1].locator("[data-role=guests]")).to_have_text(str(shown + 1))  # drawn anew for the new count
    again = opened[1].locator(f"[data-ingredient-id='{ingredient}']")
    expect(again.locator(".svc-recipe-details__alternatives")).to_be_visible()
    expect(again.locator(".svc-recipe-details__replace")).to_have_attribute("aria-expanded", "true")
    assert second.evaluate(where) == [ingredient, True]


def test_planner_tabs_draw_the_menu_of_the_shopper_a_logout_in_another_tab_made(context: BrowserContext, shop_url: str):
    """A logout in a third tab: the current-menu pages, which take the visitor's credential, show the visitor's
    menu (they kept drawing the user's, and their next action answered "changed meanwhile")."""
    planners = _two_planners(context, shop_url)
    user_menu = str(planners[1].get_attribute("menu-id"))
    logout_tab = context.new_page()
    visit(context, logout_tab, shop_url)
    logout_tab.locator("[data-account=logout]").click()
    logout_tab.wait_for_function(f"() => ({IDENTITY})()?.startsWith('authless:')")
    for planner in planners:
        expect(planner).not_to_have_attribute("menu-id", user_menu)
        expect(planner).not_to_have_attribute("busy", "")
    recipe_id, suggestion = _suggestion_to_add(planners[1])
    suggestion.locator("[data-action=add]").click()
    expect(planners[1].locator(f".svc-planner__menu-item[data-recipe-id='{recipe_id}']")).to_have_count(1)
    expect(planners[1].locator("[role=alert], [data-role=message]").filter(has_text="entre-temps")).to_have_count(0)

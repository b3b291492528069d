"""The hydrated cards of the demo shop against the real stack: the drawer, the basket and the shop's cart
kept together (docs/sdk.md, basketSync), likes, and cards inserted at runtime. The merge of the logged-out
basket at login: test_shopper_credential.py."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import requests
from playwright.sync_api import BrowserContext, Locator, Page, Route, expect

from examples.shop.visitor import USER_COOKIE
from tests.demo_sites import shop_cookie

from .axe import assert_no_axe_violations
from .helpers import FOCUS_IN_DIALOG, euros, hydrated_cards, new_user, record_events, visit


def test_the_drawer_opens_from_the_basket_icon_the_picture_and_the_title_and_gives_focus_back(
    page: Page, context: BrowserContext, shop_url: str
):
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    cta, title = card.locator(".svc-recipe-card-cta"), card.locator(".svc-recipe-card__title-button")
    dialog = page.get_by_role("dialog")

    cta.click()
    expect(dialog).to_be_visible()
    expect(dialog).to_have_attribute("aria-modal", "true")
    expect(dialog.locator(".svc-recipe-details__title")).to_have_text(title.inner_text().strip())
    page.wait_for_function(FOCUS_IN_DIALOG)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(cta).to_be_focused()

    title.click()
    expect(dialog).to_be_visible()
    dialog.locator(".svc-drawer__close").click()
    expect(dialog).to_be_hidden()
    expect(title).to_be_focused()

    card.locator(".svc-recipe-card__picture").click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(title).to_be_focused()  # the picture is out of the tab order: focus goes to the title


def test_a_single_page_app_s_route_change_closes_the_drawer(page: Page, context: BrowserContext, shop_url: str):
    """A single-page app's Back (popstate) left the drawer open over the next view, the page's scroll locked, and
    the SDK had no call to close it (an outside check of a single-page storefront): it closes on the history's
    move now, and `svc.recipes.closeDetails()` closes it for a router that changes views otherwise."""
    visit(context, page, shop_url)
    dialog = page.get_by_role("dialog")
    page.evaluate("() => history.pushState({ view: 'shelf' }, '', '#shelf')")  # the app's route
    page.evaluate("() => window.svc.recipes.openDetails('43')")
    expect(dialog).to_be_visible()
    page.go_back()  # the app's Back: popstate, the same document
    expect(dialog).to_be_hidden()
    assert not page.evaluate("() => document.documentElement.classList.contains('svc-scroll-lock')")
    page.evaluate("() => window.svc.recipes.openDetails('43')")
    expect(dialog).to_be_visible()
    page.evaluate("() => window.svc.recipes.closeDetails()")
    expect(dialog).to_be_hidden()
    page.evaluate("() => window.svc.recipes.closeDetails()")  # closed already: nothing happens
    # A route change right after a click: the opening still waiting for its module does not open it after.
    page.evaluate("() => { void window.svc.recipes.openDetails('43'); window.svc.recipes.closeDetails(); }")
    page.wait_for_timeout(300)
    expect(dialog).to_be_hidden()


def test_at_375_px_the_keyboard_alone_opens_and_closes_the_drawer(browser, shop_url: str):
    context = browser.new_context(viewport={"width": 375, "height": 740}, locale="fr-FR")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        visit(context, page, shop_url)
        expect(hydrated_cards(page).first).to_be_visible()
        for _ in range(80):  # Tab only, up to the first card's title
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement?.matches('.svc-recipe-card__title-button')"):
                break
        opener = page.locator(":focus")
        expect(opener).to_have_class(re.compile("svc-recipe-card__title-button"))
        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        page.wait_for_function(FOCUS_IN_DIALOG)
        box = dialog.bounding_box()
        assert box is not None and box["width"] <= 375
        for _ in range(25):  # focus stays in the dialog
            page.keyboard.press("Tab")
        assert page.evaluate(FOCUS_IN_DIALOG)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(opener).to_be_focused()
        assert not errors, errors
    finally:
        context.close()


def test_the_guests_stepper_prices_the_recipe_again(page: Page, context: BrowserContext, shop_url: str):
    """One more guest: quantities scale and the drawer is priced again for them. (The total itself may stay
    the same when no ingredient needs one more package, so it is checked against the re-fetched lines.)"""
    visit(context, page, shop_url)
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    total = dialog.locator(".svc-recipe-details__total-amount")
    expect(total).to_have_text(re.compile(r"\d"))
    guests = dialog.locator("[data-role=guests]")
    quantity = dialog.locator("[data-panel=shopping] .svc-recipe-details__ingredient-quantity").first
    before_guests, before_quantity = int(guests.inner_text()), quantity.inner_text()
    dialog.locator("[data-action=guests-increase]").click()
    expect(guests).to_have_text(str(before_guests + 1))
    expect(quantity).not_to_have_text(before_quantity)
    lines = dialog.locator("[data-panel=shopping] .svc-recipe-details__product-price").all_inner_texts()
    assert euros(total.inner_text()) == sum(euros(line) for line in lines if line.strip())


def test_a_cards_guests_set_by_the_page_apply_only_as_a_count(page: Page, context: BrowserContext, shop_url: str):
    """The card's `guests`, set by the page, is the count its drawer opens with when it is 1 to 50 in digits; any
    other value is ignored (the recipe's own count), as the add-to-cart button's (README.md)."""
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    dialog = page.get_by_role("dialog")
    guests = dialog.locator("[data-role=guests]")
    card.evaluate("(card) => card.removeAttribute('guests')")
    card.locator(".svc-recipe-card-cta").click()
    expect(guests).to_have_text(re.compile(r"^\d+$"))
    own = guests.inner_text()
    assert own != "9", "the recipe's own count must differ from the page's for the test to tell them apart"
    page.keyboard.press("Escape")
    for value, shown in (("9 personnes", own), ("9", "9")):
        card.evaluate("(card, value) => card.setAttribute('guests', value)", value)
        card.locator(".svc-recipe-card-cta").click()
        expect(guests).to_have_text(shown)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()


def test_a_step_taken_while_the_details_come_again_is_not_lost(page: Page, context: BrowserContext, shop_url: str):
    """A second "+" while the drawer fetches the details of the first one: the details that arrive take it up and
    come again for it (they dropped it: 4, +, +, and the drawer settled on 5). The page's clock stands still, so
    that the second count cannot settle before the first count's details arrive."""
    start_time = dt.datetime(2026, 1, 5, 10, 0, 0)
    page.clock.install(time=start_time)
    page.clock.pause_at(start_time + dt.timedelta(seconds=1))
    visit(context, page, shop_url)
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    guests = dialog.locator("[data-role=guests]")
    expect(dialog.locator(".svc-recipe-details__total-amount")).to_have_text(re.compile(r"\d"))
    start = int(guests.inner_text())
    held: list[Route] = []
    # The first request is held (the details of the first step), any later one goes on.
    page.route("**/recipe-details?**", lambda route: route.continue_() if held else held.append(route))
    dialog.locator("[data-action=guests-increase]").click()
    with page.expect_request("**/recipe-details?**"):  # the first step settles: its details are on their way
        page.clock.run_for(500)
    dialog.locator("[data-action=guests-increase]").click()
    expect(guests).to_have_text(str(start + 2))
    held[0].continue_()
    expect(dialog.locator(f"svc-recipe-details[guests='{start + 1}']")).to_be_attached()
    expect(guests).to_have_text(str(start + 2))  # the step not settled yet, taken up
    page.clock.run_for(500)
    expect(dialog.locator(f"svc-recipe-details[guests='{start + 2}']")).to_be_attached()
    expect(guests).to_have_text(str(start + 2))


def _first_drawer_of_a_new_user(
    page: Page, context: BrowserContext, shop_url: str
) -> tuple[Locator, str | None, Locator, Locator]:
    """The shelf of a new user, its first card's drawer open and loaded: the card, its recipe, the dialog and its
    guest count."""
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__add-all")).to_be_enabled()
    return card, recipe_id, dialog, dialog.locator("[data-role=guests]")


def test_a_recipe_in_the_basket_reopens_at_the_baskets_guest_count(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """The card keeps the count it was rendered with (4): reopened after the stepper put the basket's recipe at
    one more, the drawer shows the basket's count, and its button does not put the recipe back at the card's."""
    card, recipe_id, dialog, guests = _first_drawer_of_a_new_user(page, context, shop_url)
    rendered = int(guests.inner_text())
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    dialog.locator("[data-action=guests-increase]").click()
    page.wait_for_function(IN_BASKET_FOR, arg=[recipe_id, rendered + 1])
    page.keyboard.press("Escape")
    expect(card).to_have_attribute("guests", str(rendered))  # the retailer's card as rendered

    card.locator(".svc-recipe-card-cta").click()
    expect(guests).to_have_text(str(rendered + 1))
    add_all = dialog.locator(".svc-recipe-details__add-all")
    expect(add_all).to_be_enabled()
    add_all.click()
    # Once every write the click made is done, the basket still holds the recipe for the basket's count.
    page.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
    assert page.evaluate(IN_BASKET_FOR, [recipe_id, rendered + 1])


def test_a_first_product_added_makes_the_recipe_for_the_guests_the_drawer_shows(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """One product added after the stepper moved: the recipe enters the basket for the drawer's count (it entered
    for the recipe's own, below the packages counted for the drawer's), with that one line, and the stepper stays."""
    _, recipe_id, dialog, guests = _first_drawer_of_a_new_user(page, context, shop_url)
    wanted = int(guests.inner_text()) + 1
    dialog.locator("[data-action=guests-increase]").click()
    expect(guests).to_have_text(str(wanted))
    expect(dialog.locator(f"svc-recipe-details[guests='{wanted}']")).to_be_attached()  # the details for that count
    dialog.locator("[data-panel=shopping] [data-action=add-product]").first.click()
    page.wait_for_function(IN_BASKET_FOR, arg=[recipe_id, wanted])
    page.evaluate("() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()")
    entry = page.evaluate("id => window.svc.basket.basket$.value.recipes.find((r) => r.recipe_id === id)", recipe_id)
    assert entry["guests"] == wanted and len(entry["lines"]) == 1
    expect(guests).to_have_text(str(wanted))


IN_BASKET_FOR = (
    "([id, n]) => window.svc.basket.basket$.value?.recipes.some((r) => r.recipe_id === id && r.guests === n)"
)


def shown_prices(dialog) -> Decimal:
    """The sum of the prices the drawer's shopping list shows (a row without a product shows none)."""
    texts = dialog.locator("[data-panel=shopping] .svc-recipe-details__product-price").all_inner_texts()
    return sum((euros(text) for text in texts if text.strip()), Decimal(0))


def test_add_all_reaches_the_cart_and_a_cart_change_reaches_the_basket(
    page: Page, context: BrowserContext, shop_url: str
):
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    expect(card).to_have_attribute("in-basket", "false")
    # The CTA's name says its state and its recipe: a list of the page's buttons tells the cards' CTAs apart.
    expect(card.locator(".svc-recipe-card-cta")).to_have_accessible_name(
        f"Ajouter les ingrédients au panier pour la recette {title}"
    )
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    for each in page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").all():
        expect(each).to_have_attribute("in-basket", "true")
        expect(each).to_have_class(re.compile(r"\bin-basket\b"))
    expect(card.locator(".svc-recipe-card-cta")).to_have_accessible_name(
        f"Voir les ingrédients dans le panier pour la recette {title}"
    )
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")  # the push reached the shop's cart
    page.keyboard.press("Escape")

    # Another card of the same recipe, inserted later, starts in the basket too.
    page.goto(f"{shop_url}/injection")
    page.locator("#injection-recipe").evaluate("(select, id) => select.add(new Option(id, id, true, true))", recipe_id)
    page.get_by_role("button", name="Afficher la carte").click()
    injected = page.locator(f"[data-injection-slot] svc-recipe-card[recipe-id='{recipe_id}'][hydrated]")
    expect(injected).to_have_attribute("in-basket", "true")

    page.goto(f"{shop_url}/cart")
    lines = page.locator(".cart-line")
    expect(lines.first).to_be_visible()
    count = lines.count()
    assert count >= 1
    expect(lines.first.locator(".cart-line__name")).not_to_have_text(re.compile(r"^Produit "))  # named by coreapi

    # The cart drives the basket: a removed product leaves it; an empty cart empties it.
    removed = lines.first.get_attribute("data-product-id")
    lines.first.locator("[data-cart-action=remove]").click()
    expect(lines).to_have_count(count - 1)
    page.wait_for_function(
        "id => !(window.svc.basket.basket$.value?.products ?? []).some((p) => String(p.id) === id)", arg=removed
    )
    while lines.count():
        n = lines.count()
        lines.first.locator("[data-cart-action=remove]").click()
        expect(lines).to_have_count(n - 1)
    expect(page.locator("[data-cart-empty]")).to_be_visible()
    page.wait_for_function("() => (window.svc.basket.basket$.value?.recipe_count ?? -1) === 0")
    page.goto(f"{shop_url}/")
    expect(page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']")).to_have_attribute("in-basket", "false")


def test_add_all_again_for_the_same_guests_says_nothing_was_added(page: Page, context: BrowserContext, shop_url: str):
    """Once the recipe is in the basket, its main button reads "Recette dans le panier" and still adds the recipe:
    pressed again for the same guests, the drawer says that nothing was added (a press that changed nothing said
    nothing, to the eye or to a screen reader), whether or not the host asked for the confirmation of additions
    (the shop asks: the first press says how many products were added). The basket is unchanged."""
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    add_all = dialog.locator(".svc-recipe-details__add-all")
    add_all.click()
    expect(card).to_have_attribute("in-basket", "true")
    expect(add_all).to_have_text("Recette dans le panier")
    message = dialog.locator(".svc-drawer__message [role=status]")
    expect(message).to_have_text(re.compile(r"^\d+ produits? ajoutés? à votre panier$"))
    expect(add_all).not_to_have_attribute("aria-busy", "true")
    before = page.evaluate("() => JSON.stringify(window.svc.basket.basket$.value?.products)")
    add_all.click()
    expect(message).to_have_text("La recette est déjà dans votre panier\u00a0: rien n'a été ajouté.")
    expect(add_all).not_to_have_attribute("aria-busy", "true")
    assert page.evaluate("() => JSON.stringify(window.svc.basket.basket$.value?.products)") == before
    assert_no_axe_violations(page, include=["svc-drawer[open]"])


# The guests of the basket's entry for the recipe `id` (NaN when it has none), from the SDK's public basket.
ENTRY_GUESTS = "Number(window.svc.basket.basket$.value?.recipes?.find((r) => String(r.recipe_id) === id)?.guests)"


def test_a_guest_change_the_basket_refuses_is_not_tracked(page: Page, context: BrowserContext, shop_url: str):
    """`recipe.change-guests` is sent once the basket holds the new count, as the basket's other events: a change
    the service refused (a 500 here) sent it with a count the basket never had (an analyst's check). The drawer
    then shows the basket's count again: it kept showing the refused one, its products and total with it."""
    visit(context, page, shop_url, user=new_user())
    record_events(page)
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    guests = page.evaluate(f"id => {ENTRY_GUESTS}", recipe_id)
    write = re.compile(rf"/v[12]/basket/recipes/{recipe_id}(\?|$)")
    page.route(write, lambda route: route.fulfill(status=500) if route.request.method == "PATCH" else route.fallback())
    increase = dialog.locator("[data-action=guests-increase]")
    increase.click()
    expect(dialog.locator("[data-role=guests]")).to_have_text(str(guests + 1))  # the step shown at once
    expect(dialog.locator(".svc-drawer__message [role=alert]")).not_to_have_text("")
    assert page.evaluate(f"id => {ENTRY_GUESTS}", recipe_id) == guests
    assert [e for e in page.evaluate("window.__events") if e["name"] == "recipe.change-guests"] == []
    expect(dialog.locator("[data-role=guests]")).to_have_text(str(guests))
    expect(dialog.locator(".svc-recipe-details")).to_have_attribute("guests", str(guests))  # the details refetched
    page.unroute(write)
    increase.click()
    page.wait_for_function(f"([id, n]) => {ENTRY_GUESTS} === n", arg=[recipe_id, guests + 1])
    changes = [e for e in page.evaluate("window.__events") if e["name"] == "recipe.change-guests"]
    assert [c["props"] for c in changes] == [{"recipe_id": recipe_id, "guests": guests + 1}]


def test_a_guest_change_refused_after_another_recipe_opened_leaves_that_recipe_alone(
    page: Page, context: BrowserContext, shop_url: str
):
    """A recipe's guest change refused late, once the shopper has opened another recipe's drawer at the refused
    count: the drawer stays on the recipe it shows, for the count shown (a review found the first recipe's basket
    count applied to the second's details, its products and "add all" with it)."""
    visit(context, page, shop_url, user=new_user())
    cards = hydrated_cards(page)
    first, second = cards.nth(0), cards.nth(1)
    first_id, second_id = first.get_attribute("recipe-id"), second.get_attribute("recipe-id")
    first.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(first).to_have_attribute("in-basket", "true")
    guests = page.evaluate(f"id => {ENTRY_GUESTS}", first_id)
    held: list[Route] = []
    write = re.compile(rf"/v[12]/basket/recipes/{first_id}(\?|$)")
    page.route(write, lambda route: held.append(route) if route.request.method == "PATCH" else route.fallback())
    dialog.locator("[data-action=guests-increase]").click()
    while not held:  # the change's write, kept unanswered
        page.wait_for_timeout(50)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    second.locator(".svc-recipe-card-cta").click()
    details = dialog.locator(f".svc-recipe-details[recipe-id='{second_id}']")
    expect(details).to_be_visible()
    shown = int(details.get_attribute("guests") or "0")
    step = "increase" if shown < guests + 1 else "decrease"
    for _ in range(abs(guests + 1 - shown)):
        dialog.locator(f"[data-action=guests-{step}]").click()
    expect(dialog.locator(".svc-recipe-details")).to_have_attribute("guests", str(guests + 1))

    for route in held:
        route.fulfill(status=500)
    page.unroute(write)
    expect(dialog.locator(".svc-drawer__message [role=alert]")).not_to_have_text("")
    busy = page.evaluate(
        """async () => {
          await window.svc[Symbol.for("prerender.sdk.internal")].basket.whenIdle();
          return document.querySelector("[role=dialog] [aria-busy=true]") !== null;
        }"""
    )
    assert not busy, "the refusal reloaded the drawer"
    expect(dialog.locator(".svc-recipe-details")).to_have_attribute("recipe-id", str(second_id))
    expect(dialog.locator(".svc-recipe-details")).to_have_attribute("guests", str(guests + 1))
    assert page.evaluate(f"id => {ENTRY_GUESTS}", first_id) == guests


def test_add_all_with_a_swapped_product_is_one_basket_write(page: Page, context: BrowserContext, shop_url: str):
    """The product chosen in the drawer goes with the recipe in one request: no PUT per product after it."""
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    row = dialog.locator("[data-panel=shopping] .svc-recipe-details__ingredient:has([data-action=replace])").first
    ingredient_id = row.get_attribute("data-ingredient-id")
    total = dialog.locator(".svc-recipe-details__total-amount")
    assert euros(total.inner_text()) == shown_prices(dialog)  # the server's total: the products it shows
    row.locator("[data-action=replace]").click()
    choice = row.locator("[data-action=choose-product]:visible").first
    chosen = choice.get_attribute("data-product-id")
    before = euros(row.locator(".svc-recipe-details__product-price").inner_text())
    choice.click()
    expect(row).to_have_attribute("data-product-id", chosen)
    # The total follows the chosen product before anything is added: what "add all" is about to put in the cart.
    after = euros(row.locator(".svc-recipe-details__product-price").inner_text())
    assert after != before, "the first alternative costs the same: pick another recipe for this test"
    assert euros(total.inner_text()) == shown_prices(dialog)

    writes: list[tuple[str, str, object]] = []

    def record(request) -> None:
        if request.method != "GET" and "/basket" in request.url:
            writes.append((request.method, request.url, request.post_data_json))

    page.on("request", record)
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")  # the push reached the shop's cart
    # The shop reporting its cart afterwards (POST /basket/reconcile) is the cart sync, not part of the add.
    added = [write for write in writes if not write[1].split("?")[0].endswith("/basket/reconcile")]
    assert [(method, url.split("?")[0].rsplit("/", 2)[-2:]) for method, url, _ in added] == [
        ("POST", ["basket", "recipes"])
    ], writes
    body = added[0][2]
    assert isinstance(body, dict) and body["recipe_id"] == recipe_id
    assert [(line["ingredient_id"], line["product_id"]) for line in body["lines"]] == [(ingredient_id, chosen)]

    held = page.evaluate(
        """([recipeId, ingredientId]) => window.svc.basket.basket$.value?.recipes
             .find((entry) => entry.recipe_id === recipeId)?.lines
             .find((line) => line.ingredient_id === ingredientId)?.product_id""",
        [recipe_id, ingredient_id],
    )
    assert held == chosen
    expect(row).to_have_attribute("data-product-id", chosen)
    expect(row.locator("[data-action=increase-product]")).to_be_visible()  # its quantity stepper
    # The demo shop asks for the confirmations (examples/shop/static/svc-setup.js): said inside the dialog.
    expect(dialog.locator(".svc-drawer__message")).to_have_text(re.compile(r"produits? ajoutés? à votre panier"))
    assert_no_axe_violations(page, what="the drawer after add all with a swapped product")


def test_the_minus_button_and_payment(page: Page, context: BrowserContext, shop_url: str):
    visit(context, page, shop_url)
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")
    page.goto(f"{shop_url}/cart")
    line = page.locator(".cart-line").first
    quantity = int(line.get_attribute("data-quantity"))
    line.locator("[data-cart-action=less]").click()
    if quantity > 1:
        expect(line.locator("[data-cart-quantity]")).to_have_text(str(quantity - 1))
    # The SDK confirms the basket with the paid cart (POST /baskets/handle-payment) before the cart empties.
    with page.expect_response(lambda r: "/baskets/handle-payment?order-id=" in r.url) as paid:
        page.locator("[data-cart-pay]").click()
    assert paid.value.status == 200
    assert paid.value.json()["outcome"] == "confirmed"
    sent = paid.value.request.post_data_json
    assert sent["products"] and all(line["quantity"] > 0 for line in sent["products"])
    expect(page.locator("[data-cart-status]")).not_to_be_empty()
    expect(page.locator("[data-cart-paid]")).to_be_visible()  # the confirmation stands for the empty cart
    expect(page.locator("[data-cart-count]")).to_have_text("0")
    page.wait_for_function("() => (window.svc.basket.basket$.value?.recipe_count ?? -1) === 0")


def test_a_push_the_cart_does_not_confirm_within_5_seconds_is_rolled_back(
    page: Page, context: BrowserContext, silent_cart_shop_url: str
):
    start = dt.datetime(2026, 1, 5, 10, 0, 0)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))
    visit(context, page, silent_cart_shop_url)
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    add_all = dialog.locator(".svc-recipe-details__add-all")
    expect(add_all).to_have_text(re.compile(r"^Ajouter les \d+ produits$"))
    offer = add_all.inner_text()
    add_all.click()
    expect(card).to_have_attribute("in-basket", "true")
    expect(add_all).to_have_text("Recette dans le panier")
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")  # the cart applied it, said nothing
    page.clock.run_for(4000)
    expect(card).to_have_attribute("in-basket", "true")
    page.clock.run_for(1500)
    expect(card).to_have_attribute("in-basket", "false")
    expect(dialog.locator(".svc-drawer__message")).to_be_visible()
    expect(add_all).to_have_text(offer)  # the drawer offers the recipe again, as the card does


def test_the_like_heart_toggles_and_persists_for_a_logged_in_user(page: Page, context: BrowserContext, shop_url: str):
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    heart = card.locator(".svc-like-button")
    expect(heart).to_have_attribute("aria-pressed", "false")
    with page.expect_response(lambda r: f"/likes/{recipe_id}" in r.url and r.request.method == "PUT"):
        heart.click()
    expect(heart).to_have_attribute("aria-pressed", "true")
    page.reload()
    heart = page.locator(f"svc-recipe-card[recipe-id='{recipe_id}'][hydrated] .svc-like-button")
    expect(heart).to_have_attribute("aria-pressed", "true")
    with page.expect_response(lambda r: f"/likes/{recipe_id}" in r.url and r.request.method == "DELETE"):
        heart.click()
    page.reload()
    heart = page.locator(f"svc-recipe-card[recipe-id='{recipe_id}'][hydrated] .svc-like-button")
    expect(heart).not_to_have_attribute("data-like-state", "unknown")  # the browser's read has answered
    expect(heart).to_have_attribute("aria-pressed", "false")


def test_a_pages_hearts_are_filled_in_by_one_batched_call(page: Page, context: BrowserContext, shop_url: str):
    """Cards carry no like state (the same HTML for every connected user): one GET /likes per page asks for
    all of them."""
    visit(context, page, shop_url, user=new_user())
    cards = hydrated_cards(page)
    expect(cards.first).to_be_visible()
    liked_id = cards.first.get_attribute("recipe-id")
    with page.expect_response(lambda r: f"/likes/{liked_id}" in r.url and r.request.method == "PUT"):
        cards.first.locator(".svc-like-button").click()
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/likes?" in r.url and r.method == "GET" else None)
    page.reload()
    hearts = page.locator("svc-recipe-card[hydrated] .svc-like-button")
    expect(hearts.first).to_be_visible()
    expect(page.locator(".svc-like-button[data-like-state='unknown']")).to_have_count(0)
    expect(page.locator(f"svc-recipe-card[recipe-id='{liked_id}'] .svc-like-button").first).to_have_attribute(
        "aria-pressed", "true"
    )
    assert len(reads) == 1, reads
    asked = set(reads[0].split("recipe_ids=", 1)[1].split("&", 1)[0].replace("%2C", ",").split(","))
    on_page = {card.get_attribute("recipe-id") for card in page.locator("svc-recipe-card[hydrated]").all()}
    assert on_page <= asked


def test_without_personalization_the_browser_draws_heart_and_cta(
    page: Page, context: BrowserContext, nopers_shop_url: str
):
    user = new_user()
    html = requests.get(
        f"{nopers_shop_url}/", cookies={USER_COOKIE: shop_cookie(USER_COOKIE, user), "dm_store": "1001"}, timeout=30
    ).text
    assert "<svc-recipe-card" in html
    assert "svc-like-button" not in html and "svc-recipe-card-cta" not in html
    visit(context, page, nopers_shop_url, user=user)
    card = hydrated_cards(page).first
    expect(card).to_have_attribute("personalization", "client")
    expect(card.locator(".svc-recipe-card-cta")).to_be_visible()
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    expect(card.locator(".svc-recipe-card-cta")).to_have_accessible_name(
        f"Ajouter les ingrédients au panier pour la recette {title}"
    )
    expect(card.locator(".svc-recipe-card-cta")).to_have_attribute("aria-haspopup", "dialog")  # as the server's
    expect(card.locator(".svc-like-button")).to_be_visible()
    card.locator(".svc-recipe-card-cta").click()
    expect(page.get_by_role("dialog")).to_be_visible()


def test_without_personalization_a_liked_recipe_stays_on_the_favorites_page(
    page: Page, context: BrowserContext, nopers_shop_url: str
):
    """The browser draws the hearts of a supplier without personalization: until the page's likes are read, a heart
    is unknown, not "unliked" (the favorites list takes an unliked card out, and said the shopper had removed it)."""
    visit(context, page, nopers_shop_url, user=new_user())
    heart = hydrated_cards(page).first.locator(".svc-like-button")
    # The heart turns at the click; the favorites page lists what the service stored, so the like is awaited first.
    with page.expect_response(lambda r: "/likes/" in r.url and r.request.method == "PUT") as liked:
        heart.click()
    assert liked.value.ok
    expect(heart).to_have_attribute("aria-pressed", "true")
    with page.expect_response(lambda r: "/likes?" in r.url and r.request.method == "GET"):
        visit(context, page, nopers_shop_url, "/idees/favoris")
    favorite = page.locator("svc-catalog svc-recipe-card[hydrated]")
    expect(favorite.locator(".svc-like-button")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("svc-catalog li.svc-catalog-favorites__item--removing")).to_have_count(0)
    expect(favorite).to_have_count(1)
    expect(page.locator("[data-svc-toaster]")).not_to_contain_text("retirée")


def test_a_card_inserted_with_innerhtml_hydrates_and_opens_the_drawer(
    page: Page, context: BrowserContext, shop_url: str
):
    sdk_loads: list[str] = []
    page.on("request", lambda r: sdk_loads.append(r.url) if "/sdk/svc.js" in r.url else None)
    visit(context, page, shop_url, "/injection")
    page.get_by_role("button", name="Afficher la carte").click()
    card = page.locator("[data-injection-slot] svc-recipe-card[hydrated]")
    expect(card).to_be_visible()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert len(sdk_loads) == 1


def test_the_replace_button_says_what_the_ingredient_now_is(page: Page, context: BrowserContext, shop_url: str):
    """Back on "Remplacer" after a choice, a screen reader hears the product chosen and its price: the button is
    described by the row's product and price, which the module keeps up to date (a screen-reader check found the
    choice silent)."""
    visit(context, page, shop_url)
    page.evaluate("() => window.svc.recipes.openDetails('43', 6)")
    dialog = page.get_by_role("dialog")
    row = dialog.locator(
        "[data-panel=shopping] .svc-recipe-details__ingredient", has=page.locator("[data-action=replace]")
    ).first
    replace = row.locator("[data-action=replace]")
    product, price = row.locator(".svc-recipe-details__product-name"), row.locator(".svc-recipe-details__product-price")
    expect(replace).to_have_accessible_description(f"{product.inner_text()} {price.inner_text()}")
    replace.click()
    choice = row.locator("[data-action=choose-product]").first
    chosen, offered = choice.get_attribute("data-product-id"), choice.text_content() or ""
    choice.click()
    expect(row).to_have_attribute("data-product-id", chosen or "")
    expect(replace).to_be_focused()
    assert offered.startswith(product.inner_text())
    expect(replace).to_have_accessible_description(f"{product.inner_text()} {price.inner_text()}")


def test_a_chosen_product_shows_its_packages_as_the_servers_row_does(
    page: Page, context: BrowserContext, shop_url: str
):
    """Recipe 43 for 6 needs 2 packs of penne, of either product: once the other one is chosen, its row says so
    as the server writes it for its own (RECIPE_DETAILS.PACKAGES), beside the price of the 2 packs."""
    two_packs = re.compile(" \u00b7 \u00d7 2$")
    visit(context, page, shop_url)
    page.evaluate("() => window.svc.recipes.openDetails('43', 6)")
    dialog = page.get_by_role("dialog")
    two_pack_choice = "[data-action=choose-product][data-packages='2']"
    row = dialog.locator(
        "[data-panel=shopping] .svc-recipe-details__ingredient", has=page.locator(two_pack_choice)
    ).first
    choice = row.locator(two_pack_choice).first
    expect(row.locator(".svc-recipe-details__product-meta")).to_have_text(two_packs)
    row.locator("[data-action=replace]").click()
    chosen = choice.get_attribute("data-product-id")
    choice.click()
    expect(row).to_have_attribute("data-product-id", chosen)
    expect(row.locator(".svc-recipe-details__product-meta")).to_have_text(two_packs)


def test_replace_choices_stay_closed_until_asked(page: Page, context: BrowserContext, shop_url: str):
    visit(context, page, shop_url)
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    row = dialog.locator("[data-panel=shopping] .svc-recipe-details__ingredient:has([data-action=replace])").first
    choices = row.locator(".svc-recipe-details__alternatives")
    expect(choices).to_be_hidden()
    row.locator("[data-action=replace]").click()
    expect(choices).to_be_visible()
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(dialog.locator("[data-panel=shopping] .svc-recipe-details__alternatives:visible")).to_have_count(1)


ENTRY_OF = "id => window.svc.basket.basket$.value.recipes.find((r) => r.recipe_id === id) ?? null"
BASKET_IDLE = "() => window.svc[Symbol.for('prerender.sdk.internal')].basket.whenIdle()"


def test_two_first_products_asked_before_the_first_answer_are_both_kept(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """Two rows' "add" on a recipe not in the basket, the second clicked while the first write is on its way: each
    line is set by the service, which makes the entry once; neither takes the other out."""
    _, recipe_id, dialog, _ = _first_drawer_of_a_new_user(page, context, shop_url)
    held: list[Route] = []
    page.route("**/v1/basket/recipes/**", lambda route: route.continue_() if held else held.append(route))
    rows = dialog.locator("[data-panel=shopping] [data-ingredient-id]:has([data-action=add-product])")
    wanted = {rows.nth(0).get_attribute("data-ingredient-id"), rows.nth(1).get_attribute("data-ingredient-id")}
    with page.expect_request("**/v1/basket/recipes/**"):
        rows.nth(0).locator("[data-action=add-product]").click()
    rows.nth(1).locator("[data-action=add-product]").click()
    held[0].continue_()
    page.wait_for_function(f"([id, n]) => (({ENTRY_OF})(id)?.lines.length ?? 0) >= n", arg=[recipe_id, 2])
    page.evaluate(BASKET_IDLE)
    entry = page.evaluate(ENTRY_OF, recipe_id)
    assert wanted <= {line["ingredient_id"] for line in entry["lines"]}


def test_the_drawer_settles_on_the_last_step_when_an_earlier_steps_answer_comes_late(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """Two steps that each settled, the first one's rescale answered after the second had been asked: the drawer
    does not take that late answer for another tab's change, and shows the last count, as the basket holds it.
    Details asked for the first count meanwhile are held until the basket holds the last (where a drawer that
    followed the late answer stayed on the first count)."""
    _, recipe_id, dialog, guests = _first_drawer_of_a_new_user(page, context, shop_url)
    start = int(guests.inner_text())
    dialog.locator(".svc-recipe-details__add-all").click()
    page.wait_for_function(IN_BASKET_FOR, arg=[recipe_id, start])
    page.evaluate(BASKET_IDLE)
    held: list[Route] = []

    def hold_first_rescale(route: Route) -> None:
        if held or route.request.method != "PATCH":
            route.continue_()
        else:
            held.append(route)

    page.route("**/v1/basket/recipes/**", hold_first_rescale)
    with page.expect_request(lambda r: r.method == "PATCH"):
        dialog.locator("[data-action=guests-increase]").click()
    expect(dialog.locator(f"svc-recipe-details[guests='{start + 1}']")).to_be_attached()
    dialog.locator("[data-action=guests-increase]").click()
    expect(dialog.locator(f"svc-recipe-details[guests='{start + 2}']")).to_be_attached()
    late_details: list[Route] = []
    page.route(f"**/recipe-details?**guests={start + 1}**", lambda route: late_details.append(route))
    held[0].continue_()
    page.wait_for_function(IN_BASKET_FOR, arg=[recipe_id, start + 2])
    page.evaluate(BASKET_IDLE)
    for route in late_details:
        route.continue_()
    expect(dialog.locator("svc-recipe-details")).to_have_attribute("guests", str(start + 2))
    expect(guests).to_have_text(str(start + 2))


def test_a_basket_product_the_store_no_longer_sells_is_said_and_not_added_to(
    page: Page, context: BrowserContext, shop_url: str
):
    """Recipe 67's apple juice at 1001 (product 100317) is not sold at 1002, which sells another one (100318): once
    the shopper's basket is at 1002, the drawer says the basket's product is no longer sold there, its "+" adds
    none of it (packages nobody can buy), and its "one fewer" still takes it out."""
    user = new_user()
    visit(context, page, shop_url, user=user)
    page.evaluate("() => window.svc.recipes.openDetails('67')")
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    juice = dialog.locator(".svc-recipe-details__ingredient[data-ingredient-id='jus-pomme']")
    expect(juice.locator("[data-action='increase-product']")).to_be_enabled()
    expect(juice.locator(".svc-recipe-details__line-unavailable")).to_have_count(0)
    expect(page.locator("[data-cart-count]").first).not_to_have_text("0")
    page.keyboard.press("Escape")

    visit(context, page, shop_url, store="1002", user=user)
    page.evaluate("() => window.svc.recipes.openDetails('67')")
    expect(juice).to_have_attribute("data-product-id", "100317")
    expect(juice).to_have_class(re.compile(r"\bsvc-recipe-details__ingredient--line-unavailable\b"))
    expect(juice.locator(".svc-recipe-details__line-unavailable")).to_have_text("Plus vendu dans votre magasin")
    expect(juice.locator("[data-action='increase-product']")).to_be_disabled()
    assert_no_axe_violations(page, what="the drawer with a basket product the store no longer sells")
    decrease = juice.locator("[data-action='decrease-product']")
    expect(decrease).to_be_enabled()
    decrease.click()
    expect(juice.locator("[data-action='add-product']")).to_be_visible()  # out of the basket
    expect(juice.locator(".svc-recipe-details__line-unavailable")).to_have_count(0)


def test_a_basket_product_of_an_ingredient_the_store_sells_nothing_for_can_be_taken_out(
    page: Page, context: BrowserContext, shop_url: str
):
    """Recipe 5's veal at 1001 (the seed's 1002 sells no veal at all): once the shopper's basket is at 1002, the
    veal row, which the server draws as unavailable there, shows the basket's product, says it is no longer sold
    there, adds none of it, and its "one fewer" takes it out; the row is then the unavailable one again."""
    user = new_user()
    visit(context, page, shop_url, user=user)
    page.evaluate("() => window.svc.recipes.openDetails('5')")
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    veal = dialog.locator(".svc-recipe-details__ingredient[data-ingredient-id='veau-blanquette']")
    expect(veal.locator("[data-action='increase-product']")).to_be_enabled()
    product = veal.locator(".svc-recipe-details__product-name").inner_text()
    expect(page.locator("[data-cart-count]").first).not_to_have_text("0")
    page.keyboard.press("Escape")

    visit(context, page, shop_url, store="1002", user=user)
    page.evaluate("() => window.svc.recipes.openDetails('5')")
    expect(veal).to_have_class(re.compile(r"\bsvc-recipe-details__ingredient--unavailable\b"))
    toggle = dialog.locator("[data-action='toggle-unavailable']")
    if toggle.count():
        toggle.click()  # the shop collapses the unavailable ingredients
    expect(veal.locator(".svc-recipe-details__product-name")).to_have_text(product)
    expect(veal.locator(".svc-recipe-details__line-unavailable")).to_have_text("Plus vendu dans votre magasin")
    expect(veal.locator("[data-action='increase-product']")).to_be_disabled()
    expect(veal.locator(".svc-ds-stepper__value")).not_to_have_text("0")
    assert_no_axe_violations(page, what="the drawer with a basket product of an ingredient the store sells nothing for")
    decrease = veal.locator("[data-action='decrease-product']")
    while veal.locator("[data-action='decrease-product']").count():
        expect(decrease).to_be_enabled()
        decrease.click()
        expect(veal).not_to_have_attribute("aria-busy", "true")
    # Out of the basket: the row the server drew, nothing to add.
    expect(veal.locator(".svc-recipe-details__product-meta")).to_have_text("Indisponible dans votre magasin")
    expect(veal.locator(".svc-recipe-details__product-name, .svc-recipe-details__line-unavailable")).to_have_count(0)
    expect(veal.locator("button")).to_have_count(0)
    entry = page.evaluate("() => window.svc.basket.basket$.value.recipes.find((r) => r.recipe_id === '5')")
    assert entry is not None and "veau-blanquette" not in {str(line["ingredient_id"]) for line in entry["lines"]}

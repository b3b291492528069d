"""Every component a shopper sees passes axe-core (tests/browser/axe.py: WCAG 2.0 / 2.1 A and AA, and best
practices) with no violation in the product's own markup: the cards in every layout, before and after the
browser upgrades them, for the visitors and suppliers that change them; the drawer from loading to a recipe in
the basket, both tabs, its error states and its messages; the SDK's live region. Only prerender's elements are
scanned (tests/browser/axe.py, PRODUCT): the demo shop around them is the customer's page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Route, expect

from .axe import assert_no_axe_violations
from .helpers import card_fragment, hydrated_cards, new_user, visit

SERVER, HYDRATED = "server-rendered", "hydrated"
# "Tiramisu" (a type badge in variants 2 and 3) and "Salade niçoise" (a promotion badge at store 1001).
CARD_RECIPES = ("57", "1")
INTERNAL = "window.svc[Symbol.for('prerender.sdk.internal')]"


def without_prerender_scripts(page: Page, prerender_url: str) -> None:
    """The page as a shopper sees it before the modules run (or without them): the server's markup alone."""
    page.route(re.compile(re.escape(prerender_url) + r"/static/.*\.js(\?.*)?$"), lambda route: route.abort())


def expect_cards(page: Page, state: str, selector: str = "svc-recipe-card") -> None:
    cards = page.locator(selector)
    expect(cards.first).to_be_visible()
    if state == HYDRATED:
        expect(page.locator(f"{selector}:not([hydrated])")).to_have_count(0)
    else:
        page.wait_for_load_state("networkidle")
        assert page.evaluate("() => customElements.get('svc-recipe-card') === undefined")
        expect(page.locator(f"{selector}[hydrated]")).to_have_count(0)


def open_drawer(page: Page, card: Locator) -> Locator:
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details")).to_be_visible()
    return dialog


# --- cards ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", [SERVER, HYDRATED])
def test_the_cards_of_the_shelf(page: Page, context: BrowserContext, shop_url: str, prerender_url: str, state: str):
    """Logged out: the shelf's single cards (variants 1, 2, 3, a horizontal 2) and the band of the multiple
    route, with their price and basket button."""
    if state == SERVER:
        without_prerender_scripts(page, prerender_url)
    visit(context, page, shop_url)
    expect_cards(page, state)
    assert page.locator("svc-recipe-card .svc-recipe-card-cta").count() >= 2
    assert_no_axe_violations(page, ["svc-recipe-card"], what=f"the shelf's {state} cards")


# Whether the children of a list are laid out in their markup order: top to bottom, then left to right on a line.
SHOWN_IN_MARKUP_ORDER = """list => {
    const boxes = [...list.children].map((item) => item.getBoundingClientRect()).filter((box) => box.width > 0);
    return boxes.every((box, i) => i === 0 || box.top > boxes[i - 1].top + 1
        || (Math.abs(box.top - boxes[i - 1].top) <= 1 && box.left > boxes[i - 1].left));
}"""


@pytest.mark.parametrize("state", [SERVER, HYDRATED])
@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
@pytest.mark.parametrize("variant", [1, 2, 3])
def test_every_card_layout_for_a_connected_user(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str, variant: int, orientation: str, state: str
):
    """Each display variant in both orientations, with the heart of a connected user (over the picture, or
    next to the price in variant 3), the badges (type, promotion) and the basket button. The cards go into a
    new cell of the shelf, as wide as the shop makes a cell of their orientation: the shelf gives its cards the
    section heading their h3 titles need (the "Cartes à la demande" page of the demo shop has none, and axe's
    heading-order would blame the cards for the page's outline)."""
    user = new_user()
    if state == SERVER:
        without_prerender_scripts(page, prerender_url)
    visit(context, page, shop_url, user=user)
    html = "".join(
        card_fragment(context, shop_url, prerender_url, recipe, variant=variant, orientation=orientation, user=user)
        for recipe in CARD_RECIPES
    )
    page.locator(".shelf").evaluate(
        """(shelf, [html, wide]) => {
        const cell = document.createElement("li");
        cell.className = `shelf__cell shelf__cell--recipe${wide ? " shelf__cell--wide" : ""}`;
        cell.dataset.a11y = "";
        cell.innerHTML = html;
        shelf.prepend(cell);
    }""",
        [html, orientation == "horizontal"],
    )
    cards = "[data-a11y] svc-recipe-card"
    expect(page.locator(cards)).to_have_count(len(CARD_RECIPES))
    expect_cards(page, state, cards)
    expect(page.locator(f"{cards}.svc-recipe-card--{orientation}.svc-recipe-card--variant-{variant}")).to_have_count(
        len(CARD_RECIPES)
    )
    expect(page.locator(f"{cards} .svc-like-button")).to_have_count(len(CARD_RECIPES))
    if variant != 1:
        expect(page.locator(f"{cards} .svc-recipe-card__badge")).to_have_count(len(CARD_RECIPES))
    assert_no_axe_violations(page, [cards], what=f"variant {variant}, {orientation}, {state}")
    # The facts (time, guests, difficulty) are read in the order they are shown (WCAG 1.3.2; those a layout hides
    # aside), which is also the order they arrive in: a card half received shows its first facts where they stay.
    for facts in page.locator(f"{cards} .svc-recipe-card__meta").all():
        assert facts.evaluate(SHOWN_IN_MARKUP_ORDER), facts.evaluate(
            "l => [...l.children].map((i) => [i.className, i.getBoundingClientRect().toJSON()])"
        )


@pytest.mark.parametrize("state", [SERVER, HYDRATED])
def test_the_cards_of_a_supplier_without_personalization(
    page: Page, context: BrowserContext, nopers_shop_url: str, prerender_url: str, state: str
):
    """The cacheable card without heart nor basket button, then the heart and button the browser adds."""
    if state == SERVER:
        without_prerender_scripts(page, prerender_url)
    visit(context, page, nopers_shop_url, user=new_user())
    expect_cards(page, state)
    made_here = page.locator("svc-recipe-card .svc-like-button, svc-recipe-card .svc-recipe-card-cta")
    if state == HYDRATED:
        expect(page.locator("svc-recipe-card .svc-like-button").first).to_be_visible()
        expect(page.locator("svc-recipe-card .svc-recipe-card-cta").first).to_be_visible()
    else:
        expect(made_here).to_have_count(0)
    assert_no_axe_violations(page, ["svc-recipe-card"], what=f"the {state} cards without personalization")


def test_cards_and_drawer_without_a_store(page: Page, context: BrowserContext, shop_url: str):
    """No store chosen: cards without a price, and the drawer asking for a store instead of products."""
    visit(context, page, shop_url, store=None)
    expect_cards(page, HYDRATED)
    expect(page.locator("svc-recipe-card .svc-recipe-pricing")).to_have_count(0)
    assert_no_axe_violations(page, ["svc-recipe-card"], what="cards without a store")
    card = hydrated_cards(page).first
    dialog = open_drawer(page, card)
    expect(dialog.locator("[data-role=choose-store]")).to_be_visible()
    assert_no_axe_violations(page, what="the drawer without a store")


# --- the drawer -----------------------------------------------------------------------------------


def test_the_drawer_from_loading_to_a_recipe_in_the_basket(page: Page, context: BrowserContext, shop_url: str):
    """Loading, the shopping tab, a row's replacement products, another product chosen and added (its
    quantity stepper, the other rows then removed ones), the cooking tab, the drawer at 375px, and the cards
    of the recipe once it is in the basket."""
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")

    held: list[Route] = []
    page.route("**/v1/recipe-details?*", lambda route: held.append(route))
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-drawer__loading")).to_be_attached()
    assert_no_axe_violations(page, what="the drawer while the details load")
    for _ in range(100):  # the handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the details request was not held"
    held[0].continue_()
    page.unroute("**/v1/recipe-details?*")

    shopping = dialog.locator("[data-panel=shopping]")
    expect(shopping.locator(".svc-recipe-details__ingredient").first).to_be_visible()
    assert_no_axe_violations(page, what="the shopping tab")

    row = shopping.locator(".svc-recipe-details__ingredient:has([data-action=replace])").first
    row.locator("[data-action=replace]").click()
    expect(row.locator(".svc-recipe-details__alternatives")).to_be_visible()
    assert_no_axe_violations(page, what="the shopping tab with replacement products shown")

    row.locator("[data-action=choose-product]:visible").first.click()  # another product, not in the basket yet
    expect(row.locator(".svc-recipe-details__alternatives")).to_be_hidden()
    row.locator("[data-action=add-product]").click()
    expect(row.locator("[data-action=increase-product]")).to_be_visible()
    expect(card).to_have_attribute("in-basket", "true")  # with one product: the other rows are removed ones
    expect(shopping.locator(".svc-recipe-details__ingredient--removed").first).to_be_visible()
    assert_no_axe_violations(page, what="a product in the basket (its quantity stepper), the others removed")

    dialog.get_by_role("tab", name=re.compile("Cuisine")).click()
    expect(dialog.locator("[data-panel=cooking]")).to_be_visible()
    expect(shopping).to_be_hidden()
    assert_no_axe_violations(page, what="the cooking tab")

    page.set_viewport_size({"width": 375, "height": 740})
    dialog.get_by_role("tab", name=re.compile("Courses")).click()
    expect(shopping).to_be_visible()
    assert_no_axe_violations(page, what="the drawer at 375px")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    in_basket = page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']")
    expect(in_basket.first).to_have_class(re.compile(r"\bin-basket\b"))
    assert_no_axe_violations(page, ["svc-recipe-card.in-basket"], what="cards of a recipe in the basket")


def test_only_the_stepper_in_use_says_its_quantity(page: Page, context: BrowserContext, shop_url: str):
    """A product's quantity is a live region only while the shopper is on its stepper: "add all" turns every row
    into a stepper at once, and a screen reader would otherwise read each row's new quantity in turn."""
    visit(context, page, shop_url)
    dialog = open_drawer(page, hydrated_cards(page).first)
    dialog.locator(".svc-recipe-details__add-all").click()
    values = dialog.locator(".svc-recipe-details__product-action .svc-ds-stepper__value")
    expect(values.nth(1)).to_be_visible()
    assert set(values.evaluate_all("(outputs) => outputs.map((o) => o.getAttribute('aria-live'))")) == {"off"}

    first = dialog.locator(".svc-recipe-details__product-action").first
    before = int(values.first.inner_text())
    first.locator("[data-action=increase-product]").click()
    expect(values.first).to_have_text(str(before + 1))
    live = values.evaluate_all("(outputs) => outputs.map((o) => o.getAttribute('aria-live'))")
    assert live == ["polite"] + ["off"] * (len(live) - 1), live
    page.keyboard.press("Shift+Tab")  # the stepper's decrease button
    assert values.first.get_attribute("aria-live") == "polite"
    page.keyboard.press("Shift+Tab")  # out of the stepper
    expect(values.first).to_have_attribute("aria-live", "off")
    # Safari gives a clicked button no focus: a press on a stepper makes it say its quantity all the same.
    second = dialog.locator(".svc-recipe-details__product-action").nth(1)
    second.locator("[data-action=increase-product]").dispatch_event("pointerdown")
    expect(values.nth(1)).to_have_attribute("aria-live", "polite")
    # Without a focus to leave, a stepper stops speaking when another one is pressed: one speaks at a time.
    dialog.locator(".svc-recipe-details__product-action").nth(2).locator(
        "[data-action=decrease-product]"
    ).dispatch_event("pointerdown")
    live = values.evaluate_all("(outputs) => outputs.map((o) => o.getAttribute('aria-live'))")
    assert live == ["off", "off", "polite"] + ["off"] * (len(live) - 3), live


def test_the_drawer_when_the_details_cannot_load(page: Page, context: BrowserContext, shop_url: str):
    visit(context, page, shop_url)
    expect(hydrated_cards(page).first).to_be_visible()
    page.evaluate("() => window.svc.recipes.openDetails('999999').catch(() => {})")  # no such recipe: 404
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-drawer__error")).to_be_visible()
    expect(dialog.locator("[data-action=retry]")).to_have_count(0)
    assert_no_axe_violations(page, what="the drawer of a recipe that is gone")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    page.route("**/v1/recipe-details?*", lambda route: route.abort())  # the network fails: a retry button
    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    expect(dialog.locator("[data-action=retry]")).to_be_visible()
    assert_no_axe_violations(page, what="the drawer whose details failed to load")


def test_the_messages_of_the_sdk(page: Page, context: BrowserContext, shop_url: str):
    """A failure shown in the open drawer (role=alert), an information message, and, with no drawer open, the
    toaster: visible (a heart that only goes back says nothing to a sighted shopper), and announced (role=status)."""
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    dialog = open_drawer(page, card)
    # The basket's writes of a recipe (its first product is one POST of the recipe, its next ones a PUT each).
    page.route("**/v1/basket/recipes**", lambda route: route.abort())
    dialog.locator("[data-panel=shopping] [data-action=add-product]").first.click()
    message = dialog.locator(".svc-drawer__message--error")
    expect(message).to_be_visible()
    assert_no_axe_violations(page, what="an error message in the drawer")

    page.evaluate(f"() => {INTERNAL}.notices.show('Information', 'info')")
    expect(dialog.locator(".svc-drawer__message--info")).to_be_visible()
    assert_no_axe_violations(page, what="an information message in the drawer")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    page.route("**/v1/likes/**", lambda route: route.abort())
    card.locator(".svc-like-button").click()
    toaster = page.locator("[data-svc-toaster]")
    expect(toaster).to_be_visible()
    expect(toaster).to_have_text("Connexion impossible. Vérifiez votre réseau et réessayez.")
    expect(toaster).to_have_attribute("role", "status")
    expect(card.locator(".svc-like-button")).to_have_attribute("aria-pressed", "false")  # rolled back
    assert_no_axe_violations(page, ["[data-svc-toaster]", "svc-recipe-card"], what="the toaster and the cards")


def test_the_drawers_messages_are_said_by_regions_there_before_them(page: Page, context: BrowserContext, shop_url: str):
    """The drawer's message line is made with the drawer: its two live regions are in the page, empty, before their
    first message (a region inserted with its text may not be read), each holds its text only (not the dismiss
    button's name), and a message does not go from under the shopper's focus: its dismiss button focused, the news
    stays past its 6 s, and goes 6 s after the focus left it; a failure stays until dismissed."""
    page.clock.install()
    visit(context, page, shop_url, user=new_user())
    dialog = open_drawer(page, hydrated_cards(page).first)
    status = dialog.locator(".svc-drawer__message-text[role=status]")
    alert = dialog.locator(".svc-drawer__message-text[role=alert]")
    expect(status).to_have_text("")
    expect(alert).to_have_text("")
    status.evaluate("(region) => { region.dataset.testBefore = 'yes'; }")  # the same node afterwards

    dialog.locator("[data-panel=shopping] [data-action=add-product]").first.click()
    expect(status).to_have_text(re.compile(r"^1 produit ajouté à votre panier$"))
    expect(status).to_have_attribute("data-test-before", "yes")
    expect(alert).to_have_text("")
    dismiss = dialog.get_by_role("button", name="Masquer le message")
    dismiss.focus()
    page.clock.run_for(10_000)
    expect(status).to_have_text(re.compile("ajouté"))
    expect(dismiss).to_be_focused()
    # The page's clock stands still from here, so the 6 s are the page's alone (not the test's own waits). A second
    # ahead: the page's clock may have moved on since it was read, and pausing in its past fails; the message's
    # timer is not running while its button has the focus.
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    page.keyboard.press("Shift+Tab")  # to the drawer's close button
    expect(dialog.locator(".svc-drawer__close")).to_be_focused()
    page.clock.run_for(5_900)
    expect(status).to_have_text(re.compile("ajouté"))
    page.clock.run_for(200)
    expect(status).to_have_text("")
    expect(dismiss).to_be_hidden()
    page.clock.resume()

    page.route("**/v1/basket/recipes**", lambda route: route.abort())
    dialog.locator("[data-panel=shopping] [data-action=add-product]").nth(1).click()
    expect(alert).to_have_text(re.compile(r"\S"))
    page.clock.run_for(30_000)
    expect(alert).to_have_text(re.compile(r"\S"))
    dismiss.click()
    expect(alert).to_have_text("")
    expect(dialog.locator(".svc-drawer__body")).to_be_focused()


def test_the_drawer_says_a_slow_write_and_a_product_taken_out(page: Page, context: BrowserContext, shop_url: str):
    """A basket write still unanswered after a moment says "Un instant…" in the drawer's status (the busy row said
    nothing), withdrawn with its answer; a product taken out to none says which one: the row's stepper became its
    "add" button, which the focus reads without a word of what went."""
    visit(context, page, shop_url, user=new_user())
    dialog = open_drawer(page, hydrated_cards(page).first)
    status = dialog.locator(".svc-drawer__message-text[role=status]")
    held: list[Route] = []
    page.route("**/v1/basket/recipes/**", lambda route: route.continue_() if held else held.append(route))
    addable = dialog.locator("[data-panel=shopping] .svc-recipe-details__ingredient:has([data-action=add-product])")
    ingredient_id = addable.first.get_attribute("data-ingredient-id")
    row = dialog.locator(f".svc-recipe-details__ingredient[data-ingredient-id='{ingredient_id}']")
    name = row.locator(".svc-recipe-details__product-name").inner_text().strip()
    row.locator("[data-action=add-product]").click()
    expect(status).to_have_text("Un instant…")
    held[0].continue_()
    expect(status).to_have_text(re.compile(r"^\d+ produits? ajoutés? à votre panier$"))

    decrease = row.locator("[data-action=decrease-product]")
    while decrease.count():
        with page.expect_response(re.compile(r"/v1/basket/recipes/")):
            decrease.click()
        expect(row).not_to_have_attribute("aria-busy", "true")
    expect(status).to_have_text(f"Produit «\u00a0{name}\u00a0» retiré du panier.")
    expect(row.locator("[data-action=add-product]")).to_be_focused()

"""A recipe publisher's add-to-cart CTA in Chromium, on the demo blog (examples/publisher): the CTA opens the
drawer, the reader picks a store of the affiliated retailer and adds the recipe, which flips `in-basket` (the
attribute, the class, the labels and `inBasketStatus`) and survives a reload (decided by the server); the guest
count follows the blog's own stepper and the drawer's; the fixed twin appears when the button is scrolled past
at 375px; the transfer sends the reader to the retailer's site, where the products land in the shop's cart and the
recipes in the shopper's basket (the preview, the cards, a removal as a recipe, the merge at login), with a notice
of what arrived; and axe-core passes on the CTA, the drawer and the notice.

The transfer link goes to the seed retailer's routing (`local`: http://127.0.0.1:8080/idees), which Playwright
answers with the test shop, as tests/browser/test_planner_journey.py does."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from markupsafe import escape
from playwright.sync_api import Locator, Page, Request, expect

from examples.publisher.recipes import BY_ID

from .axe import assert_no_axe_violations
from .helpers import (
    FOCUS_IN_DIALOG,
    cover_with_host_widget,
    expect_refused,
    layout_shifts,
    origin_served_by,
    reached,
    record_layout_shifts,
)
from .split_delivery import split_delivery

SHOP = "http://127.0.0.1:8080"  # baseUrl of the seed retailer's routing for ENVIRONMENT "local"
RECIPE = "pub-ratatouille-provencale"  # the blog's own id; the service's recipe 3
QUICHE, QUICHE_ID = "pub-quiche-lorraine", "4"  # 6 products at store 1001 for its 6 guests
CTA = "svc-no-supplier-add-to-cart-cta"
PRODUCT = [CTA, "svc-drawer[open]", "[data-svc-toaster]"]
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 740}}


def product(page: Page) -> list[str]:
    return [selector for selector in PRODUCT if page.locator(selector).count() > 0]


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


@pytest.fixture
def shop(page: Page, shop_url: str) -> Iterator[str]:
    """The shop, reached at the origin the retailer's routing names."""
    with origin_served_by(page, SHOP, shop_url) as origin:
        yield origin


def open_recipe(page: Page, publisher_url: str, recipe: str = RECIPE) -> Locator:
    page.goto(f"{publisher_url}/recettes/{recipe}")
    cta = page.locator(f"{CTA}[hydrated]")
    expect(cta).to_have_count(1)
    page.evaluate(
        """(tag) => {
            window.__statuses = [];
            document.querySelector(tag).addEventListener("inBasketStatus", (e) => window.__statuses.push(e.detail));
        }""",
        CTA,
    )
    return cta


def static_button(cta: Locator) -> Locator:
    return cta.locator(".svc-no-supplier-cta__static button")


def fill_basket(page: Page, cta: Locator) -> Locator:
    """Opens the drawer from the CTA, picks store 1001, adds the whole recipe; the open drawer."""
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer).to_be_visible()
    picker = drawer.locator("[data-role='store-form']")
    expect(picker).to_be_visible()
    picker.locator("select").select_option("1001")
    picker.locator("button[type='submit']").click()
    add_all = drawer.locator("[data-action='add-all']")
    expect(add_all).to_be_enabled()
    add_all.click()
    expect(cta).to_have_attribute("in-basket", "true")
    return drawer


def test_the_cta_opens_the_drawer_and_adding_flips_it_in_the_basket(page: Page, publisher_url: str, width: str):
    cta = open_recipe(page, publisher_url)
    expect(cta).to_have_attribute("in-basket", "false")
    # The page's status line is a live region there, empty, before its words (one shown only once filled may not
    # be read): in the accessibility tree though it takes no room.
    expect(page.get_by_role("status").and_(page.locator("[data-basket-status]"))).to_have_text("")
    expect(static_button(cta)).to_have_text("Acheter les ingrédients")
    expect(static_button(cta)).to_have_accessible_name("Acheter les ingrédients")  # the icon is decoration
    assert_no_axe_violations(page, include=product(page))

    drawer = fill_basket(page, cta)
    expect(cta).to_have_class(re.compile(r"\bin-basket\b"))
    expect(static_button(cta)).to_have_text("Voir les ingrédients")
    expect(static_button(cta)).to_have_accessible_name("Voir les ingrédients")
    expect(static_button(cta)).to_have_class(re.compile(r"svc-ds-button--secondary"))
    assert page.evaluate("window.__statuses") == [True]
    # The store is shown, and the transfer offered, in the drawer.
    expect(drawer.locator(".svc-basket-transfer__current")).to_contain_text("Demo Market Paris Bastille")
    expect(drawer.locator("[data-action='transfer']")).to_contain_text("Demo Market")
    assert_no_axe_violations(page, include=product(page))

    # Decided by the server on the next page: no flash of the wrong state.
    page.keyboard.press("Escape")
    page.reload()
    rendered = page.locator(CTA)
    expect(rendered).to_have_attribute("in-basket", "true")
    expect(rendered).to_have_attribute("store-id", "1001")


def test_a_tab_without_a_store_follows_the_recipe_added_in_another_tab(page: Page, publisher_url: str):
    """Two tabs of the recipe before any store was picked: the store picked in one, and the recipe added there,
    reach the other (its button, its `in-basket` and `inBasketStatus`), as the specification's sync rule asks."""
    other = page.context.new_page()
    waiting = open_recipe(other, publisher_url)
    cta = open_recipe(page, publisher_url)
    expect(waiting).to_have_attribute("in-basket", "false")
    fill_basket(page, cta)
    other.bring_to_front()
    expect(waiting).to_have_attribute("in-basket", "true")
    expect(static_button(waiting)).to_have_text("Voir les ingrédients")
    assert other.evaluate("window.__statuses") == [True]
    other.close()


def test_every_tab_keeps_the_focus_in_the_drawer_before_a_store_is_chosen(page: Page, publisher_url: str):
    """The drawer without a store ends with its tabs, the unselected one out of the tab order (the arrow keys reach
    it): Tab from the selected tab wraps to the close button, Shift+Tab from the close button to the selected tab.
    Not once does the focus go to the page behind, nor to the browser's own controls."""
    page.set_viewport_size(WIDTHS["desktop"])
    static_button(open_recipe(page, publisher_url)).click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer.locator("[data-role='store-form'] select")).to_be_visible()
    selected_tab = drawer.locator(".svc-recipe-details__tabs [role=tab][aria-selected=true]")
    close = drawer.locator(".svc-drawer__close")
    close.focus()
    for key in ["Tab"] * 16 + ["Shift+Tab"] * 16:
        page.keyboard.press(key)
        assert page.evaluate(FOCUS_IN_DIALOG), (key, page.evaluate("() => document.activeElement?.outerHTML"))
    selected_tab.focus()
    page.keyboard.press("Tab")
    expect(close).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(selected_tab).to_be_focused()


def test_a_store_not_chosen_is_asked_for_in_the_drawers_words(page: Page, publisher_url: str, width: str):
    """ "Voir les produits" without a store says, under the list and in its description, to choose one (it was
    the browser's bubble, in the browser's language, gone after a few seconds), and the focus goes to the list.
    The sentence leaves once a store is chosen."""
    static_button(open_recipe(page, publisher_url)).click()
    drawer = page.locator("svc-drawer[open]")
    picker = drawer.locator("[data-role='store-form']")
    select = picker.locator("select")
    error = picker.locator("[data-role='store-error']")
    expect(select).to_be_visible()
    expect(error).to_be_hidden()
    picker.locator("button[type='submit']").click()
    text = "Choisissez votre magasin dans la liste pour voir ses produits."
    expect_refused(select, error, text)
    assert_no_axe_violations(page, include=product(page))
    select.select_option("1001")
    expect(error).to_be_hidden()
    expect(select).not_to_have_attribute("aria-invalid", "true")
    picker.locator("button[type='submit']").click()
    expect(drawer.locator(".svc-basket-transfer__current")).to_contain_text("Demo Market Paris Bastille")


STORES_ROUTE = re.compile(r"/v[12]/basket/transfers/stores$")


def test_the_stores_are_read_when_the_drawer_opens_once_per_page(page: Page, publisher_url: str):
    """The fragment carries no store list (a retailer's 3 000 stores weigh 500 KB in every button): the drawer
    reads it when it opens, once per page, and the picker lists it."""
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url) if STORES_ROUTE.search(request.url) else None)
    cta = open_recipe(page, publisher_url)
    assert reads == []  # the page alone asks for no store
    assert cta.locator("script.svc-no-supplier-cta__data").evaluate("(s) => JSON.parse(s.textContent).transfer") == {
        "available": True,
        "retailer": "Demo Market",
        "stores": [],
        "stores_loaded": False,
    }
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    options = drawer.locator("[data-role='store-form'] select option")
    expect(options.filter(has_text="Demo Market Paris Bastille")).to_have_count(1)
    page.keyboard.press("Escape")
    static_button(cta).click()
    expect(drawer.locator("[data-role='store-form'] select option").filter(has_text="Paris Bastille")).to_have_count(1)
    assert len(reads) == 1


def test_stores_that_cannot_be_read_say_so_and_try_again_on_request(page: Page, publisher_url: str, width: str):
    """The store list fails (the retailer's stores unreadable upstream: fault injection on the one route): the
    drawer says so with "try again", which lists them once the service answers."""
    failing = {"on": True}

    def answer(route):
        if failing["on"]:
            route.fulfill(
                status=503,
                content_type="application/problem+json",
                headers={"Access-Control-Allow-Origin": "*", "Retry-After": "1"},
                body='{"type": "about:blank", "title": "Service Unavailable", "status": 503, "detail": "down"}',
            )
        else:
            route.continue_()

    page.route(STORES_ROUTE, answer)
    cta = open_recipe(page, publisher_url)
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    alert = drawer.locator(".svc-basket-transfer [role=alert]")
    expect(alert).to_contain_text("Les magasins de Demo Market ne peuvent pas être affichés pour le moment.")
    expect(drawer.locator("[data-role='store-form']")).to_have_count(0)
    assert_no_axe_violations(page, include=product(page), what=f"the store list unavailable ({width})")
    failing["on"] = False
    alert.get_by_role("button", name="Réessayer").click()
    picker = drawer.locator("[data-role='store-form']")
    expect(picker.locator("select option").filter(has_text="Demo Market Paris Bastille")).to_have_count(1)
    expect(alert).to_have_count(0)
    # The focus went from "try again" to what replaced it: the picker, not the page behind nor nowhere.
    expect(picker.locator("select")).to_be_focused()


def test_a_chosen_store_without_the_list_still_transfers_and_offers_to_try_again(page: Page, publisher_url: str):
    """The reader chose a store on an earlier page; the list cannot be read now: the drawer names the store by its
    id, says the list cannot be shown with "try again", and the transfer to that store is offered all the same."""
    page.set_viewport_size(WIDTHS["desktop"])
    cta = open_recipe(page, publisher_url)
    drawer = fill_basket(page, cta)
    page.keyboard.press("Escape")
    expect(drawer).to_have_count(0)
    page.route(STORES_ROUTE, lambda route: route.abort())
    page.reload()
    static_button(page.locator(f"{CTA}[hydrated]")).click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer.locator(".svc-basket-transfer__current")).to_contain_text("1001")
    expect(drawer.locator(".svc-basket-transfer [role=alert]").get_by_role("button", name="Réessayer")).to_be_visible()
    expect(drawer.locator("[data-action='transfer']")).to_contain_text("Demo Market")


def test_nothing_moves_under_the_shoppers_finger_as_the_basket_fills(page: Page, publisher_url: str, width: str):
    """A quick second tap on "add all" (a double tap on a phone) lands where the first did: the transfer button is
    in the footer from the start, disabled while the basket is empty, and the footer keeps its height as the basket
    fills, so the second tap meets "add all" again rather than the transfer that would leave the blog."""
    cta = open_recipe(page, publisher_url)
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    picker = drawer.locator("[data-role='store-form']")
    picker.locator("select").select_option("1001")
    picker.locator("button[type='submit']").click()
    add_all = drawer.locator("[data-action='add-all']")
    expect(add_all).to_be_enabled()
    transfer = drawer.locator("[data-action='transfer']")
    expect(transfer).to_have_attribute("aria-disabled", "true")
    expect(transfer).to_have_accessible_description(
        "Ajoutez des ingrédients pour finaliser vos courses chez Demo Market."
    )
    assert_no_axe_violations(page, include=["svc-drawer[open]"], what=f"the empty basket's transfer ({width})")
    transfers: list[str] = []  # the transfers asked for (POST /basket/transfers)

    def record(request: Request) -> None:
        if request.method == "POST" and "/basket/transfers" in request.url:
            transfers.append(request.url)

    page.on("request", record)
    # A tap on it (Playwright waits for an enabled control: forced): nothing to send yet, nothing is sent.
    transfer.click(force=True)

    box = add_all.bounding_box()
    assert box
    add_all.click()
    expect(cta).to_have_attribute("in-basket", "true")
    expect(transfer).not_to_have_attribute("aria-disabled", "true")
    expect(transfer).to_have_accessible_description(
        "Vous serez redirigé vers le site de Demo Market, où votre panier vous attend."
    )
    assert add_all.bounding_box() == box
    under_the_finger = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-action]')?.dataset.action",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert under_the_finger == "add-all"
    assert transfers == []
    assert page.url.startswith(publisher_url)


def test_a_store_with_a_long_name_stays_inside_the_drawer(page: Page, publisher_url: str, width: str):
    cta = open_recipe(page, publisher_url)
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    select = drawer.locator("[data-role='store-form'] select")
    expect(select).to_be_visible()
    # A retailer's store named at length, chosen (the picker's options are its store list's names, as they come).
    select.evaluate(
        "(select) => { select.options[1].text = 'Demo Market '.repeat(12) + 'Paris'; select.selectedIndex = 1; }"
    )
    box, panel = select.bounding_box(), drawer.locator(".svc-basket-transfer").bounding_box()
    assert box is not None and panel is not None
    right = min(panel["x"] + panel["width"], page.viewport_size["width"] if page.viewport_size else 0)
    assert box["x"] >= panel["x"] and box["x"] + box["width"] <= right + 0.5, (box, panel)


def test_the_recipe_page_shifts_nothing_while_its_scripts_start(page: Page, publisher_url: str, width: str):
    """The button and the blog's servings stepper take their place from the first paint (CLS 0): no layout
    shift is reported while the page loads and its scripts hydrate them."""
    record_layout_shifts(page)
    open_recipe(page, publisher_url)
    expect(page.locator("[data-servings-step]").first).to_be_visible()  # publisher.js has shown the stepper
    assert layout_shifts(page) == []


# Where a slow network may pause the recipe page: before each part of its first screen (examples/publisher/
# templates/recipe.html), whose order on a phone (button, then picture) is not the markup's; and inside the
# method's first step, which a desktop's first screen shows too (an empty step's badge sits 8 px lower).
FIRST_SCREEN_PARTS = {
    "picture": '<figure class="recipe__picture"',
    "facts": '<dl class="facts"',
    "shopping": '<div class="shopping"',
    "first-step": str(escape(BY_ID[RECIPE].steps[0])),
}


@pytest.mark.parametrize("before", FIRST_SCREEN_PARTS.values(), ids=FIRST_SCREEN_PARTS.keys())
def test_the_recipe_page_shifts_nothing_when_it_arrives_in_two_parts(
    page: Page, publisher_url: str, width: str, before: str
):
    """A first screen half-received is not painted (the page's `<link rel=expect blocking=render>`): on a phone
    the button would otherwise arrive above a picture already shown and push it down; on a desktop, the first
    step's badge would move when its text arrived."""
    record_layout_shifts(page)
    with split_delivery(publisher_url, before=before) as slow_blog:
        open_recipe(page, slow_blog)
        expect(page.locator("[data-servings-step]").first).to_be_visible()
    assert layout_shifts(page) == []


# The blog's home, cut inside its hero: the featured recipe beside the intro (desktop) grows when the rest of its
# text arrives, and would move an intro already painted; and before the arrow of the latest recipes' link, which a
# desktop's first screen shows too (the link, right-aligned, would move left when its arrow arrived).
HOME_FIRST_SCREEN_PARTS = {
    "feature-body": '<div class="feature__body"',
    "feature-meta": '<p class="feature__meta"',
    "latest-link-arrow": "→</span>",
}


@pytest.mark.parametrize("before", HOME_FIRST_SCREEN_PARTS.values(), ids=HOME_FIRST_SCREEN_PARTS.keys())
def test_the_home_shifts_nothing_when_it_arrives_in_two_parts(page: Page, publisher_url: str, width: str, before: str):
    """The home's first screen is painted whole (the `expect` link of examples/publisher/templates/base.html,
    whose target home.html names)."""
    record_layout_shifts(page)
    with split_delivery(publisher_url, before=before) as slow_blog:
        page.goto(f"{slow_blog}/")
        expect(page.locator(".feature__meta")).to_be_visible()
    assert layout_shifts(page) == []


def test_the_recipe_list_shifts_nothing_when_it_arrives_in_two_parts(page: Page, publisher_url: str, width: str):
    """A page without a first screen of its own waits for the footer (examples/publisher/templates/base.html's
    `expect` link): cut inside its breadcrumb's first item, still empty, the list was painted, then moved when the
    rest arrived (as were teasers whose facts had not arrived)."""
    record_layout_shifts(page)
    with split_delivery(publisher_url, before='<a href="/">Accueil</a>') as slow_blog:
        page.goto(f"{slow_blog}/recettes")
        expect(page.locator(".colophon")).to_be_attached()
    assert layout_shifts(page) == []


def test_the_guest_count_follows_the_page_and_the_drawer(page: Page, publisher_url: str):
    page.set_viewport_size(WIDTHS["desktop"])
    cta = open_recipe(page, publisher_url, "pub-quiche-lorraine")
    expect(cta).to_have_attribute("guests", "6")
    page.locator("[data-servings-step='1']").click()
    expect(cta).to_have_attribute("guests", "7")
    # Set by the page: a non-numeric value is ignored, a number applies.
    page.evaluate("(tag) => document.querySelector(tag).setAttribute('guests', 'beaucoup')", CTA)
    assert page.evaluate("() => window.svc.recipes.guests$('pub-quiche-lorraine').value") == 7
    page.evaluate("() => window.svc.recipes.setGuests('pub-quiche-lorraine', 3)")
    expect(cta).to_have_attribute("guests", "3")
    expect(page.locator("[data-servings-output]")).to_have_text("3")
    # The drawer opens for that count, and its stepper moves the CTA and the blog's stepper.
    static_button(cta).click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer.locator(".svc-recipe-details__guests [data-role='guests']")).to_have_text("3")
    drawer.locator("[data-action='guests-increase']").click()
    expect(cta).to_have_attribute("guests", "4")
    expect(page.locator("[data-servings-output]")).to_have_text("4")


def test_the_fixed_twin_appears_when_the_button_is_scrolled_past(page: Page, publisher_url: str):
    page.set_viewport_size(WIDTHS["phone"])
    cta = open_recipe(page, publisher_url)
    twin = cta.locator("[data-role='fixed']")
    expect(twin).to_be_hidden()
    page.mouse.wheel(0, 2500)
    slid_in_at_the_bottom(page, twin)
    # Identical to the static one, and it opens the same drawer.
    expect(twin.locator("button")).to_have_text("Acheter les ingrédients")
    assert_no_axe_violations(page, include=product(page))
    page.evaluate("window.scrollTo(0, 0)")
    expect(twin).to_be_hidden()
    page.mouse.wheel(0, 2500)
    twin.locator("button").click()
    expect(page.locator("svc-drawer[open]")).to_be_visible()
    expect(twin).to_be_hidden()  # under the open drawer it would cover the footer


def slid_in_at_the_bottom(page: Page, twin: Locator) -> None:
    """The twin shown, its slide-in over, its box at the bottom of the phone's viewport."""
    expect(twin).to_be_visible()
    expect(twin).to_have_class(re.compile(r"svc-no-supplier-cta__fixed--visible"))
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    box = twin.bounding_box()
    assert box is not None and abs(box["y"] + box["height"] - WIDTHS["phone"]["height"]) < 2, box


def test_the_fixed_twin_stays_under_what_the_page_stacks_above_it(page: Page, publisher_url: str):
    """Where the viewport places it, the twin stays in the page: a cookie banner the page puts above it (the highest
    z-index) keeps the reader's clicks."""
    page.set_viewport_size(WIDTHS["phone"])
    twin = open_recipe(page, publisher_url).locator("[data-role='fixed']")
    page.mouse.wheel(0, 2500)
    slid_in_at_the_bottom(page, twin)
    banner = cover_with_host_widget(twin.locator("button"))
    assert reached(banner), "the twin covers the page's own banner"


# Ancestors a theme puts around its content (an entrance animation's transform, a filter, a paint containment)
# that make themselves the containing block of a `position: fixed` box inside them.
FIXED_BOX_HOLDERS = ["transform: translateZ(0)", "filter: saturate(1)", "contain: paint", "will-change: transform"]


@pytest.mark.parametrize("style", FIXED_BOX_HOLDERS)
def test_the_fixed_twin_stays_at_the_viewports_bottom_inside_an_ancestor_that_holds_fixed_boxes(
    page: Page, publisher_url: str, style: str
):
    """Inside such an ancestor the twin would sit at the ancestor's bottom, out of sight: it goes to the browser's
    top layer instead, at the bottom of the viewport, and takes the reader's click. Back in view of the static
    button, it leaves the top layer."""
    page.set_viewport_size(WIDTHS["phone"])
    cta = open_recipe(page, publisher_url)
    cta.evaluate("(cta, style) => cta.closest('main').setAttribute('style', style)", style)
    twin = cta.locator("[data-role='fixed']")
    page.mouse.wheel(0, 2500)
    slid_in_at_the_bottom(page, twin)
    assert twin.evaluate("(twin) => twin.matches(':popover-open')"), "the twin is not in the top layer"
    assert reached(twin.locator("button")), "the page covers the twin"
    assert_no_axe_violations(page, include=product(page))
    page.evaluate("window.scrollTo(0, 0)")
    expect(twin).to_be_hidden()
    expect(twin).not_to_have_attribute("popover", re.compile(""))  # an ordinary element again
    page.mouse.wheel(0, 2500)
    slid_in_at_the_bottom(page, twin)
    twin.locator("button").click()
    expect(page.locator("svc-drawer[open]")).to_be_visible()
    expect(twin).to_be_hidden()  # under the open drawer it would cover the footer, lifted or not


# Two more buttons further down the recipe page, as a round-up of recipes has (the same recipe's: which one a
# twin belongs to is what the test follows), each after a screen and a half of text.
ROUND_UP = """(tag) => {
    const first = document.querySelector(tag);
    const after = document.body;
    for (const name of ["second", "third"]) {
        const spacer = document.createElement("div");
        spacer.style.height = "1200px";
        const cta = first.cloneNode(true);
        cta.removeAttribute("hydrated");
        cta.removeAttribute("twin-shown");
        cta.dataset.test = name;
        after.append(spacer, cta);
    }
    after.append(Object.assign(document.createElement("div"), { style: "height: 1200px" }));
}"""


def test_with_several_buttons_only_the_last_one_scrolled_past_shows_its_twin(page: Page, publisher_url: str):
    """Every twin sits at the same place: shown together, the last one took the clicks whichever recipe the
    reader had passed. The page jumps past the buttons (as a link to an anchor or the End key do): a button
    that was below the viewport and is now above it has been passed too."""
    page.set_viewport_size(WIDTHS["phone"])
    first = open_recipe(page, publisher_url)
    first.evaluate("(cta) => { cta.dataset.test = 'first'; }")
    page.evaluate(ROUND_UP, CTA)
    expect(page.locator(f"{CTA}[hydrated]")).to_have_count(3)
    visible_twins = page.locator(".svc-no-supplier-cta__fixed:visible")

    def twin_of(name: str) -> Locator:
        return page.locator(f"{CTA}[data-test='{name}'] [data-role='fixed']")

    # The first and second buttons scrolled past, the third still below the viewport.
    page.locator(f"{CTA}[data-test='second'] .svc-no-supplier-cta__static").evaluate(
        "(button) => { button.scrollIntoView({ block: 'end' }); window.scrollBy(0, window.innerHeight + 100); }"
    )
    expect(twin_of("second")).to_be_visible()
    expect(visible_twins).to_have_count(1)

    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")  # all three passed
    expect(twin_of("third")).to_be_visible()
    expect(visible_twins).to_have_count(1)
    twin_of("third").locator("button").click()
    expect(page.locator("svc-drawer[open]")).to_be_visible()


def test_the_transfer_lands_the_products_in_the_shops_cart(page: Page, publisher_url: str, shop: str):
    page.set_viewport_size(WIDTHS["phone"])
    cta = open_recipe(page, publisher_url)
    drawer = fill_basket(page, cta)
    drawer.locator("[data-action='transfer']").click()
    # The retailer's catalog page, the token out of the address bar at once.
    page.wait_for_url(re.compile(rf"^{re.escape(shop)}/idees"))
    expect(page).not_to_have_url(re.compile("transferred_basket_token"))
    counter = page.locator("[data-cart-count]").first
    expect(counter).not_to_have_text("0", timeout=15_000)
    assert int(counter.inner_text()) > 0
    page.goto(f"{shop}/cart")
    expect(page.locator("main")).to_contain_text("Aubergine", ignore_case=True)
    # The blog's basket was handed over: back there, the recipe is no longer in it.
    page.goto(f"{publisher_url}/recettes/{RECIPE}")
    expect(page.locator(CTA)).to_have_attribute("in-basket", "false")


def test_a_redeem_that_gets_no_answer_is_tried_again_in_the_page(page: Page, publisher_url: str, shop: str):
    # Fault injection: the service's first redeems (the SDK's three attempts of one call) answer 503, as when
    # coreapi is busy; the next ones reach it.
    failed: list[str] = []
    passed: list[str] = []

    def busy_at_first(route) -> None:
        key = route.request.headers.get("idempotency-key", "")
        if len(failed) < 3:
            failed.append(key)
            route.fulfill(
                status=503,
                headers={"content-type": "application/problem+json", "access-control-allow-origin": "*"},
                body='{"title": "Service Unavailable", "status": 503, "detail": "busy"}',
            )
        else:
            passed.append(key)
            route.continue_()

    page.route("**/basket/transfers/redeem", busy_at_first)
    page.set_viewport_size(WIDTHS["desktop"])
    cta = open_recipe(page, publisher_url, QUICHE)
    fill_basket(page, cta).locator("[data-action='transfer']").click()
    page.wait_for_url(re.compile(rf"^{re.escape(shop)}/idees"))

    # The visitor is told the basket is on its way (not that it failed), and it arrives on the page's next try.
    toaster = page.locator(".svc-toaster")
    expect(toaster).to_have_text(
        "Votre panier de Le Magazine Cuisine n'est pas encore arrivé\u00a0: nouvel essai dans un instant.",
        timeout=15_000,
    )
    assert_no_axe_violations(page, include=[".svc-toaster"], what="the notice of a basket still on its way")
    expect(toaster).to_have_text("Votre panier de Le Magazine Cuisine\u00a0: 1 recette, 6 produits", timeout=20_000)
    expect(page.locator("[data-cart-count]").first).to_have_text("6")
    assert len(failed) == 3 and len(passed) == 1, (failed, passed)
    assert len(set(failed + passed)) == 1 and failed[0], "one redeem, sent with one key"


# Site data blocked by the browser's settings: touching sessionStorage throws, as Chromium does then.
BLOCKED_SESSION_STORAGE = """Object.defineProperty(window, "sessionStorage", {
    configurable: true,
    get() { throw new DOMException("Access is denied for this document.", "SecurityError"); },
});"""


def test_a_browser_that_blocks_session_storage_still_gets_the_transferred_basket(
    page: Page, publisher_url: str, shop: str
):
    """The SDK keeps the link in sessionStorage so that the shop's switch to the link's store (a reload) loses
    nothing; where it cannot keep it, it does not ask for that switch but brings the basket in at once (an
    outside check found it lost without a word: no redeem, no message)."""
    page.add_init_script(BLOCKED_SESSION_STORAGE)
    transfer_to_the_shop(page, publisher_url, shop)
    expect(page.locator("[data-cart-count]").first).to_have_text("6")


def transfer_to_the_shop(page: Page, publisher_url: str, shop: str) -> Locator:
    """The blog's quiche, all of it, sent to the shop; the shop's toaster once it says what arrived: the publisher,
    the recipe and its products (French plurals). The notice comes once the page has loaded and the SDK has
    redeemed the transfer, and stays 10 s (sdk/transfer.js): the wait covers a busy machine's redemption, not only
    Playwright's default 5 s."""
    page.set_viewport_size(WIDTHS["desktop"])
    cta = open_recipe(page, publisher_url, QUICHE)
    fill_basket(page, cta).locator("[data-action='transfer']").click()
    page.wait_for_url(re.compile(rf"^{re.escape(shop)}/idees"))
    toaster = page.locator(".svc-toaster")
    expect(toaster).to_have_text("Votre panier de Le Magazine Cuisine\u00a0: 1 recette, 6 produits", timeout=15_000)
    return toaster


def test_the_transferred_recipes_arrive_in_the_shoppers_basket(page: Page, publisher_url: str, shop: str):
    toaster = transfer_to_the_shop(page, publisher_url, shop)
    expect(toaster).to_have_attribute("role", "status")
    assert_no_axe_violations(page, include=[".svc-toaster"], what="the notice of a transferred basket")
    expect(page.locator("[data-cart-count]").first).to_have_text("6")

    # The recipe is in the shopper's basket: the preview lists it, the shop's card says so.
    preview = open_preview(page, shop)
    expect(preview.locator(".svc-basket-preview__summary")).to_have_text("1 recette · 6 produits")
    expect(preview.locator(".svc-basket-preview__item")).to_have_count(1)
    expect(preview.locator(".svc-basket-preview__item")).to_have_attribute("data-recipe-id", QUICHE_ID)
    page.goto(f"{shop}/idees/recherche?search=quiche")
    card = page.locator(f"svc-recipe-card[recipe-id='{QUICHE_ID}'][hydrated]").first
    expect(card).to_have_attribute("in-basket", "true")

    # Logging in merges it into the user's basket, where it can be removed as a recipe (the cart follows).
    with page.expect_navigation():
        page.locator("[data-account=login]").click()
    preview = open_preview(page, shop)
    item = preview.locator(f".svc-basket-preview__item[data-recipe-id='{QUICHE_ID}']")
    expect(item).to_have_count(1)
    count = int(page.locator("[data-cart-count]").first.inner_text())
    assert count >= 6
    item.locator("[data-action=remove-recipe]").click()
    expect(item).to_have_count(0)
    expect(page.locator("[data-cart-count]").first).to_have_text(str(count - 6))
    page.goto(f"{shop}/idees/recherche?search=quiche")
    expect(page.locator(f"svc-recipe-card[recipe-id='{QUICHE_ID}'][hydrated]").first).to_have_attribute(
        "in-basket", "false"
    )


def open_preview(page: Page, shop: str) -> Locator:
    """The shop's basket preview page (its "Mes repas"), hydrated."""
    page.goto(f"{shop}/idees/panier")
    preview = page.locator("svc-catalog[hydrated]").first
    expect(preview).to_be_visible()
    return preview

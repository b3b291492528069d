"""The drawer as a shopper reads it, at 1280 and 375 px: the recipe's title once (the dialog's name), the cooking
tab's ingredients without an empty picture column, both prices named (the recipe's per person, the chosen
products' for the guests), and in the blog a compact footer and the blog's own picture of the dish."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from examples.delivery import static_url_path
from examples.publisher import STATIC_FOLDER as PUBLISHER_STATIC
from examples.shop.visitor import LANGUAGE_COOKIE

from .axe import assert_no_axe_violations
from .helpers import hydrated_cards, loaded, visit
from .test_publisher import CTA, fill_basket, open_recipe, product

WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 740}}
# The blog's ratatouille (tests/browser/test_publisher.py, RECIPE) and its picture (examples/publisher/recipes.py), at
# its versioned address (examples/delivery.py).
BLOG_PICTURE = f"{static_url_path(PUBLISHER_STATIC)}/illustrations/ratatouille.svg"


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def open_first_card(page: Page, context: BrowserContext, shop_url: str) -> tuple[Locator, str]:
    visit(context, page, shop_url)
    card = hydrated_cards(page).first
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog", name=title)
    expect(dialog.locator(".svc-recipe-details__footer")).to_be_visible()
    return dialog, title


def visible_texts(dialog: Locator, text: str) -> int:
    """How many visible elements of the dialog say exactly `text` (their own text, not their children's)."""
    return dialog.evaluate(
        """(root, text) => [...root.querySelectorAll("*")].filter((el) => {
            const texts = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE);
            const own = texts.map((n) => n.textContent).join("");
            return own.trim() === text && el.checkVisibility();
        }).length""",
        text,
    )


def test_the_title_shows_once_and_names_the_dialog(page: Page, context: BrowserContext, shop_url: str, width: str):
    dialog, title = open_first_card(page, context, shop_url)
    expect(dialog.locator(".svc-drawer__title")).to_have_text(title)
    expect(dialog.locator(".svc-drawer__title")).to_be_visible()
    assert visible_texts(dialog, title) == 1
    assert dialog.get_by_role("heading", name=title).count() == 1
    assert_no_axe_violations(page, ["svc-drawer[open]"], what=f"the drawer ({width})")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_drawer_says_which_language_its_own_texts_are_in(
    page: Page, context: BrowserContext, shop_url: str, language: str
):
    """Its close button, its loading text, its store picker are the SDK's, in the session's language: the drawer
    carries it, as each fragment's root carries its own."""
    context.add_cookies([{"name": LANGUAGE_COOKIE, "value": language, "url": shop_url}])
    open_first_card(page, context, shop_url)
    expect(page.locator("svc-drawer")).to_have_attribute("lang", language)
    expect(page.locator("svc-drawer .svc-drawer__close")).to_have_attribute(
        "aria-label", "Fermer" if language == "fr" else "Close"
    )


def test_the_cooking_tab_lists_the_ingredients_from_the_edge(
    page: Page, context: BrowserContext, shop_url: str, width: str
):
    dialog, _ = open_first_card(page, context, shop_url)
    dialog.get_by_role("tab", name="Cuisine").click()
    panel = dialog.locator("[data-panel=cooking]")
    heading = panel.locator(".svc-recipe-details__section-title").first
    names = panel.locator(".svc-recipe-details__ingredient-name")
    expect(names.first).to_be_visible()
    left = heading.bounding_box()["x"]
    for name in names.all():
        assert abs(name.bounding_box()["x"] - left) <= 1, "an ingredient's name is indented past an empty column"
    assert_no_axe_violations(page, ["svc-drawer[open]"], what=f"the cooking tab ({width})")


def test_both_prices_say_what_they_are(page: Page, context: BrowserContext, shop_url: str, width: str):
    dialog, _ = open_first_card(page, context, shop_url)
    guests = dialog.locator("[data-role=guests]").inner_text().strip()
    recipe_price = dialog.locator(".svc-recipe-details__recipe-price")
    expect(recipe_price).to_contain_text("Prix de la recette")
    expect(recipe_price).to_contain_text("/ pers.")
    expect(dialog.locator(".svc-recipe-details__total-label")).to_have_text(f"Vos produits pour {guests} pers.")
    dialog.locator("[data-action=guests-increase]").click()
    expect(dialog.locator(".svc-recipe-details__total-label")).to_have_text(
        f"Vos produits pour {int(guests) + 1} pers."
    )
    # Each label is beside its figure: the recipe's above its price, the products' above their total.
    for label, amount in (
        (recipe_price.locator(".svc-recipe-details__price-label"), recipe_price.locator(".svc-recipe-pricing__amount")),
        (dialog.locator(".svc-recipe-details__total-label"), dialog.locator(".svc-recipe-details__total-amount")),
    ):
        above, below = label.bounding_box(), amount.bounding_box()
        assert above["y"] + above["height"] <= below["y"] + 1
        assert abs((above["x"] + above["width"]) - (below["x"] + below["width"])) < above["width"] + below["width"]


def test_in_the_blog_the_footer_is_compact_and_the_picture_is_the_blogs(page: Page, publisher_url: str, width: str):
    cta = open_recipe(page, publisher_url)
    expect(cta).to_have_attribute("picture-url", f"{publisher_url}{BLOG_PICTURE}")
    drawer = fill_basket(page, cta)
    expect(drawer.locator("[data-action='transfer']")).to_be_visible()
    hero = drawer.locator(".svc-recipe-details__hero img")
    expect(hero).to_have_attribute("src", f"{publisher_url}{BLOG_PICTURE}")
    loaded(page, hero)
    # The footer (total, the recipe's button, the transfer and its hint) leaves the recipe most of the drawer.
    footer = drawer.locator(".svc-drawer__footer").bounding_box()
    panel = drawer.locator(".svc-drawer__panel").bounding_box()
    assert footer["height"] <= {"desktop": 150, "phone": 160}[width], footer  # 210 px at 1280x800 before
    assert footer["height"] <= panel["height"] * 0.21, (footer, panel)
    # The guests changed: the details come again, with the blog's picture still.
    drawer.locator("[data-action=guests-increase]").click()
    expect(drawer.locator(".svc-recipe-details__hero img")).to_have_attribute("src", f"{publisher_url}{BLOG_PICTURE}")
    assert_no_axe_violations(page, include=product(page), what=f"the blog's drawer ({width})")


def test_a_picture_url_that_is_not_http_is_ignored(page: Page, publisher_url: str):
    cta = open_recipe(page, publisher_url)
    page.evaluate("(tag) => document.querySelector(tag).setAttribute('picture-url', 'javascript:alert(1)')", CTA)
    cta.locator(".svc-no-supplier-cta__static button").click()
    hero = page.locator("svc-drawer[open] .svc-recipe-details__hero img")
    expect(hero).to_have_count(1)
    assert not (hero.get_attribute("src") or "").startswith("javascript:")
    assert "/illustrations/" not in (hero.get_attribute("src") or "")


# A word longer than any box (an upstream name of one word: a brand, a code, text without spaces).
LONG_WORD = "Supercalifragilisticexpialidocious" * 6
# Whether an element's text runs out of its box sideways.
OVERFLOWS = "(element) => element.scrollWidth > element.clientWidth + 1"


def test_long_words_stay_inside_the_drawer_and_the_title_shows_whole(
    page: Page, context: BrowserContext, shop_url: str, width: str
):
    """Upstream texts of one long word break inside their box rather than running out of it (clipped and
    unreadable). A title the header cuts (three lines at most, so that the recipe keeps its room on a phone) shows
    whole at the top of the details."""
    open_first_card(page, context, shop_url)
    dialog = page.locator("svc-drawer[open]")  # not by its name: the test changes the title
    header, whole = dialog.locator(".svc-drawer__title"), dialog.locator(".svc-recipe-details__title")
    expect(whole).to_be_hidden()  # a title of a few words: the header's, once
    texts = {
        "title": whole,
        "product": dialog.locator("[data-panel=shopping] .svc-recipe-details__product-name").first,
        "description": dialog.locator(".svc-recipe-details__description"),
    }
    for name, element in texts.items():
        element.evaluate("(element, text) => { element.textContent = text; }", f"{LONG_WORD} {name}")
    header.evaluate("(element, text) => { element.textContent = text; }", f"{LONG_WORD} title")
    expect(whole).to_be_visible()
    for name, element in texts.items():
        assert not element.evaluate(OVERFLOWS), name
    assert whole.evaluate("(element) => element.scrollHeight <= element.clientHeight + 1"), "the title is cut"
    assert not dialog.locator(".svc-drawer__panel").evaluate(OVERFLOWS)
    body = dialog.locator(".svc-drawer__body").bounding_box()
    assert body is not None and body["height"] >= 240, body  # the header left the recipe its room


def test_a_long_retailer_name_stays_inside_the_blogs_transfer(page: Page, publisher_url: str, width: str):
    drawer = fill_basket(page, open_recipe(page, publisher_url))
    transfer = drawer.locator("[data-action='transfer']")
    expect(transfer).to_be_visible()
    transfer.evaluate("(element, text) => { element.textContent = text; }", f"Finaliser mes courses chez {LONG_WORD}")
    assert not transfer.evaluate(OVERFLOWS)
    assert not drawer.locator(".svc-drawer__panel").evaluate(OVERFLOWS)


@pytest.mark.parametrize(
    "size", [{"width": 320, "height": 256}, {"width": 568, "height": 320}], ids=["zoom-400", "sideways"]
)
def test_on_a_short_screen_the_whole_drawer_scrolls(page: Page, publisher_url: str, size: dict):
    """1280 x 1024 at 400 % (320 x 256), a phone held sideways: the store picker, the header and the footer scroll
    with the recipe rather than leaving it no height between them (WCAG 1.4.10): its stepper, tabs and products can
    be reached."""
    page.set_viewport_size(size)
    drawer = fill_basket(page, open_recipe(page, publisher_url))
    panel = drawer.locator(".svc-drawer__panel")
    assert panel.evaluate("(panel) => panel.scrollHeight > panel.clientHeight")  # one scroll for all of it
    for control in (
        "[data-action=guests-increase]",
        ".svc-recipe-details__tabs [role=tab]",
        "[data-action='transfer']",
    ):
        target = drawer.locator(control).first
        target.scroll_into_view_if_needed()
        expect(target).to_be_in_viewport()
    stepper = drawer.locator("[data-action=guests-increase]")
    stepper.scroll_into_view_if_needed()
    box = stepper.bounding_box()
    assert box is not None and box["height"] >= 24 and 0 <= box["y"] <= size["height"] - box["height"], box


def test_the_cooking_panel_takes_the_keyboard_after_its_tab(page: Page, context: BrowserContext, shop_url: str):
    """The cooking panel holds no control: it takes the focus itself after its tab, so that a keyboard reaches and
    scrolls its steps rather than going on to the footer (the tab panels' pattern)."""
    dialog, _ = open_first_card(page, context, shop_url)
    dialog.locator(".svc-recipe-details__tabs [role=tab]").nth(1).click()
    page.keyboard.press("Tab")
    expect(dialog.locator("[data-panel=cooking]")).to_be_focused()


def test_a_phone_held_sideways_keeps_the_picture_short(page: Page, context: BrowserContext, shop_url: str):
    """812 x 375: header, details and footer scroll together (WCAG 1.4.10), and the dish's picture takes at most
    40 % of the height, so the recipe starts on the first screen."""
    page.set_viewport_size({"width": 812, "height": 375})
    dialog, _ = open_first_card(page, context, shop_url)
    hero = dialog.locator(".svc-recipe-details__hero")
    box = hero.bounding_box()
    assert box and box["height"] <= 0.4 * 375 + 1
    tabs = dialog.locator(".svc-recipe-details__tabs")
    tabs_box = tabs.bounding_box()
    assert tabs_box and tabs_box["y"] < 375, "the recipe's tabs are on the first screen"

"""The catalog pages in the demo shop's recipe section, in Chromium at 1280px and 375px, as a shopper uses them:
the home and a category, the list's "more" loading the next page in place, a recipe liked and found in the
favorites and my-space (and unliked there), a basket paid and its recipes in the history, the basket preview's
remove, a preference set in the panel changing the suggested recipes; axe-core on the catalog's own markup.

The seed supplier's routing (`local`) names the shop at http://127.0.0.1:8080 (coreapi/seed/data/suppliers.json):
the pages link each other there, so Playwright forwards that origin to the test's shop (helpers.origin_served_by).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pytest
import requests
from playwright.sync_api import BrowserContext, Locator, Page, expect

from .axe import assert_no_axe_violations
from .helpers import (
    DARK_HOST,
    PostsAppliedThenLost,
    focus_under_bars,
    layout_shifts,
    new_user,
    origin_served_by,
    page_credential,
    policy_violations,
    record_events,
    record_layout_shifts,
    record_policy_violations,
    visit,
)
from .split_delivery import split_delivery
from .test_planner_entry import WIDTHS

SHOP = "http://127.0.0.1:8080"
CATALOG = "svc-catalog"


@pytest.fixture
def shop(page: Page, shop_url: str) -> Iterator[str]:
    with origin_served_by(page, SHOP, shop_url) as origin:
        yield origin


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def catalog(page: Page) -> Locator:
    root = page.locator(f"{CATALOG}[hydrated]").first
    expect(root).to_be_visible()
    return root


def add_whole_recipes(page: Page, indexes: Iterable[int]) -> None:
    """From a catalog list, puts the recipes of the cards at `indexes` in the basket, each with its drawer's "add
    all"."""
    for index in indexes:
        card = catalog(page).locator("svc-recipe-card[hydrated]").nth(index)
        recipe_id = card.get_attribute("recipe-id")
        card.locator(".svc-recipe-card-cta").click()
        # This recipe's drawer, loaded (its footer comes with it), then the basket's word that the write is done
        # before the page is left: the card in the basket.
        dialog = page.get_by_role("dialog")
        expect(dialog.locator(f"svc-recipe-details[recipe-id='{recipe_id}']")).to_be_attached()
        dialog.locator(".svc-recipe-details__add-all").click()
        expect(card).to_have_attribute("in-basket", "true")
        page.keyboard.press("Escape")


def card_ids(scope: Locator) -> list[str]:
    return scope.locator("svc-recipe-card").evaluate_all("(cards) => cards.map((c) => c.getAttribute('recipe-id'))")


def vegetarian_ids(coreapi_url: str) -> set[str]:
    answer = requests.get(
        f"{coreapi_url}/api/v1/recipes", params={"category": "vegetarien", "per_page": 100}, timeout=5
    )
    answer.raise_for_status()
    return {str(r["id"]) for r in answer.json()["data"]}


def test_browse_a_category_and_load_more(shop: str, context: BrowserContext, page: Page, width: str) -> None:
    visit(context, page, shop, "/idees", user=new_user())
    home = catalog(page)
    rows = home.locator(".svc-catalog__section")
    expect(rows.first).to_be_visible()
    assert_no_axe_violations(page, [CATALOG], what=f"the catalog home ({width})")

    # "See all" of the first row: the category page, through the routing's link.
    row = rows.first
    name = row.locator(".svc-catalog__section-title").inner_text()
    with page.expect_navigation(url=re.compile(rf"^{re.escape(shop)}/idees/categorie\?category_id=")):
        row.locator(".svc-catalog__section-link").click()
    category = catalog(page)
    expect(category.locator(".svc-catalog-category__title")).to_have_text(name)
    assert card_ids(category)
    assert_no_axe_violations(page, [CATALOG], what=f"a category page ({width})")

    # The list of every recipe: 20, then 20 more loaded in place (the address stays), focus on the first new one.
    page.goto(f"{shop}/idees/recherche?all_recipes=true")
    results = catalog(page).locator("[data-role=results]")
    expect(results.locator(":scope > li")).to_have_count(20)
    first_page = card_ids(results)
    address = page.url
    catalog(page).locator("[data-action=load-more]").click()
    expect(results.locator(":scope > li")).to_have_count(40)
    assert page.url == address
    ids = card_ids(results)
    assert ids[:20] == first_page and len(set(ids)) == 40
    focused = page.evaluate("() => document.activeElement.closest('svc-recipe-card')?.getAttribute('recipe-id')")
    assert focused == ids[20]
    # The new cards are live: one opens the drawer.
    results.locator(":scope > li").nth(25).locator(".svc-recipe-card__title-button").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")
    assert_no_axe_violations(page, [CATALOG], what=f"the list page ({width})")


def test_a_double_click_on_more_loads_one_page_in_place(shop: str, context: BrowserContext, page: Page) -> None:
    """The second click of a double click on "more", while the first page is loading, is the same press: it went
    to the next page's address, dropping the list and sending a second pageview (an analyst's check)."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true")
    record_events(page)
    results = catalog(page).locator("[data-role=results]")
    expect(results.locator(":scope > li")).to_have_count(20)
    address = page.url
    catalog(page).locator("[data-action=load-more]").dblclick()
    expect(results.locator(":scope > li")).to_have_count(40)
    page.wait_for_load_state("networkidle")
    assert page.url == address
    assert [e for e in page.evaluate("window.__events") if e["name"] == "pageview"] == []


def test_the_list_loads_more_under_a_host_pages_trusted_types(
    context: BrowserContext, page: Page, shop_url: str
) -> None:
    """A retailer enforcing Trusted Types and allowing prerender's policy (`svc`, docs/security.md):
    "more" parses the next page through it, and a new card opens the recipe's details in the drawer."""
    policy = "require-trusted-types-for 'script'; trusted-types svc 'allow-duplicates'"
    record_policy_violations(page)
    with origin_served_by(page, SHOP, shop_url, page_headers={"content-security-policy": policy}) as shop:
        visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
        results = catalog(page).locator("[data-role=results]")
        expect(results.locator(":scope > li")).to_have_count(20)
        catalog(page).locator("[data-action=load-more]").click()
        expect(results.locator(":scope > li")).to_have_count(40)
        results.locator(":scope > li").nth(25).locator(".svc-recipe-card__title-button").click()
        expect(page.locator("svc-drawer[open] .svc-recipe-details")).to_be_visible()
        assert policy_violations(page) == []


def test_the_catalog_is_readable_on_a_dark_host_page(shop: str, context: BrowserContext, page: Page) -> None:
    """A retailer whose own page is dark: the catalog sets its text's colour, so it sets the background it is read
    on."""
    visit(context, page, shop, "/idees", user=new_user())
    expect(catalog(page).locator(".svc-catalog__section").first).to_be_visible()
    page.add_style_tag(content=DARK_HOST)
    assert_no_axe_violations(page, [CATALOG], what="the catalog home on a dark host page")


# A retailer's dark brand: the documented tokens (docs/styles.md) of a dark surface and page, a light text and a
# light primary colour, on a host page that stays as it is.
DARK_THEME = """:root {
  --svc-color-surface: #1b1f1d; --svc-color-surface-alt: #252a27; --svc-color-page: #1b1f1d;
  --svc-color-text: #f1f3f2; --svc-color-muted: #b5bdb9; --svc-color-border: #3a403d;
  --svc-color-primary: #6fd3a0; --svc-color-primary-strong: #9be3bd; --svc-color-primary-soft: #1f3a2c;
  --svc-color-primary-contrast: #0b1a12;
}"""


def contrast(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio of two sRGB colours."""

    def luminance(colour: tuple[int, int, int]) -> float:
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


# An element's computed text and background colours as sRGB triples (a computed colour may be written in any of
# CSS's spaces: color-mix() gives oklab), read back from a canvas they were painted on.
COLOURS_OF = """(element) => {
  const style = getComputedStyle(element);
  const context = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  return [style.color, style.backgroundColor].map((colour) => {
    context.clearRect(0, 0, 1, 1);
    context.fillStyle = colour;
    context.fillRect(0, 0, 1, 1);
    return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  });
}"""


@pytest.mark.parametrize("sheet", [DARK_HOST, DARK_THEME], ids=["dark-host-page", "dark-theme"])
def test_the_basket_preview_is_readable_on_a_dark_page_and_in_a_dark_theme(
    shop: str, context: BrowserContext, page: Page, sheet: str
) -> None:
    """The basket preview's page, and the preview embedded as a host's side panel, set their text's colour, so they
    set what it is read on: the page's colour, the surface's."""
    visit(context, page, shop, "/idees/panier", user=new_user())
    expect(catalog(page).locator(".svc-basket-preview__title")).to_be_visible()
    page.add_style_tag(content=sheet)
    assert_no_axe_violations(page, [".svc-basket-preview"], what="the basket preview's page")
    page.locator("svc-catalog.svc-basket-preview").evaluate("(root) => root.classList.add('svc-basket-preview--embed')")
    assert_no_axe_violations(page, [".svc-basket-preview"], what="the embedded basket preview")


def test_a_cards_heart_stands_out_of_its_disc_in_a_dark_theme(shop: str, context: BrowserContext, page: Page) -> None:
    """The heart over a card's picture is drawn in the text's colour on a disc of the surface's: with a dark theme,
    a light heart on a dark disc (3:1 at least, WCAG 1.4.11), not a light heart on a white disc."""
    visit(context, page, shop, "/idees", user=new_user())
    heart = catalog(page).locator("svc-recipe-card[hydrated] .svc-like-button").first
    expect(heart).to_be_visible()
    page.add_style_tag(content=DARK_THEME)
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    colour, disc = heart.evaluate(COLOURS_OF)
    assert contrast(tuple(colour), tuple(disc)) >= 3, (colour, disc)


def test_rows_out_of_view_wait_and_scrolling_through_them_shifts_nothing(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    """The home's rows out of view are skipped (content-visibility), then rendered as the shopper nears them."""
    record_layout_shifts(page)
    visit(context, page, shop, "/idees", user=new_user())
    rows = catalog(page).locator(".svc-catalog__section")
    expect(rows.last).to_be_attached()
    last_picture = rows.last.locator("img[data-svc-picture=recipe]").first
    far_below = last_picture.evaluate("(img) => img.getBoundingClientRect().top - innerHeight")
    fetched = last_picture.evaluate("(img) => img.complete && img.naturalWidth > 0")
    assert not fetched, f"the last row's picture, {far_below:.0f} px below the view, was fetched at once"
    for index in range(rows.count()):  # as a shopper scrolls: one row after the other into view
        rows.nth(index).scroll_into_view_if_needed()
        expect(rows.nth(index).locator("svc-recipe-card[hydrated]").first).to_be_visible()
    expect(last_picture).to_have_js_property("complete", True)
    assert last_picture.evaluate("(img) => img.naturalWidth") > 0
    assert layout_shifts(page) == []


# Where a slow network (or Chromium's parser yielding) may pause the ideas home before its first screen is whole:
# inside the shop's header, before its store picker and before its language picker, and inside prerender's
# catalog, before its toolbar's actions and between two of them. Each was seen moving in a page painted half
# parsed.
FIRST_SCREEN_CUTS = {
    "store-picker": '<form class="picker"',
    "language-picker": '<label class="picker__label" for="language-picker"',
    "toolbar-actions": '<div class="svc-catalog__toolbar-actions"',
    "toolbar-planner-link": '<a class="svc-ds-button svc-ds-button--secondary svc-catalog__toolbar-link"'
    ' data-action="planner"',
}


@pytest.mark.parametrize("before", FIRST_SCREEN_CUTS.values(), ids=FIRST_SCREEN_CUTS.keys())
def test_the_ideas_home_shifts_nothing_when_it_arrives_in_two_parts(
    shop_url: str, context: BrowserContext, page: Page, width: str, before: str
) -> None:
    """A first screen half-received is not painted (examples/shop/templates/base.html's `<link rel=expect
    blocking=render>`): the header's pickers and the catalog's toolbar would otherwise grow once the rest of
    their markup arrived, and move what Chromium had already shown."""
    record_layout_shifts(page)
    with split_delivery(shop_url, before=before) as slow_shop:
        visit(context, page, slow_shop, "/idees", user=new_user())
        expect(catalog(page).locator("svc-recipe-card[hydrated]").first).to_be_visible()
    assert layout_shifts(page) == []


def test_a_liked_recipe_is_in_the_favorites_and_my_space(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
    card = catalog(page).locator("svc-recipe-card[hydrated]").nth(2)
    recipe_id = card.get_attribute("recipe-id")
    heart = card.locator(".svc-like-button")
    name = heart.get_attribute("aria-label") or ""
    assert name.startswith("Ajouter ") and name.endswith(" aux favoris")
    with page.expect_response(lambda r: f"/likes/{recipe_id}" in r.url and r.request.method == "PUT"):
        heart.click()
    # Its state is said by aria-pressed under the same name: a pressed "remove from favorites" contradicted itself.
    expect(heart).to_have_attribute("aria-pressed", "true")
    expect(heart).to_have_accessible_name(name)

    page.goto(f"{shop}/idees/favoris")
    favorites = catalog(page)
    assert card_ids(favorites) == [recipe_id]
    # "1" shown, "1 recette" heard: the unit in the count's plural.
    expect(favorites.locator(".svc-catalog-favorites__count")).to_have_text("1 recette")
    assert_no_axe_violations(page, [CATALOG], what=f"the favorites page ({width})")

    page.goto(f"{shop}/idees/mon-espace")
    space = catalog(page)
    expect(space.locator(".svc-my-space__tab--active")).to_have_attribute("aria-current", "page")
    assert card_ids(space) == [recipe_id]
    assert_no_axe_violations(page, [CATALOG], what=f"my-space's favorites ({width})")
    # Unliked here, from the keyboard: the card leaves the list, which then says it is empty, and the focus goes to
    # the page's heading (it fell to the page's body: the last card had no neighbour to take it).
    space.locator(".svc-like-button").focus()
    with page.expect_response(lambda r: f"/likes/{recipe_id}" in r.url and r.request.method == "DELETE"):
        page.keyboard.press("Enter")
    expect(space.locator("svc-recipe-card")).to_have_count(0)
    expect(space.locator("[data-role=empty]")).to_be_visible()
    expect(space.locator("h1, h2").first).to_be_focused()


def test_paying_before_the_cart_page_has_its_lines_pays_the_cart(
    shop: str, context: BrowserContext, page: Page
) -> None:
    """A shopper who clicks "Payer" as soon as the cart page shows, before its script has the cart's lines (1.5 s
    late here), pays that cart: the basket is confirmed, not emptied by an empty paid cart, which the basket would
    follow (docs/sdk.md, handlePayment)."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
    card = catalog(page).locator("svc-recipe-card[hydrated]").nth(0)
    card.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    # The products reached the shop's cart (a page left before its cart took them has nothing to pay).
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")
    page.keyboard.press("Escape")

    # The page's own fetch of its cart's lines answers 1.5 s late (fault injection in the page: a slow shop).
    page.add_init_script(
        """(() => {
            const fetchNow = window.fetch;
            window.fetch = (input, init) => {
                const url = String(input?.url ?? input);
                const slow = url.endsWith("/cart/lines") && (init?.method ?? "GET") === "GET";
                return slow ? new Promise((wait) => setTimeout(wait, 1500)).then(() => fetchNow(input, init))
                    : fetchNow(input, init);
            };
        })();"""
    )
    page.goto(f"{shop}/cart", wait_until="domcontentloaded")
    with page.expect_response(lambda r: "/baskets/handle-payment" in r.url, timeout=15_000) as paid:
        page.locator("[data-cart-pay]").click()
    assert paid.value.json()["outcome"] == "confirmed"


def test_a_paid_basket_is_in_the_history_and_the_preview_removes(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
    cards = catalog(page).locator("svc-recipe-card[hydrated]")
    paid_id = cards.nth(0).get_attribute("recipe-id")
    cards.nth(0).locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(page.locator("[data-cart-count]")).not_to_have_text("0")
    expect(cards.nth(0)).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")

    page.goto(f"{shop}/cart")
    with page.expect_response(lambda r: "/baskets/handle-payment" in r.url) as paid:
        page.locator("[data-cart-pay]").click()
    assert paid.value.json()["outcome"] == "confirmed"

    page.goto(f"{shop}/idees/mon-espace?tab=history")
    space = catalog(page)
    history = space.locator(".svc-my-space__history--list")
    expect(
        history.locator(".svc-my-space__history-group").first.locator(".svc-my-space__history-item")
    ).to_have_attribute("data-recipe-id", paid_id or "")
    assert_no_axe_violations(page, [CATALOG], what=f"my-space's history ({width})")
    space.locator(".svc-my-space__history-style", has_text="Grille").click()
    expect(catalog(page).locator(".svc-my-space__history--grid")).to_be_visible()
    assert_no_axe_violations(page, [CATALOG], what=f"the history grid ({width})")

    # Two recipes in the new basket; the preview removes one, and the shop's cart follows.
    page.goto(f"{shop}/idees/recherche?all_recipes=true")
    add_whole_recipes(page, (3, 4))
    page.goto(f"{shop}/idees/panier")
    preview = catalog(page)
    items = preview.locator(".svc-basket-preview__item")
    expect(items).to_have_count(2)
    assert_no_axe_violations(page, [CATALOG], what=f"the basket preview ({width})")
    count_before = page.locator("[data-cart-count]").inner_text()
    removed = items.first.get_attribute("data-recipe-id")
    items.first.locator("[data-action=remove-recipe]").click()
    expect(items).to_have_count(1)
    assert items.first.get_attribute("data-recipe-id") != removed
    # Written again in the browser from the server's plural text (sdk/texts.js reads it as the server does).
    # Its count is the products the store sells, each once, as the server counts them (`_sold_products`).
    sold = page.evaluate(
        """() => new Set(window.svc.basket.basket$.value.recipes.flatMap((entry) => entry.lines
             .filter((line) => line.available !== false).map((line) => String(line.product_id)))).size"""
    )
    expect(preview.locator("[data-role=summary]")).to_have_text(re.compile(rf"^1 recette · {sold} produits?$"))
    expect(page.locator("[data-cart-count]")).not_to_have_text(count_before)


def test_a_preference_changes_the_suggested_recipes(
    shop: str, context: BrowserContext, page: Page, width: str, coreapi_url: str
) -> None:
    visit(context, page, shop, "/idees", user=new_user())
    vegetarian = vegetarian_ids(coreapi_url)
    before = set(card_ids(catalog(page)))
    assert before - vegetarian, "the home suggests recipes that are not vegetarian"

    catalog(page).locator(".svc-catalog__toolbar [data-action=preferences]").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    assert_no_axe_violations(page, [CATALOG], what=f"the preferences panel ({width})")
    dialog.get_by_label("Végétarien").check()
    with page.expect_navigation():
        dialog.get_by_role("button", name="Voir les recettes").click()

    home = catalog(page)
    after = set(card_ids(home))
    assert after and after <= vegetarian
    # The page the save reloaded says so (the status written before the reload was never heard), and gives the
    # focus back to the panel's button (it was at the page's top).
    expect(page.locator("[data-svc-toaster]")).to_have_text("Préférences enregistrées.")
    expect(home.locator(".svc-catalog__toolbar [data-action=preferences]")).to_be_focused()
    expect(home.locator(".svc-catalog__active-filter")).to_have_text(["Végétarien"])
    expect(home.locator(".svc-catalog__preferences-count")).to_have_text("1 préférence active")  # hidden words
    # Cleared from the panel: every recipe again.
    home.locator(".svc-catalog__toolbar [data-action=preferences]").click()
    with page.expect_navigation():
        page.get_by_role("dialog").get_by_role("button", name="Tout effacer").click()
    assert set(card_ids(catalog(page))) == before


def scroll_locked(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.classList.contains('svc-scroll-lock')"))


def test_the_preferences_panel_filters_its_ingredients_and_gives_back_focus_and_scroll(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    """The panel (components/catalog/preferences.js): open, it holds the page's scroll lock and its button says so;
    its filter keeps the ingredients whose name holds the text, whatever its case and accents; Escape closes it
    (the search field's own Escape first clears the filter), the lock is released and the focus is on the button
    again."""
    visit(context, page, shop, "/idees", user=new_user())
    button = catalog(page).locator(".svc-catalog__toolbar [data-action=preferences]")
    assert not scroll_locked(page)
    button.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    assert scroll_locked(page)

    options = dialog.locator("[data-role=ingredients] label")
    every = options.count()
    dialog.locator("[data-role=ingredient-filter]").fill("TÔM")
    shown = [text.strip() for text in options.filter(visible=True).all_inner_texts()]
    assert shown and len(shown) < every
    assert all("tom" in text.lower() for text in shown), shown
    count = dialog.locator("[data-role=ingredient-count]")  # said too (role=status), and shown
    expect(count).to_have_text(f"{len(shown)} ingrédient{'s' if len(shown) > 1 else ''}")
    dialog.locator("[data-role=ingredient-filter]").fill("zzzz")
    expect(count).to_have_text("Aucun ingrédient ne correspond.")
    dialog.locator("[data-role=ingredient-filter]").fill("TÔM")

    page.keyboard.press("Escape")  # the search field's: the filter is cleared, the panel stays
    expect(dialog).to_be_visible()
    expect(options.filter(visible=True)).to_have_count(every)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(button).to_be_focused()
    assert not scroll_locked(page)


def test_without_a_modal_dialog_the_preferences_button_claims_nothing(
    shop: str, context: BrowserContext, page: Page
) -> None:
    """A browser below the support floor (docs/styles.md, "Browsers") has no `showModal`: the button threw after
    saying the dialog was open (the forty-second outside check). Now it does nothing, and throws nothing."""
    page.add_init_script("delete HTMLDialogElement.prototype.showModal;")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    visit(context, page, shop, "/idees", user=new_user())
    button = catalog(page).locator(".svc-catalog__toolbar [data-action=preferences]")
    button.click()
    expect(button).not_to_have_attribute("aria-expanded", "true")
    assert not scroll_locked(page)
    assert errors == []


def test_a_long_category_name_stays_within_the_page(shop: str, context: BrowserContext, page: Page, width: str) -> None:
    """A category's name is the upstream's: one longer than the catalog is wide wraps inside its pill (wide
    layouts) or scrolls with the row (phones), and never widens the retailer's page."""
    visit(context, page, shop, "/idees", user=new_user())
    pill = catalog(page).locator("a.svc-catalog-home__category").nth(1)
    expect(pill).to_be_visible()
    pill.evaluate("(pill) => { pill.textContent = 'Recettes '.repeat(60) + 'sans-fin-et-sans-espace-'.repeat(20); }")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"


def test_a_preview_row_follows_its_recipe_changed_in_the_drawer(shop: str, context: BrowserContext, page: Page) -> None:
    """The basket preview's row of a recipe whose guests changed in the drawer says the new guests and price, as
    its total does (it kept the page's first figures, so its rows no longer added up to the total)."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
    card = catalog(page).locator("svc-recipe-card[hydrated]").first
    card.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    page.goto(f"{shop}/idees/panier")
    preview = catalog(page)
    row = preview.locator(".svc-basket-preview__item").first
    expect(row.locator(".svc-basket-preview__meta")).to_have_text(re.compile(r"^4 pers\. · \d+ produits?$"))
    price, total = row.locator(".svc-basket-preview__price"), preview.locator("[data-role=total]")
    before = price.inner_text()
    assert before == total.inner_text()  # one recipe: its row is the whole basket
    row.locator("[data-action=open-details]").click()
    dialog = page.get_by_role("dialog")
    with page.expect_response(lambda r: "/basket/recipes/" in r.url and r.request.method == "PATCH"):
        dialog.locator("[data-action=guests-increase]").click()
    page.keyboard.press("Escape")
    expect(row.locator(".svc-basket-preview__meta")).to_have_text(re.compile(r"^5 pers\. · \d+ produits?$"))
    expect(price).not_to_have_text(before)
    expect(total).to_have_text(price.inner_text())


def test_an_action_that_fails_says_so_where_a_sighted_shopper_sees_it(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    """An "add to my menu" whose write gets no answer: the button only goes back to its state, so the toaster says it
    failed, visible at the top of the viewport (not only to a screen reader)."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true&planner=true", user=new_user())
    page.route("**/v2/menu/**", lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    add = catalog(page).locator("[data-action=add-to-menu]").first
    add.click()
    toaster = page.locator("[data-svc-toaster]")
    expect(toaster).to_have_text("Cela n'a pas fonctionné. Veuillez réessayer.")
    expect(toaster).to_be_visible()
    expect(toaster).to_be_in_viewport()
    expect(add).to_be_enabled()
    assert_no_axe_violations(page, ["[data-svc-toaster]", CATALOG], what=f"a failed action's message ({width})")


def test_an_add_to_the_menu_whose_every_answer_was_lost_is_told_as_made_when_the_menu_holds_it(
    shop: str, context: BrowserContext, page: Page, prerender_url: str
) -> None:
    """Every try of the "add to my menu" reaches the service (applied once, by its key) and loses its answer: the
    menu, read again, holds the recipe, so the page says it was added, not that it failed."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true&planner=true", user=new_user())
    assert menu_of(page, prerender_url) == []  # the shopper has a menu, empty
    applied_then_lost = PostsAppliedThenLost()
    page.route("**/v2/menu/current/recipes", applied_then_lost)
    add = catalog(page).locator("[data-action=add-to-menu]").first
    title = add.locator("xpath=ancestor::li[1]").locator(".svc-recipe-card__title-text").inner_text().strip()
    add.click()
    expect(page.locator("[data-svc-toaster]")).to_have_text(f"Recette « {title} » ajoutée au menu.")
    expect(add.locator("[data-role=label]")).to_have_text("Dans le menu")
    expect(add).to_be_disabled()
    assert applied_then_lost.one_write_tried_again()
    assert menu_of(page, prerender_url) == [add.get_attribute("data-recipe-id")]


def menu_of(page: Page, prerender_url: str) -> list[str]:
    """The ids of the page's shopper's menu, read with the page's credential as another device would (a shopper
    without one gets an empty one)."""
    headers = {"authorization": f"Bearer {page_credential(page)}", "language-id": "fr", "session-id": "catalog-test"}
    answer = requests.get(f"{prerender_url}/v2/menu/current?from=scratch", headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return [recipe["id"] for recipe in answer.json()["recipes"]]


def test_a_shopper_who_never_opened_the_planner_adds_a_recipe_to_a_menu_of_its_own(
    shop: str, context: BrowserContext, page: Page, prerender_url: str, width: str
) -> None:
    """A shopper's first "add to my menu", before any visit of the planner (which makes the menu): the recipe is
    added, to a menu that holds it alone (not the suggestions a first visit of the planner would fill it with),
    without a failed request or an error in the console on the way."""
    visit(context, page, shop, "/idees/recherche?all_recipes=true&planner=true", user=new_user())
    failed: list[str] = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("console", lambda message: failed.append(message.text) if message.type == "error" else None)
    add = catalog(page).locator("[data-action=add-to-menu]").first
    recipe_id = add.get_attribute("data-recipe-id")
    title = add.locator("xpath=ancestor::li[1]").locator(".svc-recipe-card__title-text").inner_text().strip()
    add.click()
    expect(page.locator("[data-svc-toaster]")).to_have_text(f"Recette « {title} » ajoutée au menu.")
    expect(add.locator("[data-role=label]")).to_have_text("Dans le menu")
    expect(add).to_be_disabled()
    assert menu_of(page, prerender_url) == [recipe_id]
    assert failed == []  # no 404 of an add before the menu, no error in the console
    assert_no_axe_violations(page, ["[data-svc-toaster]", CATALOG], what=f"a recipe added to the menu ({width})")


def test_the_keyboard_never_leaves_the_focus_under_the_previews_footer(
    shop: str, context: BrowserContext, page: Page
) -> None:
    """The basket preview's total and button stick to the bottom of the screen: walking six recipes with Tab, no
    control lands under them (WCAG 2.4.11), on a phone and at 200 % zoom (640 x 400 for 1280 x 800)."""
    page.set_viewport_size({"width": 375, "height": 740})
    visit(context, page, shop, "/idees/recherche?all_recipes=true", user=new_user())
    add_whole_recipes(page, range(6))
    for size in ({"width": 375, "height": 740}, {"width": 640, "height": 400}):
        page.set_viewport_size(size)
        page.goto(f"{shop}/idees/panier")
        expect(catalog(page).locator(".svc-basket-preview__item")).to_have_count(6)
        hidden = focus_under_bars(page, "Tab", presses=45)
        assert hidden == [], f"{len(hidden)} focused controls under a bar ({size}): {hidden[:3]}"

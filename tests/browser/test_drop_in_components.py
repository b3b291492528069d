"""The components' side of the maker's SDK drop-in (docs/sdk.md, "Migrating from the maker's SDK"), in Chromium at
1280px and 375px, with the keyboard and axe-core: the basket preview in the drawer (`basket.openPreview()`), the
unavailable ingredients collapsed behind a toggle (`features.collapseUnavailableProductsByDefault()`), what "add
all" reports (`recipes.addAllIngredientsCTAWasClicked`), the drawer's `recipes.hidden`, the cards' ingredient
pictures (`recipes.shouldDisplayIngredientPicturesOnRecipeCard`), the store picker's `events.storeLocatorOpened()`
and the catalog's toolbar under the page's sticky header (`setStickyHeaderHeight`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import BrowserContext, Locator, Page, expect

from .axe import assert_no_axe_violations
from .helpers import FOCUS_IN_DIALOG, card_fragment, hydrated_cards, new_user, origin_served_by, visit
from .test_shopper_credential import add_first_card_to_basket

WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 740}}
SHOP = "http://127.0.0.1:8080"  # baseUrl of the seed retailer's routing (ENVIRONMENT "local")
DRAWER = "svc-drawer[open]"
# A button of the host's page that opens the preview, as a retailer's header would.
PREVIEW_BUTTON = """() => {
    const button = document.createElement("button");
    button.type = "button";
    button.id = "host-preview";
    button.textContent = "Mon panier";
    button.addEventListener("click", () => window.svc.basket.openPreview().catch(() => {}));
    document.body.prepend(button);
    window.seen = { hidden: [], added: [] };
    window.svc.recipes.hidden.subscribe((value) => window.seen.hidden.push(value));
    window.svc.recipes.addAllIngredientsCTAWasClicked.subscribe((value) => window.seen.added.push(value));
}"""


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def scroll_locked(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.classList.contains('svc-scroll-lock')"))


# --- the basket preview -----------------------------------------------------------------------------------------


def test_the_basket_preview_opens_in_the_drawer(page: Page, context: BrowserContext, shop_url: str, width: str) -> None:
    visit(context, page, shop_url, user=new_user())
    expect(hydrated_cards(page).first).to_be_visible()
    page.evaluate(PREVIEW_BUTTON)
    recipe_id = add_first_card_to_basket(page)
    assert page.evaluate("() => window.seen.hidden") == [True]

    # From the keyboard: the host's button, Enter; focus moves into the dialog, the page's scroll is locked.
    opener = page.locator("#host-preview")
    opener.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    preview = dialog.locator("svc-catalog[page='basket-preview'][hydrated]")
    expect(preview).to_be_visible()
    page.wait_for_function(FOCUS_IN_DIALOG)
    assert scroll_locked(page)
    title = preview.locator(".svc-basket-preview__title").text_content() or ""
    expect(dialog.locator(".svc-drawer__title")).to_have_text(title)
    expect(dialog.get_by_role("heading", name=title)).to_have_count(1)  # the drawer's, not twice
    items = preview.locator("ul.svc-basket-preview__list > li")
    expect(items).to_have_count(1)
    expect(items.first).to_have_attribute("data-recipe-id", recipe_id)
    expect(preview.locator("a[data-svc-route='cart']")).to_have_attribute("href", f"{SHOP}/cart")
    box = dialog.bounding_box()
    assert box is not None and box["width"] <= WIDTHS[width]["width"] + 0.5
    # The fragment's ids are its own in the drawer (the page may show the same fragment), references included.
    drawer_id = page.locator("svc-drawer").get_attribute("id")
    ids = preview.locator("[id]").evaluate_all("(elements) => elements.map((e) => e.id)")
    assert ids and all(i.endswith(f"-{drawer_id}") for i in ids), ids
    labelled = preview.locator("[aria-labelledby]").evaluate_all(
        "(els) => els.map((e) => e.getAttribute('aria-labelledby'))"
    )
    assert all(label in ids for label in labelled), labelled
    assert_no_axe_violations(page, [DRAWER], what=f"the basket preview in the drawer ({width})")
    for _ in range(12):  # Tab stays in the dialog
        page.keyboard.press("Tab")
    assert page.evaluate(FOCUS_IN_DIALOG)

    # "See the products": the recipe's details in the same drawer; Escape gives focus back to the host's button.
    items.first.locator(".svc-basket-preview__see").focus()
    page.keyboard.press("Enter")
    expect(dialog.locator(".svc-recipe-details__hero")).to_be_visible()  # the title is the header's (drawer.css)
    assert page.locator("svc-drawer").count() == 1
    page.wait_for_function(FOCUS_IN_DIALOG)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(opener).to_be_focused()
    assert not scroll_locked(page)
    assert page.evaluate("() => window.seen.hidden") == [True, True]

    # Again, and the recipe removed from the basket there: the empty state, the card and the cart follow.
    opener.click()
    expect(preview).to_be_visible()
    preview.locator("[data-action='remove-recipe']").first.focus()
    page.keyboard.press("Enter")
    expect(preview.locator("[data-role='empty']")).to_be_visible()
    expect(page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").first).to_have_attribute("in-basket", "false")
    expect(page.locator("[data-cart-count]")).to_have_text("0")
    assert_no_axe_violations(page, [DRAWER], what=f"the emptied basket preview ({width})")
    dialog.locator(".svc-drawer__close").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("svc-drawer svc-catalog")).to_have_count(0)  # the preview goes with the drawer
    assert page.evaluate("() => window.seen.hidden") == [True, True, True]


def test_a_preview_that_cannot_be_loaded_offers_to_try_again(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    visit(context, page, shop_url, user=new_user())
    expect(hydrated_cards(page).first).to_be_visible()
    page.evaluate(PREVIEW_BUTTON)
    page.route(re.compile(r"/v2/catalog/my-space/basket-preview"), lambda route: route.fulfill(status=503, body=""))
    page.locator("#host-preview").click()
    dialog = page.get_by_role("dialog")
    error = dialog.locator(".svc-drawer__error")
    expect(error).to_be_visible()
    retry = error.locator("[data-action='retry']")
    expect(retry).to_be_focused()
    page.unroute(re.compile(r"/v2/catalog/my-space/basket-preview"))
    page.keyboard.press("Enter")
    expect(dialog.locator("svc-catalog[page='basket-preview'][hydrated]")).to_be_visible()
    expect(dialog.locator("[data-role='empty']")).to_be_visible()  # nothing in this shopper's basket yet


# --- the recipe details -----------------------------------------------------------------------------------------


def recipe_with_unavailable_ingredients(coreapi_url: str, store: str) -> str:
    """A recipe with an ingredient sold nowhere at `store` (the seed's are recipes whose primary ingredient is
    unavailable there: no card shows them at that store, the SDK's `openDetails` does)."""
    recipes = requests.get(f"{coreapi_url}/api/v1/recipes", params={"per_page": 100}, timeout=5)
    recipes.raise_for_status()
    for summary in recipes.json()["data"]:
        detail = requests.get(f"{coreapi_url}/api/v1/recipes/{summary['id']}", params={"store_id": store}, timeout=5)
        detail.raise_for_status()
        if any(not any(p["available"] for p in i["products"]) for i in detail.json()["ingredients"]):
            return str(summary["id"])
    raise AssertionError(f"the seed has a recipe with an ingredient unavailable at {store}")


@pytest.fixture(scope="module")
def collapsible(coreapi_url: str) -> str:
    return recipe_with_unavailable_ingredients(coreapi_url, "1002")


def open_details(page: Page, recipe_id: str) -> Locator:
    page.evaluate("(id) => window.svc.recipes.openDetails(id)", recipe_id)
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__hero")).to_be_visible()  # the title is the header's (drawer.css)
    return dialog


def test_unavailable_ingredients_collapse_behind_a_toggle(
    page: Page, context: BrowserContext, shop_url: str, collapsible: str, width: str
) -> None:
    visit(context, page, shop_url, store="1002", user=new_user())
    expect(hydrated_cards(page).first).to_be_visible()
    page.evaluate(PREVIEW_BUTTON)
    # By default nothing changes: the unavailable rows are in the list, no toggle.
    dialog = open_details(page, collapsible)
    unavailable = dialog.locator(".svc-recipe-details__ingredient--unavailable")
    count = unavailable.count()
    assert count > 0
    expect(unavailable.first).to_be_visible()
    expect(dialog.locator(".svc-recipe-details__unavailable-toggle")).to_have_count(0)
    expect(dialog.locator("a.svc-recipe-details__catalog-link")).to_be_hidden()  # no catalog URL named yet
    page.keyboard.press("Escape")

    page.evaluate(
        "(url) => { window.svc.features.collapseUnavailableProductsByDefault();"
        " window.svc.features.enableTagsOnRecipes(); window.svc.router.setRecipeCatalogUrl(url); }",
        f"{SHOP}/idees",
    )
    dialog = open_details(page, collapsible)
    # The header: the recipe's tags once enabled, the link to the catalog the page named.
    expect(dialog.locator("ul.svc-recipe-details__tags[data-svc-feature='tags'] > li").first).to_be_visible()
    expect(dialog.locator("a.svc-recipe-details__catalog-link")).to_have_attribute("href", f"{SHOP}/idees")
    toggle = dialog.locator(".svc-recipe-details__unavailable-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_have_text(re.compile(rf"\b{count}\b"))
    hidden_list = page.locator(f"#{toggle.get_attribute('aria-controls')}")
    expect(hidden_list).to_be_hidden()
    for row in unavailable.all():
        expect(row).to_be_hidden()
    shopping = dialog.locator("[data-panel='shopping'] .svc-recipe-details__ingredients").first
    expect(shopping.locator(".svc-recipe-details__ingredient--unavailable")).to_have_count(0)
    assert_no_axe_violations(page, [DRAWER], what=f"the collapsed unavailable ingredients ({width})")

    # The keyboard opens and closes it; the label says what the button does.
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(hidden_list).to_be_visible()
    expect(unavailable.first).to_be_visible()
    show_text = toggle.inner_text()
    assert_no_axe_violations(page, [DRAWER], what=f"the unavailable ingredients shown ({width})")
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(hidden_list).to_be_hidden()
    assert toggle.inner_text() != show_text
    expect(toggle).to_be_focused()

    # "Add all": what the basket entry holds of the recipe's ingredients, unavailable ones counted in the total.
    rows = dialog.locator("[data-panel='shopping'] .svc-recipe-details__ingredient[data-ingredient-id]")
    total = rows.count()
    dialog.locator(".svc-recipe-details__add-all").click()
    page.wait_for_function("() => window.seen.added.length === 1")
    report = page.evaluate("() => window.seen.added[0]")
    with_product = dialog.locator("[data-panel='shopping'] .svc-recipe-details__ingredient[data-product-id]").count()
    assert report == {"ingredientsAdded": with_product, "ingredientsTotal": total}
    assert 0 < report["ingredientsAdded"] < report["ingredientsTotal"]


def test_add_all_stopped_by_the_page_reports_nothing(page: Page, context: BrowserContext, shop_url: str) -> None:
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    expect(card).to_be_visible()
    page.evaluate(PREVIEW_BUTTON)
    page.evaluate("() => window.svc.hook.setHookCallback(() => false)")
    card.locator(".svc-recipe-card-cta").click()
    add_all = page.get_by_role("dialog").locator(".svc-recipe-details__add-all")
    add_all.click()
    expect(add_all).not_to_have_attribute("aria-busy", "true")  # the control is back
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.seen.added") == []
    expect(card).to_have_attribute("in-basket", "false")


# --- the cards ----------------------------------------------------------------------------------------------------


def test_cards_show_their_ingredient_pictures_when_the_page_asks(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str, width: str
) -> None:
    visit(context, page, shop_url)
    expect(hydrated_cards(page).first).to_be_visible()
    # A real card: its recipe's answer lists the pictures of its first ingredients' products (docs/upstream.md).
    html = card_fragment(context, shop_url, prerender_url, "5", variant=1, orientation="vertical")
    page.evaluate(
        "(html) => { const slot = document.createElement('div'); slot.id = 'slot'; slot.style.width = '300px';"
        " slot.innerHTML = html; document.body.append(slot); }",
        html,
    )
    card = page.locator("#slot svc-recipe-card[hydrated]")
    expect(card).to_be_visible()
    pictures = json.loads(card.get_attribute("data-ingredient-pictures") or "[]")
    assert len(pictures) == 4 and all(re.search(r"/media/products/\d+\.svg$", url) for url in pictures)
    expect(card.locator(".svc-recipe-card__ingredient-pictures")).to_have_count(0)

    page.evaluate("() => window.svc.recipes.shouldDisplayIngredientPicturesOnRecipeCard(true)")
    row = card.locator("ul.svc-recipe-card__ingredient-pictures")
    expect(row).to_have_attribute("aria-hidden", "true")
    expect(row.locator("img[data-svc-picture='ingredient']")).to_have_count(4)
    assert row.locator("img").evaluate_all("(imgs) => imgs.map((i) => i.getAttribute('src'))") == pictures
    assert row.evaluate("(ul) => ul.previousElementSibling.classList.contains('svc-recipe-card__title')")
    row_box, card_box = row.bounding_box(), card.bounding_box()
    assert row_box and card_box and row_box["x"] + row_box["width"] <= card_box["x"] + card_box["width"] + 0.5
    # Every card of the page follows, the shelf's too.
    listing = page.locator("svc-recipe-card[hydrated][data-ingredient-pictures]")
    expect(page.locator("svc-recipe-card[hydrated] .svc-recipe-card__ingredient-pictures")).to_have_count(
        listing.count()
    )
    assert_no_axe_violations(page, ["#slot svc-recipe-card"], what=f"a card with its ingredient pictures ({width})")

    page.evaluate("() => window.svc.recipes.shouldDisplayIngredientPicturesOnRecipeCard(false)")
    expect(card.locator(".svc-recipe-card__ingredient-pictures")).to_have_count(0)


# --- a publisher's store picker -----------------------------------------------------------------------------------


def test_the_store_picker_tells_the_page_when_it_is_open(page: Page, publisher_url: str) -> None:
    page.goto(f"{publisher_url}/recettes/pub-ratatouille-provencale")
    cta = page.locator("svc-no-supplier-add-to-cart-cta[hydrated]")
    expect(cta).to_have_count(1)
    page.evaluate(
        "() => { window.located = [];"
        " window.svc.events.storeLocatorOpened().subscribe((open) => window.located.push(open)); }"
    )
    assert page.evaluate("() => window.located") == [False]
    cta.locator(".svc-no-supplier-cta__static button").click()
    drawer = page.locator(DRAWER)
    picker = drawer.locator("[data-role='store-form']")
    expect(picker).to_be_visible()
    page.wait_for_function("() => window.located.length === 2")
    assert page.evaluate("() => window.located") == [False, True]
    picker.locator("select").select_option("1001")
    picker.locator("button[type='submit']").click()
    expect(picker).to_have_count(0)
    page.wait_for_function("() => window.located.length === 3")
    assert page.evaluate("() => window.located") == [False, True, False]
    # "Change" shows the picker again; closing the drawer closes it.
    drawer.locator("[data-action='change-store']").click()
    expect(drawer.locator("[data-role='store-form']")).to_be_visible()
    page.keyboard.press("Escape")
    expect(drawer).to_have_count(0)
    page.wait_for_function("() => window.located.length === 5")
    assert page.evaluate("() => window.located") == [False, True, False, True, False]


# --- the catalog's toolbar ------------------------------------------------------------------------------------------


@pytest.fixture
def shop(page: Page, shop_url: str) -> Iterator[str]:
    with origin_served_by(page, SHOP, shop_url) as origin:
        yield origin


def test_the_catalog_toolbar_sticks_under_the_pages_header(
    shop: str, context: BrowserContext, page: Page, width: str
) -> None:
    visit(context, page, shop, "/idees/recherche?all_recipes=true&recipe_type_filter=true", user=new_user())
    root = page.locator("svc-catalog[hydrated]").first
    expect(root).to_be_visible()
    page.evaluate("() => window.svc.setStickyHeaderHeight(60)")
    toolbar = root.locator(".svc-catalog__toolbar")
    promotions = toolbar.locator("a[data-svc-route='promotions']")
    expect(promotions).to_be_hidden()
    page.evaluate("() => window.svc.router.setPromotionsUrl('/promotions')")
    expect(promotions).to_be_visible()
    expect(promotions).to_have_attribute("href", f"{shop}/promotions")
    position = toolbar.evaluate("(el) => getComputedStyle(el).position")
    if width == "phone":
        assert position == "static"  # two rows tall on a phone: it scrolls with the page
    else:
        assert position == "sticky"
        page.evaluate("() => window.scrollTo(0, 1500)")
        page.wait_for_function(
            "(el) => Math.abs(el.getBoundingClientRect().top - 60) < 1", arg=toolbar.element_handle()
        )
        # Where the type chips stick too (a catalog of 600 to 767px), they stick under the toolbar.
        page.set_viewport_size({"width": 720, "height": 900})
        chips = root.locator(".svc-catalog-list__filters")
        expect(chips).to_have_css("position", "sticky")
        page.evaluate("() => window.scrollTo(0, 1600)")
        page.wait_for_function(
            """([toolbar, chips]) => Math.abs(chips.getBoundingClientRect().top
                - toolbar.getBoundingClientRect().bottom) < 1""",
            arg=[toolbar.element_handle(), chips.element_handle()],
        )
    assert_no_axe_violations(page, ["svc-catalog"], what=f"the catalog with its promotions link ({width})")

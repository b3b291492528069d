"""The maker's documented browser integration, renamed `window.svc`, on the demo shop (docs/sdk.md, section 6).

The maker's setup class (examples/shop/static/maker-integration.js: its example class with `window.svc` for
`window.mealz`, the shop's cart in its placeholders) is loaded on a shop page and run member by member, then the
`window.mealz` customization members are called as the maker documents them. Each check is the member's effect
in the page, the requests it sends or the shop's cart, never only that the member exists."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Request, expect

from examples.delivery import static_url_path
from examples.shop import STATIC_FOLDER as SHOP_STATIC

from .axe import assert_no_axe_violations
from .helpers import BrowserCalls, hydrated_cards, loaded, new_user, origin_served_by, visit

SETUP_CLASS = "maker-integration.js"
SHOP = "http://127.0.0.1:8080"
INTERNAL = "window.svc[Symbol.for('prerender.sdk.internal')]"
ALERT = "User logged in on Svc!"
RECIPE_PICTURES = re.compile(r"/media/recipes/\d+\.svg(\?.*)?$")


@pytest.fixture
def dialogs(page: Page) -> Iterator[list[str]]:
    """The texts of the page's alert() calls, accepted as they come."""
    seen: list[str] = []

    def accept(dialog: Any) -> None:
        seen.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    yield seen


def start_setup_class(page: Page) -> None:
    """Loads the shop's copy of the maker's class next to the shop's own scripts and constructs it, as a
    retailer's app does at start (`window.setup` for the test)."""
    setup_src = page.locator("script[src*='svc-setup.js']").get_attribute("src") or ""
    src = setup_src.replace("svc-setup.js", SETUP_CLASS)
    page.add_script_tag(type="module", content=f"import {{ Svc }} from {json.dumps(src)}; window.setup = new Svc();")
    page.wait_for_function("() => window.setup !== undefined")


def open_first_recipe(page: Page) -> tuple[Locator, Locator]:
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__add-all")).to_be_visible()
    return card, dialog


def is_basket_add(request: Request) -> bool:
    return request.method == "POST" and request.url.split("?")[0].endswith("/basket/recipes")


def test_the_setup_class_logs_in_syncs_the_cart_and_pays(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str, dialogs: list[str]
) -> None:
    user = new_user()
    calls = BrowserCalls(page, prerender_url)
    visit(context, page, shop_url, user=user)
    expect(hydrated_cards(page).first).to_be_visible()
    start_setup_class(page)

    # constructor: basket.initialize() -> basketIsReady$ emits true (a late subscriber gets it too).
    assert page.evaluate("() => new Promise((resolve) => window.svc.basket.basketIsReady$.subscribe(resolve))") is True
    page.evaluate(
        "() => { window.counts = []; window.svc.basket.recipeCount().subscribe((n) => window.counts.push(n)); }"
    )
    assert page.evaluate("() => window.counts") == [0]

    # loadStore -> pos.load.
    page.evaluate("() => window.setup.loadStore('1001')")
    assert page.evaluate("() => window.svc.pos.storeId$.value") == "1001"

    # handleLogin: the documented `loadWithExternalId(...).subscribe(() => alert(...))` fires for the page's user.
    page.evaluate(f"() => window.setup.handleLogin({{ id: {json.dumps(user)}, cookiesAccepted: () => false }})")
    assert_eventually(page, lambda: dialogs == [ALERT])
    # A shopper who refused cookies is not profiled: `forbidProfiling` is the second argument.
    assert page.evaluate("() => window.svc.user.user$.value.forbidProfiling") is True

    # "add all": the class's pushProductsToBasket puts the products in the shop's cart, whose update calls
    # sendCartToSvc (retailerBasketChanged): the change is confirmed, the count follows.
    card, dialog = open_first_recipe(page)
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")) as reconciled:
        dialog.locator(".svc-recipe-details__add-all").click()
    assert reconciled.value.status == 200
    expect(card).to_have_attribute("in-basket", "true")
    page.wait_for_function("() => window.counts.at(-1) === 1")
    cart = page.evaluate(
        "() => fetch(JSON.parse(document.getElementById('shop-context').textContent).cart.linesUrl,"
        " { credentials: 'same-origin' }).then((r) => r.json())"
    )
    assert cart["count"] > 0
    page.keyboard.press("Escape")

    # The token of setupWithToken never leaves the page; setLanguage sets the requests' language.
    sent = calls.sent()
    assert sent and all("supplier-token" not in call.headers for call in sent)
    assert {call.headers.get("language-id") for call in sent} == {"fr"}

    # sendPaymentNotificationToSvc -> handlePayment(price): the basket is confirmed, the count goes back to 0.
    total = page.evaluate("() => window.svc.basket.basket$.value.total")
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("/baskets/handle-payment")) as paid:
        page.evaluate(f"() => window.setup.sendPaymentNotificationToSvc({{ price: {json.dumps(total)} }})")
    assert paid.value.status == 200 and paid.value.json()["outcome"] == "confirmed"
    page.wait_for_function("() => window.counts.at(-1) === 0")
    # Called again, as the maker's class does, not awaited, with nothing left to pay: the SDK's refusal is a console
    # warning, not an uncaught error in the page (the `page` fixture fails on one).
    with page.expect_console_message(lambda message: "basketSync.handlePayment failed:" in message.text):
        page.evaluate(f"() => window.setup.sendPaymentNotificationToSvc({{ price: {json.dumps(total)} }})")

    # handleLogout -> user.reset(): the SDK no longer acts for anyone.
    page.evaluate("() => window.setup.handleLogout()")
    assert page.evaluate("() => window.svc.user.user$.value") is None


def assert_eventually(page: Page, check: Any, timeout_ms: int = 5000) -> None:
    """Polls a Python-side condition while the page runs (an alert is handled between polls)."""
    waited = 0
    while not check():
        assert waited < timeout_ms, "the condition never held"
        page.wait_for_timeout(50)
        waited += 50


def test_a_hook_callback_returning_false_stops_the_add_to_basket(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """A logged-out visitor: the class's hookCallback brings the login form forward and returns false."""
    adds: list[Request] = []
    page.on("request", lambda request: adds.append(request) if is_basket_add(request) else None)
    visit(context, page, shop_url)
    expect(hydrated_cards(page).first).to_be_visible()
    start_setup_class(page)
    page.evaluate(
        "() => { window.asked = []; const hook = window.setup.hookCallback;"
        " window.svc.hook.setHookCallback((l, p) => { window.asked.push([l, p]); return hook(l, p); }); }"
    )
    card, dialog = open_first_recipe(page)
    dialog.locator(".svc-recipe-details__add-all").click()
    page.wait_for_function("() => window.asked.length === 1")
    assert page.evaluate("() => window.asked") == [[False, True]]
    expect(page.locator("[data-login-form]")).to_have_attribute("data-requested", "")
    page.wait_for_timeout(300)
    assert adds == [] and card.get_attribute("in-basket") == "false"
    expect(dialog.locator(".svc-drawer__message--none")).to_have_count(1)  # stopped, not failed: no message

    # At a store the service does not know, isPosValid is false.
    page.evaluate("() => window.svc.pos.load('424242')")
    dialog.locator(".svc-recipe-details__add-all").click()
    page.wait_for_function("() => window.asked.length === 2")
    assert page.evaluate("() => window.asked[1]") == [False, False]
    expect(page.locator("[data-store-form]")).to_have_attribute("data-requested", "")

    # Back at the shop's store, the page lets it through: the same click adds the recipe.
    page.evaluate("() => window.svc.pos.load('1001')")
    page.evaluate("() => window.svc.hook.setHookCallback(() => true)")
    with page.expect_request(is_basket_add):
        dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")


def test_the_customization_members_change_what_the_shopper_sees(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
) -> None:
    user = new_user()
    calls = BrowserCalls(page, prerender_url)
    # Every recipe picture of the page fails to load: the default picture replaces them.
    page.route(RECIPE_PICTURES, lambda route: route.fulfill(status=404, body=""))
    visit(context, page, shop_url, user=user)
    expect(hydrated_cards(page).first).to_be_visible()
    start_setup_class(page)
    default = f"{shop_url}{static_url_path(SHOP_STATIC)}/favicon.svg"  # a picture of the shop's (examples/delivery.py)
    page.evaluate(
        "(url) => {"
        " window.svc.recipes.setDefaultRecipePicture(url);"
        " window.svc.recipes.setDifficultyLevels([{ value: 1, label: 'Débutant' }, { value: 2, label: 'Cuisinier' },"
        "   { value: 3, label: 'Chef' }]);"
        " window.svc.recipes.showConfirmationToaster();"
        " window.svc.features.enableTagsOnRecipes();"
        " window.svc.router.setRetailerCartUrl('/panier?from=preview');"
        " window.svc.setStickyHeaderHeight(72);"
        " window.svc.setDefaultScrollElementGetter(() => null);"
        " window.seen = { hidden: [], added: [], events: [], locator: [] };"
        " window.svc.recipes.hidden.subscribe((v) => window.seen.hidden.push(v));"
        " window.svc.recipes.addAllIngredientsCTAWasClicked.subscribe((v) => window.seen.added.push(v));"
        " window.svc.analytics.eventSent$.subscribe((e) => window.seen.events.push([JSON.parse(e), e.name]));"
        " window.svc.events.storeLocatorOpened().subscribe((open) => window.seen.locator.push(open));"
        "}",
        default,
    )
    picture = hydrated_cards(page).first.locator(".svc-recipe-card__picture img")
    expect(picture).to_have_attribute("src", default)
    loaded(page, picture)
    assert (
        page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--svc-sticky-header-height')")
        == "72px"
    )
    assert page.evaluate("() => window.seen.locator") == [False]

    # The drawer: difficulty labels, tags shown, the page's scroll left alone, and on "add all" the count of
    # ingredients added and the toaster.
    card, dialog = open_first_recipe(page)
    expect(dialog.locator("[data-difficulty]").first).to_have_text(re.compile(r"^(Débutant|Cuisinier|Chef)$"))
    expect(dialog.locator("[data-svc-feature='tags']")).to_be_visible()
    assert "svc-scroll-lock" not in (page.evaluate("() => document.documentElement.className") or "")
    total = dialog.locator(".svc-recipe-details__panel[data-panel='shopping'] .svc-recipe-details__ingredient").count()
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    page.wait_for_function("() => window.seen.added.length === 1")
    added = page.evaluate("() => window.seen.added[0]")
    assert added["ingredientsTotal"] == total and 0 < added["ingredientsAdded"] <= total
    # The confirmation, in the drawer the addition was made in (inside its modal dialog).
    expect(dialog.locator(".svc-drawer__message")).to_have_text(re.compile(r"produits? ajoutés? à votre panier"))
    page.keyboard.press("Escape")
    page.wait_for_function("() => window.seen.hidden.length === 1")
    assert page.evaluate("() => window.seen.hidden") == [True]

    # An addition made with no dialog open (through the SDK's basket, as the planner's finalize or a transferred
    # basket add): the toaster, a status message at the top of the viewport.
    third = hydrated_cards(page).nth(2)
    page.evaluate(f"(id) => {INTERNAL}.basket.addRecipe(id, 4)", third.get_attribute("recipe-id"))
    toaster = page.locator(".svc-toaster")
    expect(toaster).to_have_text(re.compile(r"produits? ajoutés? à votre panier"))
    expect(toaster).to_have_attribute("role", "status")
    expect(third).to_have_attribute("in-basket", "true")

    # eventSent$: each event is the object and the maker's JSON text at once.
    events = page.evaluate("() => window.seen.events")
    assert events and all(
        parsed["name"] == name and set(parsed) == {"name", "path", "props"} for parsed, name in events
    )
    assert "entry.add-all" in {name for _, name in events}

    # openPreview: the basket preview in the drawer, its cart link where the page said.
    page.evaluate("() => window.svc.basket.openPreview()")
    preview = page.get_by_role("dialog")
    expect(preview.locator("[data-svc-route='cart']")).to_have_attribute("href", re.compile(r"/panier\?from=preview$"))
    expect(preview).to_contain_text(card.locator(".svc-recipe-card__title-text").inner_text())
    page.keyboard.press("Escape")
    page.wait_for_function("() => window.seen.hidden.length === 2")

    # The login observable (alias loadWithExtId), profiling, the favorite products, paymentStarted.
    assert (
        page.evaluate(
            f"() => new Promise((resolve) => window.svc.user.loadWithExtId({json.dumps(user)}, false)"
            ".subscribe((identity) => resolve(identity.id)))"
        )
        == user
    )
    page.evaluate(f"() => window.svc.user.updateForbidProfiling(true, {json.dumps(user)})")
    since = len(calls)
    stored = page.evaluate(
        "() => new Promise((resolve, reject) => window.svc.user.setFavoriteItems(['100042', '100077'])"
        ".subscribe({ next: resolve, error: reject }))"
    )
    assert stored == {"product_ids": ["100042", "100077"]}
    favorite_calls = [c for c in calls.sent(since) if c.url.split("?")[0].endswith("/favorite-items")]
    assert [c.method for c in favorite_calls] == ["PUT"] and favorite_calls[0].headers.get("profiling") == "false"
    page.evaluate("() => window.svc.paymentStarted(12.5)")
    kept = json.loads(page.evaluate("() => localStorage.getItem('_svc/supplier-1/payment-started')") or "null")
    assert kept and kept["total"] == 12.5 and kept["cart"]

    # basket.reset() empties the basket, as the maker documents it (a second recipe added since the page loaded).
    second = hydrated_cards(page).nth(1)
    second.locator(".svc-recipe-card-cta").click()
    page.get_by_role("dialog").locator(".svc-recipe-details__add-all").click()
    expect(second).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    assert page.evaluate("() => window.svc.basket.reset().then((basket) => basket.recipe_count)") == 0
    expect(card).to_have_attribute("in-basket", "false")
    expect(second).to_have_attribute("in-basket", "false")
    assert page.evaluate("() => window.svc.basket.reload().then((basket) => basket.recipe_count)") == 0


def test_the_shoppers_location_puts_the_nearest_store_first(page: Page, publisher_url: str) -> None:
    """`user.setLocation(position)` on a recipe publisher's page: its drawer's store picker (the stores of the
    affiliated retailer: Paris Bastille, then Lyon Part-Dieu, in the service's order) lists the nearest first."""
    page.goto(f"{publisher_url}/recettes/pub-ratatouille-provencale")
    cta = page.locator("svc-no-supplier-add-to-cart-cta[hydrated]")
    expect(cta).to_have_count(1)

    def picker_order() -> list[str]:
        cta.locator(".svc-no-supplier-cta__static button").click()
        select = page.locator("svc-drawer[open] [data-role='store-form'] select")
        expect(select).to_be_visible()
        values = select.locator("option").evaluate_all("(options) => options.map((o) => o.value).filter(Boolean)")
        page.keyboard.press("Escape")
        expect(page.locator("svc-drawer[open]")).to_have_count(0)
        return values

    assert picker_order() == ["1001", "1002"]
    # In Villeurbanne, next to Lyon (the documented shape, as navigator.geolocation gives it).
    page.evaluate("() => window.svc.user.setLocation({ coords: { latitude: 45.7719, longitude: 4.8902 } })")
    assert picker_order() == ["1002", "1001"]
    # Near Paris again; a position that is not one is refused (TypeError) and changes nothing.
    page.evaluate("() => window.svc.user.setLocation({ coords: { latitude: 48.85, longitude: 2.35, accuracy: 30 } })")
    error = page.evaluate("() => { try { window.svc.user.setLocation({}); } catch (e) { return e.name; } }")
    assert error == "TypeError"
    assert picker_order() == ["1001", "1002"]


@pytest.fixture
def shop(page: Page, shop_url: str) -> Iterator[str]:
    """The seed retailer's routing names the shop at http://127.0.0.1:8080: forwarded to the test's shop."""
    with origin_served_by(page, SHOP, shop_url) as origin:
        yield origin


def test_the_catalog_follows_the_features_and_the_pages_urls(shop: str, context: BrowserContext, page: Page) -> None:
    visit(context, page, shop, "/idees", user=new_user())
    home = page.locator("svc-catalog[hydrated]").first
    expect(home).to_be_visible()
    toolbar = home.locator(".svc-catalog__toolbar")
    promotions = toolbar.locator("a[data-svc-route='promotions']")
    how = home.locator("a[data-svc-route='recipe-info']")
    expect(promotions).to_be_hidden()
    expect(how).to_be_hidden()

    page.evaluate(
        "() => { window.svc.router.setPromotionsUrl('/promotions');"
        " window.svc.router.setRecipeInfoLink('/aide/recettes');"
        " window.svc.features.enableMealsPlanner('/mon-planning'); }"
    )
    expect(promotions).to_be_visible()
    expect(promotions).to_have_attribute("href", f"{shop}/promotions")
    expect(how).to_be_visible()
    expect(how).to_have_attribute("href", f"{shop}/aide/recettes")
    expect(toolbar.locator("a[data-svc-route='planner']")).to_have_attribute("href", f"{shop}/mon-planning")
    assert_no_axe_violations(page, ["svc-catalog"], what="the catalog with the page's links")

    # enableUserPreferences: a shopper without preferences is asked for them once, by the panel opening itself.
    panel = home.locator("dialog.svc-preferences")
    expect(panel).to_be_hidden()
    page.evaluate("() => window.svc.features.enableUserPreferences()")
    expect(panel).to_be_visible()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    page.reload()
    expect(page.locator("svc-catalog[hydrated]").first).to_be_visible()
    page.evaluate("() => window.svc.features.enableUserPreferences()")
    page.wait_for_timeout(300)
    expect(page.locator("dialog.svc-preferences")).to_be_hidden()


def shop_page_with_its_warnings(page: Page, context: BrowserContext, shop_url: str) -> list[str]:
    """A new shopper on the shop's home, its cards ready; the console warnings the page says from now on."""
    warnings: list[str] = []
    page.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
    visit(context, page, shop_url, user=new_user())
    expect(hydrated_cards(page).first).to_be_visible()
    return warnings


def test_the_members_the_maker_deprecated_warn_once_and_stop_no_setup(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """`analytics.init`, `supplier.setOrigin`, `supplier.load` and `features.enablePersonalRecipes`, which the maker
    marks deprecated, were missing: an older setup calling one stopped at its TypeError. Each now says once in the
    console what does its work here, and the setup goes on (the shop's cards still answer a click)."""
    warnings = shop_page_with_its_warnings(page, context, shop_url)
    reached = page.evaluate(
        "() => {"
        " for (let i = 0; i < 2; i += 1) {"
        "   window.svc.analytics.init('shop.example');"
        "   window.svc.supplier.setOrigin('https://shop.example');"
        "   window.svc.supplier.load(1);"
        "   window.svc.features.enablePersonalRecipes();"
        " }"
        " return 'the rest of the setup';"
        "}"
    )
    assert reached == "the rest of the setup"
    deprecated = [text for text in warnings if " is deprecated: " in text]
    assert sorted(text.split("] ")[1].split(" is deprecated")[0] for text in deprecated) == [
        "analytics.init",
        "features.enablePersonalRecipes",
        "supplier.load",
        "supplier.setOrigin",
    ], warnings
    open_first_recipe(page)


def test_a_cart_report_the_page_does_not_wait_for_fails_in_the_console_not_as_the_pages_error(
    page: Page, context: BrowserContext, shop_url: str
) -> None:
    """The maker's integrations call `retailerBasketChanged` and `handlePayment` without waiting (typed `=> void`
    there). Refused (here, a store the service does not know), the call was an unhandled rejection, which error
    trackers report as the page's crash: it is a console warning now (the `page` fixture fails on an uncaught
    error), and a caller that awaits still gets the refusal, and says it as it wants: no warning for that one."""
    warnings = shop_page_with_its_warnings(page, context, shop_url)
    status = page.evaluate(
        "async () => {"
        " window.svc.pos.load('9999');"
        " const lines = [{ id: '100001', quantity: 1 }];"
        " window.svc.basketSync.retailerBasketChanged(lines);"  # as the maker's example calls it
        " try { await window.svc.basketSync.retailerBasketChanged(lines); return 'taken'; }"
        " catch (error) { return error.status; }"
        "}"
    )
    assert status == 400
    page.wait_for_function("() => true")  # one more task: the first call's rejection has been handled
    failures = [text for text in warnings if "basketSync.retailerBasketChanged failed:" in text]
    assert len(failures) == 1, warnings  # the dropped call's; the awaited one's refusal went to its caller only

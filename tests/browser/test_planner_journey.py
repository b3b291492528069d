"""A shopper's whole planner journey through the demo shop, in Chromium at 1280px and 375px: a store chosen, the
entry on the recipe page with 6 guests, the current-menu page (onboarding on the first visit), a dessert added from
the catalog filter, a product unselected, a budget and its gauge, finalize while logged out asking for a login,
the login bringing the visitor's menu to the user, finalize filling the shop's cart, and the browser on the cart
page; on a phone, the two views and the URL; the onboarding reopened from help; axe-core on the planner's markup.

The seed supplier's routing (`local`) names the shop at http://127.0.0.1:8080 (coreapi/seed/data/suppliers.json):
the entry's modes and the page's `cart-url` lead there. The test's shop listens on a free port, so Playwright
forwards every request for that origin to it (cookies are per host, not per port: the shop's cookies hold;
tests/chromium.py says why Chromium's Local Network Access checks are off)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from .axe import assert_no_axe_violations
from .helpers import origin_served_by
from .test_planner_entry import WIDTHS

SHOP = "http://127.0.0.1:8080"  # baseUrl of the seed routing for ENVIRONMENT "local"
PRODUCT = ["svc-planner", "svc-planner-onboarding[open]", "svc-planner-entry", "[data-svc-toaster]"]


def product(page: Page) -> list[str]:
    return [selector for selector in PRODUCT if page.locator(selector).count() > 0]


@pytest.fixture
def shop(page: Page, shop_url: str) -> Iterator[str]:
    """The shop, reached at the origin its routing names."""
    with origin_served_by(page, SHOP, shop_url) as origin:
        yield origin


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def menu_ids(planner: Locator) -> list[str]:
    return planner.locator(".svc-planner__menu-item").evaluate_all("(rows) => rows.map((r) => r.dataset.recipeId)")


def idle(planner: Locator) -> None:
    expect(planner).not_to_have_attribute("busy", "")


def view(planner: Locator, name: str) -> None:
    """Shows a view of the page on a phone (desktop shows both panels, and no view switch)."""
    if f"svc-planner--view-{name}" in (planner.get_attribute("class") or ""):
        return
    if not planner.locator(".svc-quick-menu__see-menu").is_visible() and name == "menu":
        return
    if not planner.locator("[data-action=see-recipes]").is_visible() and name == "recipe":
        return
    planner.locator(".svc-quick-menu__see-menu" if name == "menu" else "[data-action=see-recipes]").click()
    expect(planner).to_have_class(re.compile(f"svc-planner--view-{name}"))


def test_from_the_entry_to_a_filled_cart(shop: str, page: Page, width: str) -> None:
    phone = width == "phone"
    # A store, then the entry on the recipe page: 6 guests, "from our suggestions".
    page.goto(f"{shop}/")
    with page.expect_navigation():
        page.locator("select#store-picker").select_option("1001")
    page.goto(f"{shop}/idees/fiches")
    entry = page.locator("[data-planner-entry] svc-planner-entry")
    expect(entry).to_have_attribute("hydrated", "")
    entry.locator("[data-action=guests-increase]").click()
    entry.locator("[data-action=guests-increase]").click()
    expect(entry.locator("[data-role=guests]")).to_have_text("6")
    with page.expect_navigation(url=re.compile(rf"^{re.escape(shop)}/planner/current-menu\?")):
        entry.locator("[data-mode=selection]").click()

    # The current-menu page: the onboarding on this first visit, the entry's guests applied.
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")
    dialog = page.locator("svc-planner-onboarding[open] [role=dialog]")
    expect(dialog).to_be_visible()
    assert_no_axe_violations(page, product(page), what=f"the onboarding over the planner ({width})")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    idle(planner)
    expect(planner).to_have_attribute("guests", "6")
    assert "mode=" not in page.url
    view(planner, "recipe")

    # A dessert from the catalog filter.
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    dessert = planner.locator("[data-role=panel-items] > li").first
    assert dessert.get_attribute("data-recipe-type") == "dessert"
    dessert_id = dessert.get_attribute("data-recipe-id")
    dessert.locator("[data-action=add]").click()
    idle(planner)
    assert dessert_id in menu_ids(planner)
    if phone:
        expect(planner.locator(".svc-quick-menu__slot--filled, .svc-quick-menu__slot--overflow")).not_to_have_count(0)

    # A product unselected, then a budget and its gauge.
    view(planner, "menu")
    if phone:
        assert page.url.endswith("view=menu")
    row = planner.locator(f".svc-planner__menu-item[data-recipe-id='{dessert_id}']")
    row.locator(".svc-planner__products-toggle").click()
    check = row.locator(".svc-planner__product-check").first
    unselected = check.get_attribute("data-product-id")
    check.uncheck()
    idle(planner)
    expect(planner.locator(".svc-planner__product--unselected")).to_have_count(1)
    planner.locator(".svc-planner__budget-input").fill("150")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    expect(planner.locator("[data-role=budget-gauge]")).to_be_visible()
    assert_no_axe_violations(page, product(page), what=f"the planner with a budget ({width})")
    menu = menu_ids(planner)
    selected = planner.locator(".svc-planner__product-check:checked").evaluate_all(
        "(checks) => [...new Set(checks.map((c) => c.dataset.productId))]"
    )

    # Finalize while logged out: the shop is asked to log the visitor in.
    view(planner, "menu")
    planner.locator("[data-action=finalize]").click()
    login = page.locator("[data-account=login]")
    expect(login).to_be_focused()
    next_path = page.locator("form#login-form input[name=next]").input_value()
    assert next_path.startswith("/planner/current-menu")
    with page.expect_navigation(url=re.compile(rf"^{re.escape(shop)}/planner/current-menu")):
        login.click()

    # Logged in: the visitor's menu is the user's now, with its choices.
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")
    assert menu_ids(planner) == menu
    view(planner, "menu")
    merged_row = planner.locator(f".svc-planner__menu-item[data-recipe-id='{dessert_id}']")
    expect(merged_row.locator(f"[data-product-id='{unselected}']")).not_to_be_checked()

    # Finalize: the cart holds the menu's products and the browser is on the cart page.
    with page.expect_navigation(url=f"{shop}/cart"):
        planner.locator("[data-action=finalize]").click()
    lines = page.locator("[data-cart-lines] .cart-line")
    expect(lines.first).to_be_visible()
    # Finalize went on: nothing is left to resume, and the cart page stays the cart page.
    assert page.evaluate("() => localStorage.getItem('_svc/cachedFinalizeMenuUrl')") is None
    page.wait_for_timeout(500)
    assert page.url == f"{shop}/cart"
    in_cart = set(lines.evaluate_all("(lines) => lines.map((l) => l.dataset.productId)"))
    assert set(selected) <= in_cart


def test_the_phone_views_and_the_help(shop: str, page: Page) -> None:
    page.set_viewport_size(WIDTHS["phone"])
    page.goto(f"{shop}/")
    with page.expect_navigation():
        page.locator("select#store-picker").select_option("1001")
    page.goto(f"{shop}/planner/current-menu?mode=selection")
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")
    page.keyboard.press("Escape")  # the onboarding of the first visit
    expect(page.locator("svc-planner-onboarding[open]")).to_have_count(0)

    expect(planner.locator(".svc-quick-menu")).to_be_visible()
    expect(planner.locator(".svc-planner__menu")).to_be_hidden()
    view(planner, "menu")
    assert page.url.endswith("view=menu")
    expect(planner.locator(".svc-planner__suggestions")).to_be_hidden()
    assert_no_axe_violations(page, product(page), what="the phone's menu view in the shop")

    # Reloaded on the menu view, the page opens there (the shop forwards ?view=).
    page.reload()
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")
    expect(planner).to_have_class(re.compile("svc-planner--view-menu"))
    expect(page.locator("svc-planner-onboarding[open]")).to_have_count(0)
    view(planner, "recipe")
    assert page.url.endswith("view=recipe")

    help_button = planner.locator("[data-action=help]")
    help_button.click()
    dialog = page.locator("svc-planner-onboarding[open] [role=dialog]")
    expect(dialog).to_be_visible()
    page.locator("svc-planner-onboarding [data-action=next]").click()
    page.locator("svc-planner-onboarding [data-action=previous]").click()
    page.locator("svc-planner-onboarding [data-action=next]").click()
    page.locator("svc-planner-onboarding [data-action=next]").click()
    page.locator("svc-planner-onboarding [data-action=done]").click()
    expect(dialog).to_have_count(0)
    expect(help_button).to_be_focused()

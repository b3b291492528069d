"""The planner's current-menu page in Chromium (GET /v2/planner/current-menu, components/planner.js): the catalog
filter, adding and removing recipes, swapping, selecting products, the budget and its gauge, the guests, finalize
(logged out: the host is asked to log the user in and the resume URL cached; logged in: the basket, the cart's
callback, the retailer cart), the phone views and the URL, the onboarding modal on a first visit only, the page
without localStorage, and axe-core on all of it, at 1280px and 375px.

The host page is the customer's, on a loopback server (tests/browser/test_planner_entry.py says why), holding
the fragment its server got from the live prerender. The retailer cart the page leads to is the seed supplier's
`local` routing (http://127.0.0.1:8080/cart), answered by Playwright. The whole journey through the demo shop is
tests/browser/test_planner_journey.py."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
import requests
from playwright.sync_api import Locator, Page, Route, expect

import prerender
from tests.live import TEST_BUDGETS, LiveServer

from .axe import assert_no_axe_violations
from .helpers import (
    DARK_HOST,
    PostsAppliedThenLost,
    euros,
    expect_refused,
    page_credential,
    policy_violations,
    record_policy_violations,
)
from .test_planner_entry import NO_LOCAL_STORAGE, WIDTHS, HostPages

CUSTOMER = "http://127.0.0.1:8080"  # baseUrl of the seed routing for ENVIRONMENT "local"
RETAILER_CART = f"{CUSTOMER}/cart"
HOST_PATH = "/shop/planner/current-menu"
RETAILER_TOKEN = "demo-retailer-token"
STORE = "1001"
FINALIZE_KEY = "_svc/cachedFinalizeMenuUrl"
FINALIZE_NEEDS_KEY = "_svc/supplier-1/planner/finalizeNeeds"
ONBOARDED_KEY = "_svc/planner/onboarded"
GUESTS_KEY = "_svc/planner/guests"
PRODUCT = ["svc-planner", "svc-planner-onboarding[open]", "svc-drawer[open]", "[data-svc-toaster]"]


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def server_headers(*, user: str | None, authless: str) -> dict[str, str]:
    """What the customer's server sends for its shopper."""
    hdrs = {"supplier-token": RETAILER_TOKEN, "language-id": "fr", "session-id": "planner-page"}
    if user:
        hdrs["authorization"] = f"user_id {user}"
    else:
        hdrs["authless-id"] = authless
    return hdrs


def host_page(prerender_url: str, fragment: str, hdrs: dict[str, str], *, csp: str | None = None) -> str:
    policy = f'<meta http-equiv="Content-Security-Policy" content="{csp}">' if csp else ""
    styles = "".join(
        requests.get(f"{prerender_url}/v2/styles{route}", headers=hdrs, timeout=10).json()["html"]
        for route in ("/base", "/planner")
    )
    return f"""<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
{policy}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mon menu</title>
{styles}
</head>
<body>
<main>
<h1>Planificateur de repas</h1>
{fragment}
</main>
<script type="module">
const svc = window.svc;
svc.supplier.setup({{ language: "fr" }});
svc.pos.load("{STORE}");
const cart = new Map();
svc.basketSync.definePushProductsToCart(async (changes) => {{
  for (const {{ id, quantity }} of changes) cart.set(id, (cart.get(id) ?? 0) + quantity);
  if (window.testCart) await window.testCart([...cart]);
  await svc.basketSync.retailerBasketChanged([...cart].map(([id, quantity]) => ({{ id, quantity }})));
}});
svc.planner.defineLoginRequired((request) => {{
  sessionStorage.setItem("test-login", JSON.stringify(request));
}});
svc.analytics.eventSent$.subscribe((e) => {{
  const events = JSON.parse(sessionStorage.getItem("test-events") || "[]");
  events.push({{ name: e.name, props: e.props }});
  sessionStorage.setItem("test-events", JSON.stringify(events));
  window.testEvent?.(e.name);
}});
</script>
</body>
</html>"""


@dataclass
class Customer:
    """The customer's current-menu page, and its retailer cart (answered by Playwright, visits recorded)."""

    page: Page
    url: str
    visits: list[str] = field(default_factory=list)

    def handle(self, route: Route) -> None:
        self.visits.append(route.request.url)
        route.fulfill(
            status=200,
            content_type="text/html; charset=utf-8",
            body='<!doctype html><html lang="fr"><head><title>Panier</title></head><body><h1>Panier</h1></body></html>',
        )

    def open(self, query: str = "") -> Locator:
        self.page.goto(f"{self.url}{query}")
        planner = self.page.locator("svc-planner")
        expect(planner).to_have_attribute("hydrated", "")
        return planner

    def events(self) -> list[dict[str, object]]:
        return json.loads(self.page.evaluate("() => sessionStorage.getItem('test-events') || '[]'"))

    def local(self, key: str) -> str | None:
        return self.page.evaluate("(key) => localStorage.getItem(key)", key)


@pytest.fixture
def site(page: Page, prerender_url: str, host_pages: HostPages) -> Iterator[Callable[..., Customer]]:
    """The customer's current-menu page for a new shopper (a visitor unless `user`), onboarding already seen
    unless `first_visit`, under the Content-Security-Policy `csp` if given."""

    def make(*, user: str | None = None, first_visit: bool = False, csp: str | None = None, **params: str) -> Customer:
        hdrs = server_headers(user=user, authless=f"t-planner-{uuid.uuid4().hex}")
        query = {"store_id": STORE, **params}
        response = requests.get(f"{prerender_url}/v2/planner/current-menu", params=query, headers=hdrs, timeout=10)
        assert response.status_code == 200, response.text
        host_pages.pages[HOST_PATH] = host_page(prerender_url, response.text, hdrs, csp=csp)
        if not first_visit:
            page.add_init_script(f"localStorage.setItem({json.dumps(ONBOARDED_KEY)}, 'true')")
        customer = Customer(page, f"{host_pages.url}{HOST_PATH}")
        page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
        return customer

    yield make
    host_pages.pages.clear()


def product(page: Page) -> list[str]:
    """The product's elements on the page now (axe checks only them, and each must match)."""
    return [selector for selector in PRODUCT if page.locator(selector).count() > 0]


def menu_ids(planner: Locator) -> list[str]:
    return planner.locator(".svc-planner__menu-item").evaluate_all("(rows) => rows.map((r) => r.dataset.recipeId)")


def idle(planner: Locator) -> None:
    """The page's action queue is done (`busy` leaves the root)."""
    expect(planner).not_to_have_attribute("busy", "")


def show_menu(page: Page, planner: Locator, width: str) -> None:
    """The menu panel on screen: always on desktop, through the quick menu on a phone."""
    if width == "phone" and "svc-planner--view-menu" not in (planner.get_attribute("class") or ""):
        planner.locator(".svc-quick-menu__see-menu").click()
    expect(planner.locator(".svc-planner__menu")).to_be_visible()


# --- building the menu --------------------------------------------------------------------------------


def test_a_dessert_from_the_catalog_filter_joins_the_menu(
    site: Callable[..., Customer], page: Page, width: str
) -> None:
    customer = site()
    planner = customer.open()
    before = menu_ids(planner)
    assert 1 <= len(before) <= 6
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    expect(planner.locator("[data-action=filter][value=dessert]")).to_have_attribute("aria-pressed", "true")
    items = planner.locator("[data-role=panel-items] > li")
    expect(items.first).to_be_visible()
    types = items.evaluate_all("(items) => items.map((i) => i.dataset.recipeType)")
    assert types and set(types) == {"dessert"}
    assert not set(items.evaluate_all("(items) => items.map((i) => i.dataset.recipeId)")) & set(before)
    expect(planner.locator("[data-role=panel-title]")).to_have_text("Choisir parmi les recettes")

    dessert = items.first
    dessert_id = dessert.get_attribute("data-recipe-id")
    dessert.locator("[data-action=add]").click()
    idle(planner)
    expect(dessert).to_have_class(re.compile("svc-planner__suggestion--added"))
    expect(dessert.locator("[data-action=add]")).to_be_disabled()
    assert menu_ids(planner) == [*before, dessert_id]
    expect(planner.locator("[data-role=status]")).to_contain_text("ajoutée au menu")  # "Recette « … » ajoutée au menu."
    added = [e for e in customer.events() if e["name"] == "planner.add"]
    assert added == [{"name": "planner.add", "props": {"recipe_id": dessert_id, "source": "catalog"}}]
    assert_no_axe_violations(page, product(page), what=f"the page with the dessert filter ({width})")


def test_adding_from_the_keyboard_moves_on_to_the_next_suggestion(site: Callable[..., Customer], page: Page) -> None:
    """The added suggestion's button becomes "in the menu" and disabled: the focus goes to the next one that can be
    added (the shopper is choosing several), never lost on <body>."""
    customer = site()
    planner = customer.open()
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    items = planner.locator("[data-role=panel-items] > li")
    expect(items.nth(1)).to_be_visible()
    first_id, second_id = items.nth(0).get_attribute("data-recipe-id"), items.nth(1).get_attribute("data-recipe-id")
    items.nth(0).locator("[data-action=add]").focus()
    page.keyboard.press("Enter")
    idle(planner)
    expect(items.nth(0).locator("[data-action=add]")).to_be_disabled()
    focused = page.evaluate(
        "() => [document.activeElement.dataset.action,"
        " document.activeElement.closest('[data-recipe-id]')?.dataset.recipeId]"
    )
    assert focused == ["add", second_id], (first_id, focused)


def test_a_double_click_on_add_adds_and_tracks_once(site: Callable[..., Customer], page: Page) -> None:
    """The second press of a double click on a suggestion's "Ajouter" waits behind the first, then finds the
    recipe in the menu: one write and one `planner.add` (it sent both twice)."""
    customer = site()
    planner = customer.open()
    writes: list[str] = []
    page.on(
        "request", lambda r: writes.append(r.url) if r.method == "POST" and "/menu/current/recipes" in r.url else None
    )
    item = planner.locator("[data-role=panel-items] > li").first
    recipe_id = item.get_attribute("data-recipe-id")
    item.locator("[data-action=add]").dblclick()
    idle(planner)
    expect(item).to_have_class(re.compile("svc-planner__suggestion--added"))
    assert menu_ids(planner).count(recipe_id) == 1
    assert len(writes) == 1
    assert [e for e in customer.events() if e["name"] == "planner.add"] == [
        {"name": "planner.add", "props": {"recipe_id": recipe_id, "source": "suggestions"}}
    ]


def test_an_action_the_service_is_slow_to_answer_says_one_moment(site: Callable[..., Customer], page: Page) -> None:
    """An add held by a slow service says "Un instant…" in the page's status after a moment, then what it did (a
    screen-reader check heard 14 s of silence after a press)."""
    customer = site()
    planner = customer.open()
    held: list[Route] = []
    page.route(
        re.compile(r"/v2/menu/current/recipes"),
        lambda route: held.append(route) if route.request.method != "GET" else route.continue_(),
    )
    planner.locator("[data-role=panel-items] > li [data-action=add]").first.click()
    status = planner.locator("[data-role=status]")
    expect(status).to_have_text("Un instant…")
    assert len(held) == 1
    page.unroute(re.compile(r"/v2/menu/current/recipes"))
    held[0].continue_()
    idle(planner)
    expect(status).to_have_text(re.compile(r"ajoutée au menu\.$"))


def test_enter_in_the_search_searches_every_type(site: Callable[..., Customer], page: Page) -> None:
    customer = site()
    planner = customer.open()
    planner.locator(".svc-planner__search-input").fill("chocolat")
    planner.locator(".svc-planner__search-input").press("Enter")
    idle(planner)
    expect(planner.locator("[data-action=filter][aria-pressed=true]")).to_have_count(0)
    expect(planner.locator("[data-role=panel-title]")).to_have_text("Choisir parmi les recettes")
    items = planner.locator("[data-role=panel-items] > li")
    types = items.evaluate_all("(items) => items.map((i) => i.dataset.recipeType)")
    assert "dessert" in types
    assert page.url == customer.url  # the form did not leave the page
    # A screen reader hears how many recipes it found, in words, not a bare number.
    expect(planner.locator("[data-role=status]")).to_have_text(f"{items.count()} recettes")


def test_a_search_without_results_says_so(site: Callable[..., Customer], page: Page) -> None:
    customer = site()
    planner = customer.open()
    planner.locator(".svc-planner__search-input").fill("zzzzqqq")
    planner.locator(".svc-planner__search-input").press("Enter")
    idle(planner)
    expect(planner.locator("[data-role=panel-items] > li")).to_have_count(0)
    empty = planner.locator("[data-role=panel-empty]")
    expect(empty).to_be_visible()
    expect(empty).to_have_text("Aucune recette ne correspond\u00a0: essayez un autre type ou un autre mot.")
    expect(planner.locator("[data-role=status]")).to_have_text(empty.inner_text())  # heard as well as shown


def test_cancelling_a_search_keeps_the_focus_and_says_what_shows(site: Callable[..., Customer], page: Page) -> None:
    """ "Annuler" hides itself as the suggestions come back: the focus goes to the emptied search field (it fell to
    <body>, and a keyboard shopper started again from the top of the host's page) and the page's status says that
    the suggestions show, and how many (a screen reader heard nothing)."""
    customer = site()
    planner = customer.open()
    suggestions = planner.locator("[data-role=panel-items] > li").count()
    search = planner.locator(".svc-planner__search-input")
    search.fill("chocolat")
    search.press("Enter")
    idle(planner)
    cancel = planner.locator("[data-action=suggestions]")
    cancel.focus()
    page.keyboard.press("Enter")
    idle(planner)
    expect(cancel).to_be_hidden()
    expect(planner.locator("[data-role=panel-title]")).to_have_text("Nos suggestions")
    expect(search).to_be_focused()
    expect(search).to_have_value("")
    status = planner.locator("[data-role=status]")
    expect(status).to_have_text(f"Retour à nos suggestions\u00a0: {suggestions} recettes")


def test_remove_and_swap_a_recipe(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site()
    planner = customer.open()
    show_menu(page, planner, width)
    first, second, *_ = menu_ids(planner)
    planner.locator(f"[data-recipe-id='{first}'] [data-action=remove]").click()
    idle(planner)
    assert first not in menu_ids(planner)
    # The focus moves to the next recipe's remove button, never lost on <body>.
    assert page.evaluate("() => document.activeElement.closest('[data-recipe-id]')?.dataset.recipeId") == second
    slots = planner.locator(".svc-planner__menu-list > li")
    expect(slots).to_have_count(max(6, len(menu_ids(planner))))

    before_swap = menu_ids(planner)
    planner.locator(f".svc-planner__menu-item[data-recipe-id='{second}'] [data-action=swap]").click()
    idle(planner)
    after = menu_ids(planner)
    # The new recipe takes the swapped one's place.
    assert second not in after and len(after) == len(before_swap)
    assert after.index(next(rid for rid in after if rid not in before_swap)) == before_swap.index(second)
    swapped = [e for e in customer.events() if e["name"] == "planner.swap"]
    assert len(swapped) == 1 and swapped[0]["props"]["recipe_id"] == second  # type: ignore[index]
    assert swapped[0]["props"]["new_recipe_id"] in after  # type: ignore[index]
    assert [e["name"] for e in customer.events() if e["name"] == "planner.remove"] == ["planner.remove"]


def test_a_swap_does_not_bring_back_a_recipe_the_shopper_just_removed(
    site: Callable[..., Customer], page: Page
) -> None:
    """Removed, a recipe is the first suggestion of its type again, so the next "Remplacer" of a recipe of that type
    brought it back. A recipe taken out in the page comes back only when no other suggestion of its type is left."""
    planner = site(mode="custom").open()
    planner.locator("[data-action=filter][value=drink]").click()
    idle(planner)
    for _ in range(2):  # the panel's first two drinks (the first suggestions of the type)
        planner.locator(".svc-planner__suggestion [data-action=add]:not([disabled])").first.click()
        idle(planner)
    removed, swapped = menu_ids(planner)
    planner.locator(f".svc-planner__menu-item[data-recipe-id='{removed}'] [data-action=remove]").click()
    idle(planner)
    planner.locator(f".svc-planner__menu-item[data-recipe-id='{swapped}'] [data-action=swap]").click()
    idle(planner)
    (came_in,) = menu_ids(planner)
    assert came_in not in (removed, swapped)


def test_a_recipe_swapped_in_is_marked_in_the_menu_in_the_panel(site: Callable[..., Customer], page: Page) -> None:
    """A swap brings in the first suggestion of the row's type, a card of the panel when the panel lists that type
    (the catalog filter: every recipe of the type not in the menu): that card then says it is in the menu and
    offers no second add (which would have said "added" for a menu left as it was), as after an add."""
    planner = site().open()
    show_menu(page, planner, "desktop")
    row = planner.locator(".svc-planner__menu-item").first
    kind = row.get_attribute("data-recipe-type") or ""
    planner.locator(f"[data-action=filter][value='{kind}']").click()
    idle(planner)
    more = planner.locator("[data-action=more]")
    for _ in range(20):  # every page of the type, so that the panel lists whichever recipe the swap brings in
        if not more.is_visible():
            break
        more.click()
        idle(planner)
    before = set(menu_ids(planner))
    row.locator("[data-action=swap]").click()
    idle(planner)
    (came_in,) = set(menu_ids(planner)) - before
    panel = planner.locator("[data-role=panel-items] > li").evaluate_all(
        "(items) => items.map((i) => i.dataset.recipeId)"
    )
    assert came_in in panel, f"the {kind} that came in, {came_in}, is not listed by the {kind} filter: {panel}"
    card_button = planner.locator(f".svc-planner__suggestion[data-recipe-id='{came_in}'] [data-action=add]")
    expect(card_button).to_be_disabled()
    expect(card_button).to_have_accessible_name(re.compile("dans le menu", re.IGNORECASE))


CHANGED_ELSEWHERE = "Votre menu a changé entre-temps, sur une autre page ou un autre appareil\u00a0: le voici à jour."


def test_a_menu_changed_on_another_device_is_said_so_in_the_shoppers_language(
    site: Callable[..., Customer], page: Page, prerender_url: str
) -> None:
    """The shopper's other device acted first: it removed a recipe (this page's remove answers 404), then added the
    dessert this page offers (this page's add answers 409 `already-in-menu`). Each time the page says, in its
    language, that the menu changed meanwhile and shows it as it is now; never the route's detail (English,
    written for developers)."""
    planner = site().open()
    other_device = {"authorization": f"Bearer {page_credential(page)}", "language-id": "fr", "session-id": "device-2"}
    first = menu_ids(planner)[0]
    expect(planner.get_by_role("alert")).to_have_text("")
    planner.get_by_role("alert").evaluate("(region) => { region.dataset.testBefore = 'yes'; }")  # the same node after
    removed = requests.delete(f"{prerender_url}/v2/menu/current/recipes/{first}", headers=other_device, timeout=10)
    assert removed.status_code == 200, removed.text
    planner.locator(f"[data-recipe-id='{first}'] [data-action=remove]").click()
    idle(planner)
    expect(planner.locator("[data-role=message]")).to_have_text(CHANGED_ELSEWHERE)
    assert first not in menu_ids(planner)
    # Said by an alert region that was in the page, empty, before it (a region shown with its text may not be
    # read); the message line a sighted shopper sees is not a second one.
    expect(planner.get_by_role("alert")).to_have_text(CHANGED_ELSEWHERE)
    expect(planner.get_by_role("alert")).to_have_attribute("data-test-before", "yes")
    expect(planner.locator("[data-role=message]")).to_have_attribute("aria-hidden", "true")

    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    dessert = planner.locator("[data-role=panel-items] > li").first
    dessert_id = dessert.get_attribute("data-recipe-id")
    added = requests.post(
        f"{prerender_url}/v2/menu/current/recipes", json={"recipe_id": dessert_id}, headers=other_device, timeout=10
    )
    assert added.status_code == 200, added.text
    dessert.locator("[data-action=add]").click()
    idle(planner)
    expect(planner.locator("[data-role=message]")).to_have_text(CHANGED_ELSEWHERE)
    assert dessert_id in menu_ids(planner)


UNCONFIRMED = "Nous n'avons pas pu confirmer ce changement\u00a0: voici votre menu tel qu'il est maintenant."


def test_an_add_whose_every_answer_was_lost_is_not_told_as_failed(
    site: Callable[..., Customer], page: Page, width: str
) -> None:
    """Every try of the add reaches the service (applied once, by its key) and its answer is lost: the page does not
    say "it did not work" of a change that was made. It says it could not confirm it, shows the menu as it is (the
    recipe in it), and the suggestion says "in the menu"."""
    planner = site().open()
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    dessert = planner.locator("[data-role=panel-items] > li").first
    dessert_id = dessert.get_attribute("data-recipe-id")
    applied_then_lost = PostsAppliedThenLost()
    page.route(re.compile(r"/v2/menu/current/recipes$"), applied_then_lost)
    dessert.locator("[data-action=add]").click()
    idle(planner)
    expect(planner.locator("[data-role=message]")).to_have_text(UNCONFIRMED)
    assert applied_then_lost.one_write_tried_again()
    assert menu_ids(planner).count(dessert_id) == 1
    expect(dessert).to_have_class(re.compile("svc-planner__suggestion--added"))
    expect(dessert.locator("[data-action=add]")).to_be_disabled()
    assert_no_axe_violations(page, product(page), what=f"the page after an unconfirmed add ({width})")


def test_unselecting_a_product_lowers_the_total(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site()
    planner = customer.open()
    show_menu(page, planner, width)
    total = planner.locator(".svc-planner__total-amount")
    before = total.inner_text()
    row = planner.locator(".svc-planner__menu-item").first
    row.locator(".svc-planner__products-toggle").click()
    check = row.locator(".svc-planner__product-check").first
    product_id = check.get_attribute("data-product-id")
    check.uncheck()
    idle(planner)
    product = planner.locator(f".svc-planner__menu-item >> nth=0 >> [data-product-id='{product_id}']")
    expect(product).not_to_be_checked()
    expect(planner.locator(".svc-planner__product--unselected")).to_have_count(1)
    expect(total).not_to_have_text(before)
    # The focus stays on the product's checkbox of the new markup.
    assert page.evaluate("() => document.activeElement.dataset.productId") == product_id


def test_the_budget_shows_its_gauge(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site()
    planner = customer.open()
    expect(planner.locator("[data-role=budget-gauge]")).to_have_count(0)
    planner.locator(".svc-planner__budget-input").fill("20")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    gauge = planner.locator("[data-role=budget-gauge]")
    expect(gauge).to_be_visible()
    expect(gauge).to_contain_text("20,00")
    # The field writes the amount as the page does ("20,00", not the browser's "20.00"), and reads it back so.
    expect(planner.locator(".svc-planner__budget-input")).to_have_value("20,00")
    planner.locator(".svc-planner__budget-input").fill("20,5")
    planner.locator(".svc-planner__budget-edit").focus()
    page.keyboard.press("Space")  # from the keyboard: the focus stays on "save" once the budget is in place
    idle(planner)
    expect(gauge).to_contain_text("20,50")
    expect(planner.locator(".svc-planner__budget-edit")).to_be_focused()
    expect(planner.locator(".svc-planner__budget-input")).to_have_value("20,50")
    budget = planner.locator(".svc-planner__budget")
    expect(budget).to_have_attribute("data-budget-percent", "100")
    assert fill_share(budget) == pytest.approx(1, abs=0.01)
    expect(budget).to_have_class(re.compile("svc-planner__budget--over"))
    # Over budget in words too, not by the colour alone; and heard with what the shopper did.
    total = euros(budget.locator(".svc-planner__budget-value").inner_text().split(" sur ")[0])
    over = budget.locator("[data-role=budget-over]").inner_text()
    assert over.startswith("Budget dépassé de ") and euros(over) == total - Decimal("20.50")
    expect(planner.locator("[data-role=status]")).to_have_text(f"Budget enregistré. {over}")
    assert_no_axe_violations(page, product(page), what=f"the page with a budget ({width})")
    planner.locator(".svc-planner__budget-input").fill(str(total + 1).replace(".", ","))
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    expect(budget.locator("[data-role=budget-over]")).to_have_count(0)
    expect(planner.locator("[data-role=status]")).to_have_text("Budget enregistré. Le menu tient dans le budget.")
    planner.locator(".svc-planner__budget-input").fill("0")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    expect(planner.locator("[data-role=budget-gauge]")).to_have_count(0)


def test_a_budget_that_cannot_be_read_says_why_in_the_page(
    site: Callable[..., Customer], page: Page, width: str
) -> None:
    """An amount the field cannot read is refused in the page's own words, under the field and in its description,
    with the format to follow (it was the browser's bubble, in the browser's language, gone after a few seconds,
    the format only in a tooltip); nothing is written. The error leaves as the shopper types again."""
    customer = site()
    planner = customer.open()
    writes: list[str] = []
    page.on("request", lambda r: writes.append(r.url) if r.method == "PATCH" else None)
    field = planner.locator(".svc-planner__budget-input")
    error = planner.locator("[data-role=budget-error]")
    expect(error).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    field.fill("quarante")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    text = "Montant non lu\u00a0: écrivez un montant en euros, par exemple 40,00 (100000 au plus)."
    expect_refused(field, error, text)
    expect(planner.locator("[data-role=status]")).to_have_text(text)
    assert not writes
    assert_no_axe_violations(page, product(page), what=f"the budget refused ({width})")
    field.press("End")
    field.press("Backspace")
    expect(error).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    field.fill("40")
    field.press("Enter")
    idle(planner)
    expect(planner.locator("[data-role=budget-gauge]")).to_contain_text("40,00")
    expect(error).to_be_hidden()
    assert len(writes) == 1


def fill_share(budget: Locator) -> float:
    """How much of the gauge's bar its fill covers, as drawn."""
    bar = budget.locator(".svc-planner__budget-bar").bounding_box()
    fill = budget.locator(".svc-planner__budget-fill").bounding_box()
    assert bar is not None and fill is not None and bar["width"] > 0
    return float(fill["width"] / bar["width"])


def test_the_gauge_fills_under_a_host_pages_strict_style_src(
    site: Callable[..., Customer], page: Page, prerender_url: str
) -> None:
    # A retailer's page allowing only its own and prerender's stylesheets: no inline style may be needed.
    record_policy_violations(page)
    planner = site(csp=f"style-src 'self' {prerender_url}").open()
    planner.locator(".svc-planner__budget-input").fill("1000")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    budget = planner.locator(".svc-planner__budget")
    total = euros(budget.locator(".svc-planner__budget-value").inner_text().split(" sur ")[0])
    assert total > 0
    within = (total * 2).quantize(Decimal("0.01"))  # about half full
    planner.locator(".svc-planner__budget-input").fill(str(within).replace(".", ","))
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    expect(budget.locator(".svc-planner__budget-value")).to_contain_text(str(within).replace(".", ","))
    percent = int(budget.get_attribute("data-budget-percent") or "")
    assert percent == pytest.approx(float(total / within * 100), abs=1)
    assert fill_share(budget) == pytest.approx(percent / 100, abs=0.01)
    assert policy_violations(page) == []


def test_the_page_works_under_a_host_pages_trusted_types(site: Callable[..., Customer], page: Page, width: str) -> None:
    """A retailer's page enforcing Trusted Types, allowing prerender's policy (`svc`, docs/security.md): the
    catalog's cards come in, a recipe joins the menu and is said to, the suggestions come back, and a card opens the
    drawer on the recipe's details (a hardened host page found each of them refused)."""
    record_policy_violations(page)
    planner = site(csp="require-trusted-types-for 'script'; trusted-types svc 'allow-duplicates'").open()
    before = menu_ids(planner)
    suggestions = panel_ids(planner)
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    dessert = planner.locator("[data-role=panel-items] > li").first
    dessert_id = dessert.get_attribute("data-recipe-id")
    dessert.locator("[data-action=add]").click()
    idle(planner)
    expect(planner.locator("[data-role=status]")).to_contain_text("ajoutée au menu")
    assert menu_ids(planner) == [*before, dessert_id]
    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    assert panel_ids(planner) == suggestions

    planner.locator("[data-role=panel-items] .svc-recipe-card [data-action=open-details]").first.click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer.locator(".svc-recipe-details")).to_be_visible()
    expect(drawer.locator(".svc-recipe-details__ingredients").first).to_be_attached()
    assert policy_violations(page) == []


def test_the_page_is_readable_on_a_dark_host_page(site: Callable[..., Customer], page: Page, width: str) -> None:
    """A retailer whose own page is dark: the planner sets its text's colour, so it sets the background that text
    is read on (its headings were #1d2521 on the host's #111)."""
    site().open()
    page.add_style_tag(content=DARK_HOST)
    assert_no_axe_violations(page, product(page), what=f"the planner on a dark host page ({width})")


def test_a_suggestion_cards_title_opens_the_drawer(site: Callable[..., Customer], page: Page) -> None:
    """The panel's cards are recipe cards: their title and picture open the recipe's details (they did nothing:
    the page did not load the card's module)."""
    planner = site().open()
    card = planner.locator("[data-role=panel-items] .svc-recipe-card").first
    recipe = card.get_attribute("recipe-id")
    card.locator(".svc-recipe-card__title-button").click()
    details = page.locator("svc-drawer[open] .svc-recipe-details")
    expect(details).to_be_visible()
    expect(details).to_have_attribute("recipe-id", recipe or "")


def test_a_product_change_is_heard_with_the_budget_it_moves(
    site: Callable[..., Customer], page: Page, width: str
) -> None:
    """Ticking a recipe's product is said, and so is the budget it crosses, either way (a screen-reader check found
    the toggle silent, and its overrun said after the next, unrelated action)."""
    customer = site()
    planner = customer.open()
    show_menu(page, planner, width)
    value = planner.locator(".svc-planner__budget-value")
    planner.locator(".svc-planner__budget-input").fill("1")
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    total = euros(value.inner_text().split(" sur ")[0])
    planner.locator(".svc-planner__budget-input").fill(str(total - Decimal("0.01")).replace(".", ","))
    planner.locator(".svc-planner__budget-edit").click()
    idle(planner)
    status = planner.locator("[data-role=status]")
    expect(status).to_have_text(re.compile(r"^Budget enregistré\. Budget dépassé de 0,01"))
    row = planner.locator(".svc-planner__menu-item").first
    row.locator(".svc-planner__products-toggle").click()
    item = row.locator(".svc-planner__product").first
    name = item.locator(".svc-planner__product-name").inner_text().strip()
    item.locator("[data-action=toggle-product]").uncheck()
    idle(planner)
    expect(planner.locator("[data-role=budget-over]")).to_have_count(0)
    expect(status).to_have_text(f"Produit «\u00a0{name}\u00a0» retiré du menu. Le menu tient dans le budget.")
    row.locator(".svc-planner__product").first.locator("[data-action=toggle-product]").check()
    idle(planner)
    over = planner.locator("[data-role=budget-over]").inner_text()
    expect(status).to_have_text(f"Produit «\u00a0{name}\u00a0» ajouté au menu. {over}")


def test_the_guests_apply_to_every_recipe(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site()
    planner = customer.open()
    show_menu(page, planner, width)
    planner.locator(".svc-planner__menu [data-action=guests-increase]").click()
    idle(planner)
    expect(planner.locator(".svc-planner__guests [data-role=guests]")).to_have_text("5")
    guests = planner.locator(".svc-planner__menu-item").evaluate_all("(rows) => rows.map((r) => r.dataset.guests)")
    assert set(guests) == {"5"}
    # Heard too: the stepper's value is drawn again with the menu, no live region (a keyboard-only check's finding).
    expect(planner.locator("[data-role=status]")).to_have_text("Menu pour 5 personnes.")


def panel_guests(planner: Locator) -> list[tuple[str, str]]:
    """Each card of the panel: the number of people it opens the drawer for (its attribute) and the one it says."""
    pairs = planner.locator("[data-role=panel-items] .svc-recipe-card").evaluate_all(
        "(cards) => cards.map((c) => [c.getAttribute('guests'),"
        " c.querySelector('.svc-recipe-card__guests').textContent.trim()])"
    )
    return [(attribute, text) for attribute, text in pairs]


def panel_ids(planner: Locator) -> list[str]:
    return planner.locator("[data-role=panel-items] > li").evaluate_all(
        "(items) => items.map((i) => i.dataset.recipeId)"
    )


def change_guests(page: Page, planner: Locator, width: str, action: str) -> None:
    """The menu's stepper pressed once (the phone shows the menu for it, then the recipes again)."""
    show_menu(page, planner, width)
    planner.locator(f".svc-planner__menu [data-action={action}]").click()
    idle(planner)
    if width == "phone":
        planner.locator("[data-action=see-recipes]").click()
        expect(planner.locator(".svc-planner__suggestions")).to_be_visible()


def test_the_panels_cards_follow_the_menus_guests(site: Callable[..., Customer], page: Page, width: str) -> None:
    """The panel's cards say, and open the drawer for, the menu's number of people: after a guest change the
    suggestions, and the catalog's pages the panel shows, are drawn again for the new count (they said the count
    the page was first drawn for until it was read again). A suggestion in the menu still says so."""
    planner = site().open()
    start = int(planner.get_attribute("guests") or "0")
    assert start and set(panel_guests(planner)) == {(str(start), f"{start} pers.")}
    suggestions = panel_ids(planner)
    added = planner.locator("[data-role=panel-items] > li").first
    added.locator("[data-action=add]").click()
    idle(planner)
    expect(added).to_have_class(re.compile("svc-planner__suggestion--added"))

    change_guests(page, planner, width, "guests-increase")
    expect(planner).to_have_attribute("guests", str(start + 1))
    assert set(panel_guests(planner)) == {(str(start + 1), f"{start + 1} pers.")}
    assert panel_ids(planner) == suggestions
    first = planner.locator("[data-role=panel-items] > li").first
    expect(first).to_have_class(re.compile("svc-planner__suggestion--added"))
    expect(first.locator("[data-action=add]")).to_be_disabled()

    planner.locator("[data-action=filter][value=dessert]").click()
    idle(planner)
    desserts = panel_ids(planner)
    assert desserts and set(panel_guests(planner)) == {(str(start + 1), f"{start + 1} pers.")}
    change_guests(page, planner, width, "guests-increase")
    assert panel_ids(planner) == desserts
    assert set(panel_guests(planner)) == {(str(start + 2), f"{start + 2} pers.")}
    expect(planner.locator("[data-action=filter][value=dessert]")).to_have_attribute("aria-pressed", "true")

    planner.locator("[data-action=suggestions]").click()
    idle(planner)
    assert panel_ids(planner) == suggestions
    assert set(panel_guests(planner)) == {(str(start + 2), f"{start + 2} pers.")}
    assert_no_axe_violations(page, product(page), what=f"the panel drawn again for new guests ({width})")


def test_the_menus_stepper_keeps_the_focus_at_its_bound(site: Callable[..., Customer], page: Page, width: str) -> None:
    """Pressed from the keyboard down to 1, the menu's "one fewer" says it is unavailable and keeps the focus: a
    press more changes nothing (it handed the focus to "+", where the next press went back up)."""
    planner = site().open()
    show_menu(page, planner, width)
    start = int(planner.get_attribute("guests") or "0")
    decrease = planner.locator(".svc-planner__menu [data-action=guests-decrease]")
    decrease.focus()
    for _ in range(start):  # one press past the bound
        page.keyboard.press("Enter")
        idle(planner)
    expect(planner).to_have_attribute("guests", "1")
    expect(decrease).to_have_attribute("aria-disabled", "true")
    expect(decrease).to_be_focused()
    expect(planner.locator(".svc-planner__menu [data-action=guests-increase]")).to_have_attribute(
        "aria-disabled", "false"
    )
    assert_no_axe_violations(page, product(page), what=f"the menu's stepper at its bound ({width})")


def test_the_entrys_guests_apply_once(site: Callable[..., Customer], page: Page) -> None:
    page.add_init_script(f"localStorage.setItem({json.dumps(GUESTS_KEY)}, '6')")
    customer = site(mode="selection")
    planner = customer.open("?mode=selection&store_id=1001")
    idle(planner)
    expect(planner).to_have_attribute("guests", "6")
    assert "mode=" not in page.url
    guests = planner.locator(".svc-planner__menu-item").evaluate_all("(rows) => rows.map((r) => r.dataset.guests)")
    assert guests and set(guests) == {"6"}
    # The panel's cards too (the server drew them for the menu's 4).
    assert set(panel_guests(planner)) == {("6", "6 pers.")}


# --- finalize -----------------------------------------------------------------------------------------


def test_finalize_while_logged_out_asks_the_host_to_log_in(
    site: Callable[..., Customer], page: Page, width: str
) -> None:
    customer = site()
    planner = customer.open("?view=menu")
    before = menu_ids(planner)
    planner.locator("[data-action=finalize]").click()
    idle(planner)
    login = json.loads(page.evaluate("() => sessionStorage.getItem('test-login')"))
    assert login == {"resumeUrl": page.url}
    # The specification's key holds the URL that resumes the finalize flow, exactly (a host's login page may read
    # it); what it waits for is under a key of its own.
    assert customer.local(FINALIZE_KEY) == page.url
    needs = json.loads(customer.local(FINALIZE_NEEDS_KEY) or "{}")
    assert needs["needs"] == "login" and isinstance(needs["at"], int)
    expect(planner.locator("[data-role=message]")).to_contain_text("Connectez-vous")
    # Heard too: the host took the shopper to its login (the focus moved), and the page's status says why.
    expect(planner.locator("[data-role=status]")).to_have_text("Connectez-vous pour ajouter votre menu au panier.")
    assert menu_ids(planner) == before
    assert customer.visits == []


def test_a_login_resumes_the_finalize_at_the_cached_url(
    site: Callable[..., Customer], page: Page, prerender_url: str, host_pages: HostPages
) -> None:
    """After the login the host asked for, a page of the site with the user's credential goes back to the URL
    cached under `cachedFinalizeMenuUrl`, and the current-menu page forgets it."""
    customer = site()
    planner = customer.open("?view=menu")
    planner.locator("[data-action=finalize]").click()
    idle(planner)
    resume_url = customer.local(FINALIZE_KEY)
    assert resume_url == page.url

    user = server_headers(user=f"t-planner-user-{uuid.uuid4().hex}", authless="unused")
    bootstrap = requests.get(f"{prerender_url}/v2/svc-window-bootstrap", headers=user, timeout=10)
    assert bootstrap.status_code == 200, bootstrap.text
    host_pages.pages["/shop/account"] = host_page(prerender_url, bootstrap.text, user)
    with page.expect_navigation(url=resume_url):
        page.goto(f"{host_pages.url}/shop/account")
    expect(page.locator("svc-planner")).to_have_attribute("hydrated", "")
    assert customer.local(FINALIZE_KEY) is None and customer.local(FINALIZE_NEEDS_KEY) is None


def test_finalize_fills_the_cart_and_goes_to_it(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site(user=f"t-planner-user-{uuid.uuid4().hex}")
    planner = customer.open()
    show_menu(page, planner, width)
    selected = planner.locator(".svc-planner__product-check:checked").evaluate_all(
        "(checks) => checks.map((c) => c.dataset.productId)"
    )
    assert selected
    carts: list[list[list[object]]] = []
    names: list[str] = []
    page.expose_function("testCart", lambda cart: carts.append(cart))
    page.expose_function("testEvent", lambda name: names.append(name))
    entries = page.evaluate("() => history.length")
    with page.expect_navigation(url=RETAILER_CART):
        planner.locator("[data-action=finalize]").click()
    assert customer.visits == [RETAILER_CART]
    # The cart's callback had the products before the browser left for the cart.
    cart = {str(pid): int(quantity) for pid, quantity in carts[-1]}  # type: ignore[call-overload]
    assert set(selected) <= set(cart) and all(quantity > 0 for quantity in cart.values())
    assert len(carts) == 1
    assert "planner.finalize" in names
    # The cart took the page's place: Back does not find a planner page like the one sent, with its button to send
    # a menu again (the next one is new). A planner page opened again in the tab says where the menu went, once.
    assert page.evaluate("() => history.length") == entries
    message = customer.open().locator("[data-role=message]")
    expect(message).to_have_text("Votre menu est dans votre panier.")
    page.reload()
    expect(page.locator("svc-planner")).to_have_attribute("hydrated", "")
    expect(message).to_be_hidden()


@pytest.fixture(scope="module")
def staging_prerender_url(coreapi_url: str) -> Iterator[str]:
    """prerender for an environment the seed suppliers have no routing for (coreapi/seed/data/suppliers.json)."""
    app = prerender.create_app(
        {"UPSTREAM_URL": coreapi_url, "LOG_LEVEL": "WARNING", "ENVIRONMENT": "staging", **TEST_BUDGETS}
    )
    with LiveServer(app) as server:
        yield server.url


def test_finalize_without_a_retailer_cart_stays_and_says_so(
    page: Page, host_pages: HostPages, staging_prerender_url: str
) -> None:
    hdrs = server_headers(user=f"t-planner-staging-{uuid.uuid4().hex}", authless="unused")
    fragment = requests.get(
        f"{staging_prerender_url}/v2/planner/current-menu", params={"store_id": STORE}, headers=hdrs, timeout=10
    ).text
    host_pages.pages[HOST_PATH] = host_page(staging_prerender_url, fragment, hdrs)
    page.add_init_script(f"localStorage.setItem({json.dumps(ONBOARDED_KEY)}, 'true')")
    customer = Customer(page, f"{host_pages.url}{HOST_PATH}")
    planner = customer.open()
    assert planner.get_attribute("cart-url") is None
    menu_id = planner.get_attribute("menu-id")
    assert menu_ids(planner)
    planner.locator("[data-action=finalize]").click()
    idle(planner)
    expect(planner.locator("[data-role=message]")).to_have_text("Votre menu est dans votre panier.")
    assert page.url == customer.url
    # The menu went to the basket: the page shows the shopper's next one.
    expect(planner).not_to_have_attribute("menu-id", menu_id or "")


# --- views, onboarding, storage -----------------------------------------------------------------------


def test_the_phone_views_follow_the_url(site: Callable[..., Customer], page: Page) -> None:
    page.set_viewport_size(WIDTHS["phone"])
    customer = site()
    planner = customer.open()
    expect(planner).to_have_class(re.compile("svc-planner--view-recipe"))
    expect(planner.locator(".svc-planner__suggestions")).to_be_visible()
    expect(planner.locator(".svc-planner__menu")).to_be_hidden()
    quick = planner.locator(".svc-quick-menu")
    expect(quick).to_be_visible()
    expect(quick.locator(".svc-quick-menu__slot")).to_have_count(6)

    quick.locator(".svc-quick-menu__see-menu").click()
    expect(planner).to_have_class(re.compile("svc-planner--view-menu"))
    assert page.url.endswith("?view=menu")
    expect(planner.locator(".svc-planner__menu")).to_be_visible()
    expect(planner.locator(".svc-planner__suggestions")).to_be_hidden()
    expect(planner.locator("[data-action=finalize]")).to_be_visible()
    assert_no_axe_violations(page, product(page), what="the phone's menu view")

    # On a phone the menu is another screen: Back returns to the suggestions, in the same page, and Forward to the
    # menu again (as the views' form does without scripts, a GET per view).
    page.evaluate("() => { window.samePage = true; }")
    page.go_back()
    expect(planner).to_have_class(re.compile("svc-planner--view-recipe"))
    expect(planner.locator(".svc-planner__suggestions")).to_be_visible()
    assert page.url == f"{customer.url}?view=recipe" and page.evaluate("() => window.samePage === true")
    page.go_forward()
    expect(planner).to_have_class(re.compile("svc-planner--view-menu"))
    assert page.url.endswith("?view=menu")

    planner.locator("[data-action=see-recipes]").click()
    expect(planner).to_have_class(re.compile("svc-planner--view-recipe"))
    assert page.url.endswith("?view=recipe")
    no_overflow = page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert no_overflow
    assert_no_axe_violations(page, product(page), what="the phone's recipe view")


def test_on_a_wide_screen_a_view_change_adds_no_history_entry(site: Callable[..., Customer], page: Page) -> None:
    """Beside each other on a wide screen, the views are one screen: Back leaves the page, not a view."""
    page.set_viewport_size(WIDTHS["desktop"])
    planner = site(mode="custom").open("?view=menu")
    expect(planner).to_have_attribute("view", "menu")
    entries = page.evaluate("() => history.length")
    planner.locator(".svc-planner__menu-slot-button").first.click()
    expect(planner.locator(".svc-planner__search-input")).to_be_focused()
    expect(planner).to_have_attribute("view", "recipe")
    assert page.evaluate("() => history.length") == entries


def test_the_onboarding_opens_on_the_first_visit_only(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site(first_visit=True)
    customer.open()
    dialog = page.locator("svc-planner-onboarding[open] [role=dialog]")
    expect(dialog).to_be_visible()
    assert_no_axe_violations(page, product(page), what=f"the onboarding on the page ({width})")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert customer.local(ONBOARDED_KEY)

    page.reload()
    expect(page.locator("svc-planner")).to_have_attribute("hydrated", "")
    page.wait_for_timeout(300)
    expect(page.locator("svc-planner-onboarding[open]")).to_have_count(0)
    help_button = page.locator("svc-planner [data-action=help]")
    help_button.click()
    expect(dialog).to_be_visible()
    page.locator("svc-planner-onboarding [data-action=next]").click()
    page.locator("svc-planner-onboarding [data-action=next]").click()
    page.locator("svc-planner-onboarding [data-action=done]").click()
    expect(dialog).to_have_count(0)
    expect(help_button).to_be_focused()


def test_without_local_storage_the_page_says_so(site: Callable[..., Customer], page: Page) -> None:
    page.add_init_script(NO_LOCAL_STORAGE)
    customer = site(first_visit=True)
    planner = customer.open()
    expect(planner.locator("[data-role=storage-required]")).to_be_visible()
    expect(planner.locator(".svc-planner__menu-item").first).to_be_attached()
    assert_no_axe_violations(page, product(page), what="the page without localStorage")


def test_the_page_passes_axe(site: Callable[..., Customer], page: Page, width: str) -> None:
    customer = site()
    customer.open()
    assert_no_axe_violations(page, product(page), what=f"the current-menu page ({width})")

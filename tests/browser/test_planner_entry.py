"""The planner entry in Chromium (GET /v2/planner/entry, components/planner-entry.js and planner-onboarding.js):
the guest stepper, a mode storing the guests and going to the customer's current-menu page, the entry without
localStorage, the onboarding modal (focus trapped and restored, Escape, previous / next, "got it"), and
axe-core on all of it, at 1280px and 375px.

The host page is the customer's: a minimal page on a loopback server of this module, holding the fragment its
server got from the live prerender (a page Playwright answered itself would count as public to Chromium, which
then refuses it the loopback prerender's modules). The current-menu page the modes lead to is the seed
supplier's `local` routing (http://127.0.0.1:8080/planner/current-menu, coreapi/seed/data/suppliers.json),
answered by Playwright: nothing listens there."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import requests
from bs4 import BeautifulSoup, Tag
from flask import Flask, abort
from playwright.sync_api import Browser, Locator, Page, Route, expect

from tests.live import LiveServer

from .axe import assert_no_axe_violations
from .helpers import cover_with_host_widget, reached

CUSTOMER = "http://127.0.0.1:8080"  # baseUrl of the seed routing for ENVIRONMENT "local"
CURRENT_MENU = f"{CUSTOMER}/planner/current-menu"
HOST_PATH = "/shop/home"
RETAILER_TOKEN = "demo-retailer-token"
GUESTS_KEY = "_svc/planner/guests"
ONBOARDED_KEY = "_svc/planner/onboarded"
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 740}}
# The SDK's events, kept in sessionStorage so that they survive the navigation to the current-menu page.
RECORD_EVENTS = """() => window.svc.analytics.eventSent$.subscribe((e) => {
    const events = JSON.parse(sessionStorage.getItem("test-events") || "[]");
    events.push({ name: e.name, props: e.props });
    sessionStorage.setItem("test-events", JSON.stringify(events));
})"""
# The modes' states at each change, kept the same way: {mode: [aria-busy, disabled]}.
RECORD_MODES = """() => {
    const modes = [...document.querySelectorAll(".svc-planner-entry__mode")];
    const state = (m) => [m.dataset.mode, [m.getAttribute("aria-busy") === "true", m.disabled]];
    new MutationObserver(() => {
        const states = JSON.parse(sessionStorage.getItem("test-modes") || "[]");
        states.push(Object.fromEntries(modes.map(state)));
        sessionStorage.setItem("test-modes", JSON.stringify(states));
    }).observe(document.querySelector("svc-planner-entry"),
               { subtree: true, attributes: true, attributeFilter: ["aria-busy", "disabled"] });
}"""
NO_LOCAL_STORAGE = """Object.defineProperty(window, "localStorage", {
    configurable: true,
    get() { throw new DOMException("The operation is insecure.", "SecurityError"); },
});"""


def server_headers(token: str | None = RETAILER_TOKEN) -> dict[str, str]:
    """The headers the customer's server sends for a logged-out visitor."""
    hdrs = {"authless-id": f"t-anon-{uuid.uuid4().hex}", "language-id": "fr", "session-id": "planner-browser"}
    if token:
        hdrs["supplier-token"] = token
    return hdrs


def fragment_html(
    prerender_url: str,
    path: str,
    *,
    token: str | None = RETAILER_TOKEN,
    hdrs: dict[str, str] | None = None,
    **params: str,
) -> str:
    """What the customer's server gets from prerender (for a new visitor, unless `hdrs` name one)."""
    response = requests.get(f"{prerender_url}{path}", params=params, headers=hdrs or server_headers(token), timeout=10)
    assert response.status_code == 200, response.text
    return response.text


def styles_html(prerender_url: str) -> str:
    """The stylesheet links of the page's head: the design system, then the entry's route."""
    return "".join(
        requests.get(f"{prerender_url}/v2/styles{route}", headers=server_headers(), timeout=10).json()["html"]
        for route in ("/base", "/planner/planner-entry")
    )


def host_page(prerender_url: str, fragment: str) -> str:
    return f"""<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accueil de la boutique</title>
{styles_html(prerender_url)}
</head>
<body>
<main>
<h1>Boutique de démonstration</h1>
<section style="max-width: 960px; margin: 0 auto; padding: 16px">{fragment}</section>
</main>
<script type="module">window.svc?.supplier.setup({{ language: "fr" }});</script>
</body>
</html>"""


class HostPages:
    """A loopback server answering the host pages the tests set (path -> HTML)."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        app = Flask(__name__)

        @app.get("/<path:path>")
        def page(path: str) -> str:
            if f"/{path}" not in self.pages:
                abort(404)
            return self.pages[f"/{path}"]

        self.server = LiveServer(app)

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


@dataclass
class Customer:
    """The customer's site: the host page, and the current-menu page (answered by Playwright), whose requests
    are recorded."""

    page: Page
    origin: str
    visits: list[str] = field(default_factory=list)

    @property
    def home(self) -> str:
        return f"{self.origin}{HOST_PATH}"

    def handle(self, route: Route) -> None:
        url = route.request.url
        if url.startswith(CURRENT_MENU):
            self.visits.append(url)
            self.fulfill_current_menu(route)
        else:
            route.fulfill(status=404, content_type="text/plain", body="not found")

    @staticmethod
    def fulfill_current_menu(route: Route) -> None:
        route.fulfill(
            status=200,
            content_type="text/html; charset=utf-8",
            body='<!doctype html><html lang="fr"><head><title>Menu</title></head><body><h1>Menu</h1></body></html>',
        )

    def open(self) -> Locator:
        self.page.goto(self.home)
        entry = self.page.locator("svc-planner-entry")
        expect(entry).to_have_attribute("hydrated", "")
        return entry


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


@pytest.fixture
def site(page: Page, prerender_url: str, host_pages: HostPages) -> Iterator[Callable[..., Customer]]:
    """A customer's page holding the entry fragment (for store 1001 and the retailer, unless told)."""

    def make(*, token: str | None = RETAILER_TOKEN, hdrs: dict[str, str] | None = None, **params: str) -> Customer:
        query = {"store_id": "1001", **params}
        fragment = fragment_html(prerender_url, "/v2/planner/entry", token=token, hdrs=hdrs, **query)
        host_pages.pages[HOST_PATH] = host_page(prerender_url, fragment)
        customer = Customer(page, host_pages.url)
        page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
        return customer

    yield make
    host_pages.pages.clear()


def stepper(entry: Locator) -> tuple[Locator, Locator, Locator]:
    return (
        entry.locator("[data-action=guests-decrease]"),
        entry.locator("[data-role=guests]"),
        entry.locator("[data-action=guests-increase]"),
    )


def local_item(page: Page, key: str) -> str | None:
    return page.evaluate("(key) => localStorage.getItem(key)", key)


# --- the stepper ----------------------------------------------------------------------------------


def test_a_retailers_plural_text_is_announced_in_its_plural(page: Page, site) -> None:
    """A retailer's override may write the guests with a plural argument (README, PRERENDER_I18N_OVERRIDES_DIR): the
    stepper's announcement takes its message for the count, as the server's text does, never the raw argument."""
    entry = site().open()
    decrease, value, _ = stepper(entry)
    entry.evaluate(
        """(entry) => { entry.dataset.guestsOne = entry.dataset.guestsMany =
            "{count, plural, one {# convive} other {# convives}}"; }"""
    )
    decrease.click()
    expect(value).to_have_text("3")
    expect(entry.locator("[data-role=guests-status]")).to_have_text("3 convives")


def test_the_stepper_stays_within_its_bounds(page: Page, site, width: str) -> None:
    entry = site().open()
    decrease, value, increase = stepper(entry)
    expect(value).to_have_text("4")
    expect(entry.get_by_role("group", name="Nombre de personnes")).to_be_visible()
    expect(entry.get_by_role("button", name="Une personne de moins")).to_be_enabled()
    status = entry.locator("[data-role=guests-status]")
    expect(status).to_have_attribute("role", "status")  # announced politely

    decrease.focus()
    for expected in ("3", "2", "1"):
        page.keyboard.press("Enter")  # on the focused "one fewer"
        expect(value).to_have_text(expected)
    # At its bound the button says it is unavailable and keeps the focus: pressing it again changes nothing (it
    # handed the focus to "+", so a shopper holding Enter went back up; a keyboard-only check's finding).
    expect(decrease).to_have_attribute("aria-disabled", "true")
    expect(status).to_have_text("1 personne")
    expect(decrease).to_be_focused()
    page.keyboard.press("Enter")
    expect(value).to_have_text("1")
    expect(decrease).to_be_focused()

    increase.focus()
    for _ in range(13):
        page.keyboard.press("Enter")  # on the focused "+", twice past the bound
    expect(value).to_have_text("12")
    expect(increase).to_have_attribute("aria-disabled", "true")
    expect(decrease).to_have_attribute("aria-disabled", "false")
    expect(increase).to_be_focused()
    expect(status).to_have_text("12 personnes")
    expect(entry).to_have_attribute("guests", "12")


def test_the_stored_guest_count_is_shown(page: Page, site) -> None:
    customer = site()
    customer.open()
    page.evaluate("([key]) => localStorage.setItem(key, '7')", [GUESTS_KEY])
    page.reload()
    entry = page.locator("svc-planner-entry[hydrated]")
    expect(stepper(entry)[1]).to_have_text("7")
    page.evaluate("([key]) => localStorage.setItem(key, '99')", [GUESTS_KEY])  # out of bounds: ignored
    page.reload()
    expect(stepper(page.locator("svc-planner-entry[hydrated]"))[1]).to_have_text("4")


def test_the_shoppers_preferred_guests_start_the_stepper(page: Page, site, prerender_url: str, width: str) -> None:
    """The number of people a shopper saved in its preferences wins over a count an earlier visit stored before it;
    a count the shopper chose since stays (coming back through the entry does not reset its menu), until the
    preference changes."""
    visitor = server_headers()
    fragment = BeautifulSoup(fragment_html(prerender_url, "/v2/planner/entry", hdrs=visitor), "html.parser")
    shopper = fragment.find("svc-shopper")
    assert isinstance(shopper, Tag)
    browser = {"authorization": f"Bearer {shopper['credential']}", "language-id": "fr", "session-id": "planner-browser"}

    def prefer(guests: int) -> Locator:
        """The shopper saves its preference, then opens the customer's page again (its server asks a new fragment)."""
        saved = requests.put(f"{prerender_url}/v2/preferences", json={"guests": guests}, headers=browser, timeout=10)
        assert saved.status_code == 200, saved.text
        customer = site(hdrs=visitor)
        page.goto(customer.home)
        return stepper(page.locator("svc-planner-entry[hydrated]"))[1]

    site(hdrs=visitor).open()
    page.evaluate("([key]) => localStorage.setItem(key, '6')", [GUESTS_KEY])  # a count stored before the preference
    value = prefer(2)
    expect(value).to_have_text("2")
    entry = page.locator("svc-planner-entry[hydrated]")
    stepper(entry)[2].click()  # the shopper chooses another count for this menu
    expect(value).to_have_text("3")
    entry.locator(".svc-planner-entry__mode--selection").click()
    page.wait_for_url(f"{CURRENT_MENU}?mode=selection&store_id=1001")
    page.go_back()
    expect(page.locator("svc-planner-entry[hydrated]")).to_be_visible()
    assert local_item(page, GUESTS_KEY) == "3"
    # Back later: the count chosen under this preference stays; a new preference starts the stepper again.
    page.reload()
    expect(stepper(page.locator("svc-planner-entry[hydrated]"))[1]).to_have_text("3")
    expect(prefer(5)).to_have_text("5")


# --- the modes ------------------------------------------------------------------------------------


def test_a_mode_stores_the_guests_tracks_and_goes_to_the_current_menu_page(page: Page, site, width: str) -> None:
    customer = site()
    entry = customer.open()
    page.evaluate(RECORD_EVENTS)
    page.evaluate(RECORD_MODES)
    _, value, increase = stepper(entry)
    increase.click()
    increase.click()
    expect(value).to_have_text("6")

    entry.locator(".svc-planner-entry__mode--selection").click()
    page.wait_for_url(f"{CURRENT_MENU}?mode=selection&store_id=1001")
    assert customer.visits == [f"{CURRENT_MENU}?mode=selection&store_id=1001"]

    # Back on the customer's page (its origin's storage): what happened while the browser left.
    page.go_back()
    entry = page.locator("svc-planner-entry[hydrated]")
    expect(entry).to_be_visible()
    assert local_item(page, GUESTS_KEY) == "6"  # for the current-menu page
    events = json.loads(page.evaluate("() => sessionStorage.getItem('test-events') || '[]'"))
    assert {"name": "planner.open", "props": {"mode": "selection", "guests": 6}} in events
    # The chosen mode was busy, the other disabled.
    states = json.loads(page.evaluate("() => sessionStorage.getItem('test-modes') || '[]'"))
    assert {"selection": [True, False], "custom": [False, True]} in states  # mode: [aria-busy, disabled]
    # And the entry is usable again (from the back-forward cache or loaded again), with the stored count.
    expect(stepper(entry)[1]).to_have_text("6")
    for mode in ("selection", "custom"):
        expect(entry.locator(f".svc-planner-entry__mode--{mode}")).to_be_enabled()
        expect(entry.locator(f".svc-planner-entry__mode--{mode}")).not_to_have_attribute("aria-busy", "true")


def test_a_mode_goes_to_the_current_menu_page_without_javascript(
    browser: Browser, prerender_url: str, host_pages: HostPages
) -> None:
    """The specification's only entry to the planner works before its module runs, or without it (a no-script
    check's finding: the modes were buttons that did nothing): each mode submits a GET form to its destination."""
    fragment = fragment_html(prerender_url, "/v2/planner/entry", token=RETAILER_TOKEN, store_id="1001")
    host_pages.pages[HOST_PATH] = host_page(prerender_url, fragment)
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        customer = Customer(page, host_pages.url)
        page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
        page.goto(customer.home)
        page.locator(".svc-planner-entry__mode--custom").click()
        page.wait_for_url(f"{CURRENT_MENU}?mode=custom&store_id=1001")
        assert customer.visits == [f"{CURRENT_MENU}?mode=custom&store_id=1001"]
    finally:
        context.close()
        host_pages.pages.clear()


def test_the_custom_mode_from_the_keyboard(page: Page, site) -> None:
    customer = site(store_id="1002")
    entry = customer.open()
    stepper(entry)[0].click()
    entry.locator(".svc-planner-entry__mode--custom").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{CURRENT_MENU}?mode=custom&store_id=1002")
    page.go_back()
    expect(page.locator("svc-planner-entry[hydrated]")).to_be_visible()
    assert local_item(page, GUESTS_KEY) == "3"


def test_without_local_storage_the_entry_says_it_is_needed(page: Page, site, width: str) -> None:
    page.add_init_script(NO_LOCAL_STORAGE)
    customer = site()
    entry = customer.open()
    notice = entry.locator("[data-role=storage-required]")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("stockage local")
    modes = entry.locator(".svc-planner-entry__mode")
    expect(modes).to_have_count(2)
    for index in range(2):
        expect(modes.nth(index)).to_be_disabled()
    modes.first.click(force=True)
    page.wait_for_timeout(200)
    assert customer.visits == [] and page.url == customer.home
    # The rest works: the stepper, the help.
    stepper(entry)[2].click()
    expect(stepper(entry)[1]).to_have_text("5")
    entry.locator("[data-action=help]").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")
    assert_no_axe_violations(page, ["svc-planner-entry"], what=f"the entry without localStorage ({width})")


# --- the onboarding modal -------------------------------------------------------------------------


def focused_inside(page: Page, selector: str) -> bool:
    return page.evaluate("(s) => document.querySelector(s).contains(document.activeElement)", selector)


def test_the_onboarding_modal(page: Page, site, width: str) -> None:
    entry = site().open()
    help_button = entry.locator("[data-action=help]")
    modal = page.locator("svc-planner-onboarding")
    expect(modal).to_be_hidden()
    help_button.click()

    dialog = page.get_by_role("dialog", name="Dites-nous pour combien de personnes")
    expect(dialog).to_be_visible()
    expect(modal).to_have_attribute("open", "")
    expect(help_button).to_have_attribute("aria-expanded", "true")
    assert page.evaluate("() => document.querySelector('svc-planner-onboarding').parentElement === document.body")
    assert page.evaluate("() => document.documentElement.classList.contains('svc-scroll-lock')")
    assert focused_inside(page, "svc-planner-onboarding")

    # Focus is trapped: Tab and Shift+Tab cycle through the close and next buttons (previous is disabled).
    seen = []
    for _ in range(5):
        page.keyboard.press("Tab")
        assert focused_inside(page, ".svc-planner-onboarding__dialog")
        seen.append(page.evaluate("() => document.activeElement.dataset.action"))
    assert seen == ["close", "next", "close", "next", "close"]
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.dataset.action") == "next"

    steps = modal.locator(".svc-planner-onboarding__step")
    dots = modal.locator(".svc-planner-onboarding__dot")
    previous, next_button, done = (modal.locator(f"[data-action={a}]") for a in ("previous", "next", "done"))
    expect(previous).to_be_disabled()
    page.keyboard.press("Enter")  # next, from the keyboard
    expect(steps.nth(1)).to_be_visible()
    expect(steps.nth(0)).to_be_hidden()
    expect(dots.nth(1)).to_have_class(re.compile(r"svc-planner-onboarding__dot--active"))
    expect(dots.nth(1)).to_have_attribute("aria-current", "step")
    expect(dots.nth(0)).not_to_have_attribute("aria-current", "step")
    expect(page.get_by_role("dialog", name="Composez votre menu")).to_be_visible()
    expect(modal.locator("[data-role=step-status]")).to_have_text("Étape 2 sur 3. Composez votre menu")
    expect(previous).to_be_enabled()
    previous.click()
    expect(steps.nth(0)).to_be_visible()
    expect(previous).to_be_disabled()
    expect(next_button).to_be_focused()  # previous went away: focus moved on, not to the page

    page.keyboard.press("Escape")
    expect(modal).to_be_hidden()
    expect(help_button).to_be_focused()
    expect(help_button).to_have_attribute("aria-expanded", "false")
    assert not page.evaluate("() => document.documentElement.classList.contains('svc-scroll-lock')")
    assert local_item(page, ONBOARDED_KEY) is None

    help_button.click()  # opens on the first step again
    expect(steps.nth(0)).to_be_visible()
    next_button.click()
    next_button.click()
    expect(steps.nth(2)).to_be_visible()
    expect(next_button).to_be_hidden()
    expect(done).to_be_visible()
    expect(done).to_be_focused()
    expect(dots.nth(2)).to_have_attribute("aria-current", "step")
    done.click()
    expect(modal).to_be_hidden()
    expect(help_button).to_be_focused()
    assert local_item(page, ONBOARDED_KEY) == "true"


def test_the_close_button_and_the_backdrop_close_the_modal(page: Page, site) -> None:
    entry = site().open()
    help_button = entry.locator("[data-action=help]")
    modal = page.locator("svc-planner-onboarding")
    help_button.click()
    modal.locator(".svc-planner-onboarding__close").click()
    expect(modal).to_be_hidden()
    expect(help_button).to_be_focused()
    help_button.click()
    expect(modal.locator(".svc-planner-onboarding__dialog")).to_be_visible()
    page.mouse.click(5, 5)  # the backdrop, outside the dialog
    expect(modal).to_be_hidden()
    expect(help_button).to_be_focused()
    assert local_item(page, ONBOARDED_KEY) is None


def test_the_modal_is_above_the_host_pages_own_widgets(page: Page, site, width: str) -> None:
    """A host element at the highest z-index right over the modal's buttons covers none of them (the modal is in
    the browser's top layer: sdk/top-layer.js); closed, the host's element takes the clicks again."""
    entry = site().open()
    entry.locator("[data-action=help]").click()
    modal = page.locator("svc-planner-onboarding")
    close, next_button = modal.locator(".svc-planner-onboarding__close"), modal.locator("[data-action=next]")
    expect(next_button).to_be_visible()
    widget = cover_with_host_widget(close)
    cover_with_host_widget(next_button)
    assert reached(close), "the host's widget covers the modal's close button"
    assert reached(next_button), "the host's widget covers the modal's next button"
    close.click()
    expect(modal).to_be_hidden()
    assert reached(widget)


def test_two_entries_on_a_page_each_open_their_own_modal(page: Page, site, prerender_url: str) -> None:
    """A second fragment brings a modal with the same id: the page keeps ids unique."""
    site().open()
    second = fragment_html(prerender_url, "/v2/planner/entry", store_id="1001")
    # A slow network from here on: the entry must not say it is hydrated before its modal's id is unique.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 800, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    page.locator("main section").evaluate("(section, html) => section.insertAdjacentHTML('beforeend', html)", second)
    entries = page.locator("svc-planner-entry[hydrated]")
    expect(entries).to_have_count(2)
    controls = [entries.nth(i).locator("[data-action=help]").get_attribute("aria-controls") for i in range(2)]
    assert controls[0] != controls[1]
    ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map((e) => e.id)")
    assert len(ids) == len(set(ids))
    entries.nth(1).locator("[data-action=help]").click()
    expect(page.locator(f"#{controls[1]}")).to_have_attribute("open", "")
    expect(page.locator(f"#{controls[0]}")).to_be_hidden()
    page.keyboard.press("Escape")
    expect(entries.nth(1).locator("[data-action=help]")).to_be_focused()
    entries.nth(0).locator("[data-action=help]").click()
    expect(page.locator(f"#{controls[0]}")).to_have_attribute("open", "")
    expect(page.locator(f"#{controls[1]}")).to_be_hidden()


# --- accessibility ----------------------------------------------------------------------------------


def test_axe_on_the_entry_and_the_open_modal(page: Page, site, width: str) -> None:
    entry = site().open()
    assert_no_axe_violations(page, ["svc-planner-entry"], what=f"the entry ({width})")
    entry.locator("[data-action=help]").click()
    modal = "svc-planner-onboarding[open]"
    expect(page.locator(modal)).to_be_visible()
    assert_no_axe_violations(page, [modal], what=f"the onboarding modal, first step ({width})")
    page.locator(modal).locator("[data-action=next]").click()
    page.locator(modal).locator("[data-action=next]").click()
    expect(page.locator(modal).locator("[data-action=done]")).to_be_visible()
    assert_no_axe_violations(page, [modal], what=f"the onboarding modal, last step ({width})")


def test_axe_on_the_server_rendered_and_the_unavailable_entry(page: Page, site, prerender_url: str, width: str) -> None:
    """Before the modules run (blocked here), and without a supplier (no destination: disabled modes and a
    notice)."""
    page.route(re.compile(re.escape(prerender_url) + r"/static/.*\.js(\?.*)?$"), lambda route: route.abort())
    customer = site(token=None)
    page.goto(customer.home)
    entry = page.locator("svc-planner-entry")
    expect(entry).to_be_visible()
    expect(entry.locator("[data-role=unavailable]")).to_be_visible()
    expect(entry.locator(".svc-planner-entry__mode").first).to_be_disabled()
    expect(entry.locator(".svc-planner-entry__title")).to_have_text("Planifiez vos repas de la semaine")
    expect(page.locator("svc-planner-onboarding")).to_be_hidden()
    assert customer.visits == []
    assert_no_axe_violations(page, ["svc-planner-entry"], what=f"the unavailable, server-rendered entry ({width})")

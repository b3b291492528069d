"""A retailer's page with its own markup and old scripts around the fragments (the forty-first outside check,
docs/decisions.md): a form of the page around a fragment stays whole (the planner entry's forms for pages without
scripts are in a <noscript>: prerender/templates/planner/entry.html), and what the browser exposes by name from the
page's markup, and built-ins an old library patched, leave the SDK working (prerender/static/sdk/svc.js,
prerender/static/sdk/json.js).

The host pages are the customer's, on a loopback server of this module holding the fragments its server got from
the live prerender (tests/browser/test_planner_entry.py, HostPages)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .helpers import FOCUS_IN_DIALOG, customer_page, hydrated_cards
from .test_planner_entry import CURRENT_MENU, CUSTOMER, Customer, HostPages, fragment_html, server_headers, styles_html
from .test_planner_page import ONBOARDED_KEY
from .test_planner_page import host_page as planner_host_page
from .test_planner_page import server_headers as planner_headers
from .test_several_suppliers import fragment

RETAILER_TOKEN = "demo-retailer-token"
STORE = "1001"
# Prototype.js 1.6's `toJSON` methods (still on some retailers' pages), in short: `JSON.stringify` then writes an
# array as a string and quotes a string twice.
PROTOTYPE_JS = """
Object.defineProperty(Array.prototype, "toJSON", {
  value: function () { return "[" + Array.from(this, (item) => JSON.stringify(item)).join(", ") + "]"; },
  writable: true, configurable: true });
Object.defineProperty(String.prototype, "toJSON", { value: function () { return '"' + this + '"'; },
  writable: true, configurable: true });
"""


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


# No favicon request (the host server has none: its 404 would be a console error).
NO_ICON = '<link rel="icon" href="data:,">'


def new_card(prerender_url: str) -> str:
    """A recipe card as the customer's server gets it for a new user."""
    user = f"host-{uuid.uuid4().hex[:8]}"
    return fragment(prerender_url, "/v1/recipe-card", token=RETAILER_TOKEN, user=user, recipe_id="5", store_id=STORE)


def card_page(host_pages: HostPages, prerender_url: str, path: str, *, before: str = "") -> str:
    """A host page holding a recipe card for a new user, with the page's own markup `before` it."""
    host_pages.pages[path] = customer_page(path, before + new_card(prerender_url), head=NO_ICON, store=STORE)
    return f"{host_pages.url}{path}"


def console_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.mark.parametrize(
    "markup",
    [
        '<div id="svc">Nos services</div>',
        '<form name="svc" action="/search"><input name="q" aria-label="Recherche"></form>',
        '<img name="svc" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">',
        '<iframe name="svc" title="Publicité" src="about:blank"></iframe>',
        '<iframe name="svc" title="Publicité" src="{other_origin}/ad"></iframe>',
        "<script>var svc = null;</script>",
    ],
    ids=["id", "form-name", "img-name", "frame-name", "other-origin-frame", "null"],
)
def test_a_page_element_named_like_the_sdk_does_not_stop_it(
    page: Page, host_pages: HostPages, prerender_url: str, markup: str
) -> None:
    """The browser exposes an element with `id="svc"` (a form, picture or frame named `svc`) as `window.svc`: the
    SDK took that for itself already installed, and the cards never came alive."""
    errors = console_errors(page)
    host_pages.pages["/ad"] = '<!doctype html><html lang="fr"><title>Publicité</title></html>'
    other_origin = host_pages.url.replace("127.0.0.1", "localhost")  # another origin: its window throws when asked
    markup = markup.replace("{other_origin}", other_origin)
    page.goto(card_page(host_pages, prerender_url, f"/named-{uuid.uuid4().hex[:6]}", before=markup))
    expect(hydrated_cards(page)).to_have_count(1)
    assert page.evaluate("() => window.svc.pos.storeId$.value") == STORE
    assert page.evaluate("() => window.svc.user.user$.value.kind") == "user"
    assert errors == []


def test_a_value_the_page_put_in_the_sdks_name_is_left_and_said(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """A script of the page that set `window.svc` itself keeps it: the SDK does not install, and says why."""
    errors = console_errors(page)
    head = f'<meta charset="utf-8"><title>taken</title>{NO_ICON}<script>window.svc = {{ mine: true }};</script>'
    body = f"<main>{new_card(prerender_url)}</main>"
    host_pages.pages["/taken"] = f'<!doctype html><html lang="fr"><head>{head}</head><body>{body}</body></html>'
    page.goto(f"{host_pages.url}/taken")
    page.wait_for_function("() => document.readyState === 'complete'")
    assert page.evaluate("() => window.svc.mine") is True
    assert any("window.svc is already set by a script of the page" in text for text in errors), errors


def test_a_page_with_prototype_js_reports_its_cart_as_json(
    context: BrowserContext, page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """Prototype.js 1.6 gives arrays a `toJSON` that writes them as strings: every basket reconcile was a 400, and
    the basket stopped following the cart. The cart reported goes as JSON, and the service takes it."""
    page.add_init_script(PROTOTYPE_JS)
    page.goto(card_page(host_pages, prerender_url, "/prototype-js"))
    expect(hydrated_cards(page)).to_have_count(1)
    page.wait_for_function("() => window.svc.user.user$.value")
    assert page.evaluate("() => JSON.stringify(['a'])") != '["a"]'  # the page's patch is in place
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")) as answered:
        page.evaluate("() => window.svc.basketSync.retailerBasketChanged([{ id: 'host-product', quantity: 2 }])")
    body = answered.value.request.post_data_json
    assert isinstance(body["cart"], list), body
    assert answered.value.status == 200


# A tracing tag (OpenTelemetry's fetch instrumentation with every origin listed, a RUM tool...) in short: each of
# the page's calls gets the W3C trace headers, and `baggage`.
TRACING_TAG = """
const pageFetch = window.fetch;
window.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers || (input instanceof Request ? input.headers : undefined));
  headers.set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  headers.set("tracestate", "rojo=00f067aa0ba902b7");
  headers.set("baggage", "userId=alice");
  return pageFetch(input, { ...init, headers });
};
"""


def test_a_page_whose_tracing_tag_adds_trace_headers_keeps_its_cards_working(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """Every call of the SDK carried the page's trace headers, which the preflight refused: the likes, the basket
    and its reconcile all failed. The W3C tracing headers are allowed (prerender/__init__.py)."""
    errors = console_errors(page)
    page.add_init_script(TRACING_TAG)
    page.goto(card_page(host_pages, prerender_url, "/tracing-tag"))
    expect(hydrated_cards(page)).to_have_count(1)
    page.wait_for_function("() => window.svc.user.user$.value")
    with page.expect_response(lambda r: r.url.split("?")[0].endswith("/basket/reconcile")) as answered:
        page.evaluate("() => window.svc.basketSync.retailerBasketChanged([{ id: 'host-product', quantity: 1 }])")
    assert answered.value.status == 200
    assert answered.value.request.headers["traceparent"].startswith("00-4bf92f3577b34da6a3ce929d0e0e4736-")
    assert errors == []


def test_a_page_whose_origin_the_service_does_not_allow_is_told_why_its_calls_fail(
    page: Page, prerender_url: str
) -> None:
    """A retailer's domain missing from PRERENDER_CORS_ALLOWED_ORIGINS: the cards read, every drawer failed, and
    the page's console had only the SDK's warning of a network failure (the forty-second outside check). The SDK
    now finds the service there and its answers unreadable, and says so once, as an error naming the setting."""
    html = customer_page("/refused", new_card(prerender_url), head=NO_ICON, store=STORE)
    page.route("http://shop.example/**", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text) if message.type == "error" else None)
    with page.expect_console_message(lambda message: "PRERENDER_CORS_ALLOWED_ORIGINS" in message.text, timeout=20_000):
        page.goto("http://shop.example/refused")  # the cards' basket and likes are asked at once, and refused
        expect(hydrated_cards(page)).to_have_count(1)
    ours = [text for text in said if "PRERENDER_CORS_ALLOWED_ORIGINS" in text]
    assert len(ours) == 1 and "http://shop.example" in ours[0], ours


def test_the_focus_goes_back_to_the_card_the_page_put_in_place_of_the_opener(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """A page that draws its list again while the drawer is open replaces the card that opened it with a copy: the
    focus went to <body> at close, and a keyboard shopper started again from the top of the page."""
    page.goto(card_page(host_pages, prerender_url, "/replaced-opener"))
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    page.wait_for_function(FOCUS_IN_DIALOG)
    page.evaluate(
        "() => { const card = document.querySelector('svc-recipe-card'); card.replaceWith(card.cloneNode(true)); }"
    )
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("() => document.activeElement.classList.contains('svc-recipe-card-cta')")
    assert page.evaluate("() => document.activeElement.closest('svc-recipe-card').isConnected")


def test_an_opener_that_is_no_element_opens_the_drawer_all_the_same(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """A page's script passes what it has as the opener (a jQuery object, a selector): the drawer opens, and the
    focus is given back to nothing of it at close."""
    page.goto(card_page(host_pages, prerender_url, "/odd-opener"))
    expect(hydrated_cards(page)).to_have_count(1)
    dialog = page.get_by_role("dialog")
    for opener in ("{ jquery: '3.7.1', 0: document.body, length: 1 }", "'#my-button'"):
        page.evaluate(f"() => window.svc.recipes.openDetails('5', undefined, {{ opener: {opener} }})")
        expect(dialog).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()


def test_the_planner_entry_inside_the_pages_own_form_leaves_that_form_whole(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """An ASP.NET Web Forms page is one form: the entry's own forms (its modes' way without scripts) were dropped by
    the parser inside it, and their end tag closed the page's form. The page's submit button after the entry then
    belonged to no form, and Enter in a field of the page went to the planner (the entry's button had become the
    page form's first submit button). Now the page's form is whole, Enter sends it, and the modes still work."""
    entry = fragment_html(prerender_url, "/v2/planner/entry", token=RETAILER_TOKEN, store_id=STORE)
    host_pages.pages["/webforms"] = f"""<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Accueil</title>{NO_ICON}{styles_html(prerender_url)}</head>
<body><form id="host-form" method="get" action="/host-search">
<main><h1>Accueil</h1>
<input id="host-query" name="q" aria-label="Rechercher sur le site">
{entry}
<input id="host-mail" name="mail" aria-label="Votre adresse e-mail">
<button id="host-submit" type="submit">Envoyer</button>
</main></form>
<script type="module">window.svc.supplier.setup({{ language: "fr" }});</script>
</body></html>"""
    host_pages.pages["/host-search"] = '<!doctype html><html lang="fr"><title>Recherche</title></html>'
    customer = Customer(page, host_pages.url)
    page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
    page.goto(f"{host_pages.url}/webforms")
    expect(page.locator("svc-planner-entry[hydrated]")).to_be_visible()

    form_of = "(id) => document.getElementById(id).form?.id"
    owners = page.evaluate(f"() => ['host-query', 'host-mail', 'host-submit'].map({form_of})")
    assert owners == ["host-form"] * 3
    assert page.evaluate("() => [...document.querySelectorAll('.svc-planner-entry__mode')].map((b) => b.form)") == [
        None,
        None,
    ]
    page.locator("#host-mail").fill("lea@example.com")
    page.locator("#host-mail").press("Enter")
    page.wait_for_url(re.compile(r"/host-search\?"))
    assert page.url.endswith("/host-search?q=&mail=lea%40example.com")

    page.go_back()
    expect(page.locator("svc-planner-entry[hydrated]")).to_be_visible()
    page.locator(".svc-planner-entry__mode--custom").click()
    page.wait_for_url(f"{CURRENT_MENU}?mode=custom&store_id={STORE}")


def catalog_header_page(prerender_url: str, *, in_form: bool) -> str:
    """The catalog's header (its search) on a host page, inside the page's own form or not."""
    header = fragment_html(prerender_url, "/v2/catalog/header")
    styles = "".join(
        requests.get(f"{prerender_url}/v2/styles{route}", headers=server_headers(), timeout=10).json()["html"]
        for route in ("/base", "/catalog/catalog-home")
    )
    body = f"""<main><h1>Idées recettes</h1>
<input id="host-query" name="q" aria-label="Rechercher sur le site">
{header}
<input id="host-mail" name="mail" aria-label="Votre adresse e-mail">
<button id="host-submit" type="submit">Envoyer</button></main>"""
    if in_form:
        # The page's own check of its form (as a validation library does): no e-mail, no submit.
        check = """<script>document.getElementById("host-form").addEventListener("submit", (event) => {
  const seen = JSON.parse(sessionStorage.getItem("host-submits") || "[]");
  sessionStorage.setItem("host-submits", JSON.stringify([...seen, event.target.id]));
  if (!document.getElementById("host-mail").value) event.preventDefault(); });</script>"""
        body = f'<form id="host-form" method="get" action="/host-search">{body}</form>{check}'
    return f"""<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Idées</title>{NO_ICON}{styles}</head>
<body>{body}<script type="module">window.svc?.supplier.setup({{ language: "fr" }});</script></body></html>"""


def test_the_catalogs_search_inside_the_pages_own_form_searches_and_leaves_that_form_whole(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """The catalog's search was a form: inside a page's form, the parser dropped it (Enter in it sent the page's
    form, with `search`) and its end tag closed the page's form. Where scripts run it is made by the catalog's
    module, nested by script: Enter in it searches the catalog, and the page's form is whole."""
    host_pages.pages["/catalog-in-form"] = catalog_header_page(prerender_url, in_form=True)
    host_pages.pages["/host-search"] = '<!doctype html><html lang="fr"><title>Recherche</title></html>'
    customer = Customer(page, host_pages.url)
    page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
    page.goto(f"{host_pages.url}/catalog-in-form")
    search = page.locator(".svc-catalog__search input[name=search]")
    page.wait_for_function("() => document.querySelector('.svc-catalog__search-input').form !== null")

    form_of = "(id) => document.getElementById(id).form?.id"
    assert page.evaluate(f"() => ['host-query', 'host-mail', 'host-submit'].map({form_of})") == ["host-form"] * 3
    # The preferences panel's form (a dialog's, made by the module) holds its own controls.
    save = page.locator(".svc-preferences [data-action=save]")
    assert save.evaluate("(button) => button.form?.dataset.role") == "preferences-form"
    search.fill("tomate")
    search.press("Enter")
    page.wait_for_url(f"{CUSTOMER}/idees/recherche?search=tomate")

    page.go_back()
    page.locator("#host-mail").fill("lea@example.com")
    page.locator("#host-mail").press("Enter")
    page.wait_for_url(re.compile(r"/host-search\?"))
    assert "search=" not in page.url
    # The page's own check saw its own submit only, never the catalog's search.
    assert json.loads(page.evaluate("() => sessionStorage.getItem('host-submits')")) == ["host-form"]


def test_without_scripts_the_catalogs_search_is_still_a_form(
    browser: Browser, host_pages: HostPages, prerender_url: str
) -> None:
    """Where scripts do not run, the browser reads the <noscript> holder as markup: its form is there, and the
    search field and button it names send it."""
    host_pages.pages["/catalog-no-script"] = catalog_header_page(prerender_url, in_form=False)
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        customer = Customer(page, host_pages.url)
        page.route(re.compile(rf"^{re.escape(CUSTOMER)}/"), customer.handle)
        page.goto(f"{host_pages.url}/catalog-no-script")
        page.locator(".svc-catalog__search input[name=search]").fill("tarte")
        page.locator(".svc-catalog__search-submit").click()
        page.wait_for_url(f"{CUSTOMER}/idees/recherche?search=tarte")
    finally:
        context.close()


def test_the_planner_page_inside_the_pages_own_form_keeps_its_forms_and_the_pages(
    page: Page, host_pages: HostPages, prerender_url: str
) -> None:
    """The planner's page held three forms (its search and filters, its views, its budget): inside a page's form
    the parser dropped them, so a type chip or the search sent the page's form, and the budget could not be saved.
    Where scripts run they are made by the module: the page's form is whole, and each of ours works."""
    hdrs = planner_headers(user=None, authless=f"t-host-{uuid.uuid4().hex}")
    answer = requests.get(
        f"{prerender_url}/v2/planner/current-menu", params={"store_id": STORE}, headers=hdrs, timeout=10
    )
    assert answer.status_code == 200, answer.text
    html = planner_host_page(prerender_url, answer.text, hdrs)
    html = html.replace("<main>", '<form id="host-form" method="get" action="/host-search"><main>', 1)
    html = html.replace(
        "</main>",
        '<input id="host-mail" name="mail" aria-label="E-mail"><button id="host-submit">Envoyer</button></main></form>',
        1,
    )
    host_pages.pages["/planner-in-form"] = html
    host_pages.pages["/host-search"] = '<!doctype html><html lang="fr"><title>Recherche</title></html>'
    page.add_init_script(f"localStorage.setItem({json.dumps(ONBOARDED_KEY)}, 'true')")
    page.goto(f"{host_pages.url}/planner-in-form")
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")

    form_of = "(id) => document.getElementById(id).form?.id"
    assert page.evaluate(f"() => ['host-mail', 'host-submit'].map({form_of})") == ["host-form"] * 2
    roles = "(el) => el.form?.dataset.role"
    assert planner.locator("[data-action=filter][value=dessert]").evaluate(roles) == "catalog-form"
    assert planner.locator(".svc-planner__search-input").evaluate(roles) == "catalog-form"
    assert planner.locator(".svc-planner__budget-input").evaluate(roles) == "budget-form"
    assert planner.locator(".svc-quick-menu__see-menu").evaluate(roles) == "views-form"

    planner.locator("[data-action=filter][value=dessert]").click()
    expect(planner.locator("[data-action=filter][value=dessert]")).to_have_attribute("aria-pressed", "true")
    budget = planner.locator(".svc-planner__budget-input")
    budget.fill("45")
    budget.press("Enter")
    expect(planner.locator("[data-role=budget-gauge]")).to_be_visible()
    # The budget's part was drawn again: its new form is made too.
    assert planner.locator(".svc-planner__budget-input").evaluate(roles) == "budget-form"
    assert page.url.endswith("/planner-in-form")

    page.locator("#host-mail").fill("lea@example.com")
    page.locator("#host-mail").press("Enter")
    page.wait_for_url(re.compile(r"/host-search\?mail="))

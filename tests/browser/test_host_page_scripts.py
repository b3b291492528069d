"""A retailer's page with its own markup and old scripts around the fragments (the forty-first outside check,
docs/decisions.md): what the browser exposes by name from the page's markup, and built-ins an old library patched,
leave the SDK working (prerender/static/sdk/svc.js, prerender/static/sdk/json.js).

The host pages are the customer's, on a loopback server of this module holding the fragments its server got from
the live prerender (tests/browser/test_planner_entry.py, HostPages)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import customer_page, hydrated_cards
from .test_planner_entry import HostPages
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
    ],
    ids=["id", "form-name", "img-name", "frame-name"],
)
def test_a_page_element_named_like_the_sdk_does_not_stop_it(
    page: Page, host_pages: HostPages, prerender_url: str, markup: str
) -> None:
    """The browser exposes an element with `id="svc"` (a form, picture or frame named `svc`) as `window.svc`: the
    SDK took that for itself already installed, and the cards never came alive."""
    errors = console_errors(page)
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

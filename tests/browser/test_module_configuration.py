"""A service with its own element prefix whose modules come from a CDN (PRERENDER_ELEMENT_PREFIX,
PRERENDER_CDN_URL), in Chromium: every module is loaded once, from the CDN, under the configuration segment of
its URL (prerender/rendering/assets.py, sdk/config.js), the modules loaded later (the drawer) too, and the SDK
calls the service's own URL; the older query form of a script tag written by hand still works (docs/sdk.md,
section 1). The CDN is the same live prerender under another origin (`localhost` for `127.0.0.1`), which is what
a pull CDN in front of the service is to the browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import requests
from playwright.sync_api import Page, Request, expect

import prerender
from tests.conftest import closed_port
from tests.live import TEST_BUDGETS, LiveServer, Stack

SHOP = "http://127.0.0.1:8080"  # an origin the seed retailer's routing allows (CORS of the browser routes)
HEADERS = {
    "supplier-token": "demo-retailer-token",
    "authless-id": "module-config-visitor",
    "language-id": "fr",
    "session-id": "module-config-session",
}
SETUP = '<script type="module">window.acme.supplier.setup({ language: "fr" }); window.acme.pos.load("1001");</script>'


@pytest.fixture(scope="module")
def acme(stack: Stack, coreapi_url: str) -> Iterator[tuple[str, str]]:
    """(the service's URL, its CDN's URL): one live prerender, prefix `acme`, named by two origins."""
    port = closed_port()
    api, cdn = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    app = prerender.create_app(
        {
            "UPSTREAM_URL": coreapi_url,
            "LOG_LEVEL": "WARNING",
            "ELEMENT_PREFIX": "acme",
            "PUBLIC_URL": api,
            "CDN_URL": cdn,
            **TEST_BUDGETS,
            **stack.cache_config("acme"),
        }
    )
    with LiveServer(app, port=port):
        yield api, cdn


def serve_page(page: Page, body: str) -> list[Request]:
    """The shop's origin answers `body` as its page; returns the list the page's script requests go to."""
    page.route(f"{SHOP}/", lambda route: route.fulfill(content_type="text/html", body=f"<!doctype html>{body}"))
    scripts: list[Request] = []
    page.on("request", lambda request: scripts.append(request) if request.resource_type == "script" else None)
    return scripts


def test_modules_load_once_under_their_configuration(page: Page, acme: tuple[str, str]) -> None:
    api, cdn = acme
    fragment = requests.get(
        f"{api}/v1/recipe-card", params={"recipe_id": "1", "store_id": "1001"}, headers=HEADERS, timeout=10
    )
    assert fragment.status_code == 200
    scripts = serve_page(page, f"<main>{fragment.text}</main>{SETUP}")
    api_calls: list[str] = []
    page.on("request", lambda request: api_calls.append(request.url) if request.resource_type == "fetch" else None)
    page.goto(f"{SHOP}/")

    card = page.locator("acme-recipe-card[hydrated]")
    expect(card).to_be_visible()
    assert page.evaluate("() => [typeof window.acme, typeof window.svc]") == ["object", "undefined"]
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.locator("acme-drawer[open]").get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__title")).to_be_visible()

    urls = [request.url for request in scripts]
    segment = re.escape(fragment.text.split("/static/", 1)[1].split("/components/", 1)[0])
    under = re.compile(rf"^{re.escape(cdn)}/static/{segment}/(sdk|components)/[a-z-]+\.js$")
    assert [url for url in urls if not under.match(url)] == []
    assert len(urls) == len(set(urls)), urls  # one instance of each module
    assert {url.rsplit("/", 2)[-2] + "/" + url.rsplit("/", 1)[-1] for url in urls} >= {
        "sdk/svc.js",
        "components/ui.js",
        "components/recipe-card.js",
        "components/drawer.js",  # loaded when the drawer first opens, under the same segment
        "components/recipe-details.js",
    }
    assert api_calls and all(url.startswith(f"{api}/") for url in api_calls), api_calls


def test_a_script_tag_written_with_the_older_query_still_configures_the_sdk(page: Page, acme: tuple[str, str]) -> None:
    """A v1 page that loads the SDK itself with `svc.js?prefix=...&api=...` (docs/sdk.md, section 3)."""
    api, cdn = acme
    bootstrap = requests.get(f"{api}/v2/svc-window-bootstrap", headers=HEADERS, timeout=10).text
    shopper = re.search(r"<acme-shopper[^>]*></acme-shopper>", bootstrap)
    build = re.search(r"/static/(\w+)/", bootstrap)
    assert shopper and build
    legacy = f"{cdn}/static/{build[1]}/sdk/svc.js?prefix=acme&api={quote(api, safe='')}"
    scripts = serve_page(page, f'{shopper[0]}<script type="module" src="{legacy}"></script>{SETUP}')
    page.goto(f"{SHOP}/")
    page.wait_for_function("() => typeof window.acme === 'object'")
    page.evaluate("() => window.acme.recipes.openDetails('1')")
    dialog = page.locator("acme-drawer[open]").get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__title")).to_be_visible()
    assert page.evaluate("() => typeof window.svc") == "undefined"
    # The tag's URL, then its redirect's, then the drawer's modules, all under the segment. A browser keys its
    # modules by the URL asked for, so the components' import of svc.js by its segment URL runs it once more:
    # the second run finds window.acme and changes nothing (svc.js is idempotent, docs/sdk.md).
    urls = [request.url for request in scripts]
    assert urls[0] == legacy and all("/~" in url for url in urls[1:]), urls
    assert page.evaluate("() => document.querySelectorAll('acme-drawer').length") == 1

"""Shared steps of the browser tests: a visitor's cookies, the cards of a page, the moment a card is seen, the
shoppers' credentials, the requests the SDK sends and the layout shifts a page reports."""

from __future__ import annotations

import html
import json
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal
from urllib.parse import urljoin

import requests
from bs4 import BeautifulSoup
from playwright.sync_api import BrowserContext, Locator, Page, Request, Route, expect

from bench.shifts import READ_SHIFTS, RECORD_LAYOUT_SHIFTS
from examples.shop.visitor import AUTHLESS_COOKIE, SESSION_COOKIE, STORE_COOKIE, USER_COOKIE
from tests.demo_sites import shop_cookie, shop_id

# Whether the keyboard's focus is inside a dialog (the drawer, the preview, the onboarding), for `page.evaluate`.
FOCUS_IN_DIALOG = "() => !!document.activeElement?.closest('[role=dialog]')"


def visit(
    context: BrowserContext,
    page: Page,
    url: str,
    path: str = "/",
    *,
    store: str | None = "1001",
    user: str | None = None,
    wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load",
) -> None:
    """Open a page of the shop as a visitor at `store`, logged in as `user` when given (returns at `wait_until`,
    as Playwright's goto)."""
    add_visitor_cookies(context, url, store=store, user=user)
    page.goto(f"{url}{path}", wait_until=wait_until)


def add_visitor_cookies(context: BrowserContext, url: str, *, store: str | None = "1001", user: str | None) -> None:
    """The shop's cookies of a visitor at `store`, logged in as `user` when given."""
    cookies = []
    if store:
        cookies.append({"name": STORE_COOKIE, "value": store, "url": url})
    if user:
        cookies.append({"name": USER_COOKIE, "value": shop_cookie(USER_COOKIE, user), "url": url})
    if cookies:
        context.add_cookies(cookies)


def shop_authless_id(context: BrowserContext, shop_url: str) -> str:
    """The authless id the shop gave this browser (its signed cookie's)."""
    cookie = next(c["value"] for c in context.cookies(shop_url) if c["name"] == AUTHLESS_COOKIE)
    authless_id = shop_id(AUTHLESS_COOKIE, cookie)
    assert authless_id, f"the shop's authless cookie is not the shop's: {cookie!r}"
    return authless_id


def new_user() -> str:
    """A user of one test only (coreapi keeps likes and baskets per user for the whole session)."""
    return f"t-{uuid.uuid4().hex[:12]}"


def euros(text: str) -> Decimal:
    """The amount of a French price in a text ("12,50\u00a0€" → 12.50)."""
    return Decimal(re.sub(r"[^0-9,]", "", text).replace(",", "."))


def session_id(context: BrowserContext, url: str) -> str:
    return next(c["value"] for c in context.cookies(url) if c["name"] == SESSION_COOKIE)


def stored_events(coreapi_url: str, context: BrowserContext, shop_url: str) -> list[dict[str, Any]]:
    """The events coreapi stored for the shop's session, read as the shop's supplier (coreapi lists a session's
    events to the supplier they were sent for only)."""
    response = requests.get(
        f"{coreapi_url}/api/v1/events",
        params={"session_id": session_id(context, shop_url)},
        headers={"Supplier-Token": RETAILER_TOKEN},
        timeout=10,
    )
    response.raise_for_status()
    events: list[dict[str, Any]] = response.json()["data"]
    return events


def card_fragment(
    context: BrowserContext,
    shop_url: str,
    prerender_url: str,
    recipe_id: str,
    *,
    variant: int,
    orientation: str,
    user: str | None = None,
    store: str = "1001",
    supplier_token: str = "demo-retailer-token",
) -> str:
    """A fixed recipe's card as prerender serves it to the shop for this visitor (logged in as `user` when
    given, else by the shop's authless id), for innerHTML into a page of the shop."""
    identity = {"authorization": f"user_id {user}"} if user else {"authless-id": shop_authless_id(context, shop_url)}
    params: dict[str, str | int] = {
        "recipe_id": recipe_id,
        "display_variant": variant,
        "orientation": orientation,
        "store_id": store,
    }
    response = requests.get(
        f"{prerender_url}/v1/recipe-card",
        timeout=10,
        params=params,
        headers={
            **identity,
            "language-id": "fr",
            "session-id": session_id(context, shop_url),
            "supplier-token": supplier_token,
        },
    )
    assert response.status_code == 200 and "<svc-recipe-card" in response.text
    return response.text


def record_layout_shifts(page: Page) -> None:
    """From the next page `page` opens on, keep the layout shifts it reports (read them with `layout_shifts`;
    what each holds: bench/shifts.py's RECORD_LAYOUT_SHIFTS)."""
    page.add_init_script(RECORD_LAYOUT_SHIFTS)


def layout_shifts(page: Page) -> list[dict[str, Any]]:
    """The shifts recorded so far, read two animation frames on: a shift is reported after the frame that painted
    it."""
    return page.evaluate(READ_SHIFTS)


# One frame of a page's clock, for tests that run a paused clock a frame at a time.
FRAME_MS = 16


def run_clock_until_shown(page: Page, element: Locator, text: str, *, within_s: float = 5.0) -> None:
    """With the page's clock paused, runs it a frame at a time until `element` shows `text`. What shows the text
    may wait on the network (a module refused, then the frame that draws the message): the answer can come after
    any one `run_for`, and a paused clock runs no frame after it. The page's clock goes no faster than the real
    one here, so a timer of the page cannot fire earlier than it would without the fake clock."""
    deadline = time.monotonic() + within_s
    while not (element.count() and element.text_content() == text):  # not made yet: no wait for it
        assert time.monotonic() < deadline, f"{element} did not show {text!r} within {within_s} s"
        page.clock.run_for(FRAME_MS)
        time.sleep(FRAME_MS / 1000)


def loaded(page: Page, img: Locator) -> None:
    """Returns once the picture has loaded: a wait, since a `src` just set (or a lazy picture just seen) starts a
    fetch that a busy machine may not have finished."""
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())


def hydrated_cards(page: Page) -> Locator:
    return page.locator("svc-recipe-card[hydrated]")


def seen(page: Page, element: Locator) -> None:
    """Returns once the browser has computed that `element` is at least 80 % on screen: an observer made
    after the SDK's is notified in the same update, after it."""
    element.scroll_into_view_if_needed()
    page.evaluate(
        """el => new Promise((resolve) => {
        const io = new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting && e.intersectionRatio >= 0.8)) { io.disconnect(); resolve(); }
        }, { threshold: [0.8] });
        io.observe(el);
      })""",
        element.element_handle(),
    )


def hidden(page: Page, element: Locator) -> None:
    """Scrolls `element` out of the viewport and returns once the browser has computed it."""
    page.evaluate(
        """el => new Promise((resolve) => {
        window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY + 3 * window.innerHeight);
        const io = new IntersectionObserver((entries) => {
          if (entries.some((e) => !e.isIntersecting)) { io.disconnect(); resolve(); }
        });
        io.observe(el);
      })""",
        element.element_handle(),
    )


def record_events(page: Page) -> None:
    """Keeps every event the SDK queues in window.__events (eventSent$)."""
    page.evaluate("window.__events = []; window.svc.analytics.eventSent$.subscribe((e) => window.__events.push(e))")


def shows_of(page: Page, recipe_id: str) -> int:
    return page.evaluate(
        "id => window.__events.filter((e) => e.name === 'recipe.show' && String(e.props.recipe_id) === id).length",
        recipe_id,
    )


# --- shoppers' credentials (docs/security.md) -------------------------------------------------------------

RETAILER_TOKEN = "demo-retailer-token"
# The browser routes: what the SDK calls with the shopper's credential (docs/browser-api.md).
BROWSER_ROUTE = re.compile(r"/v[12]/(basket|likes|events|recipe-details|favorite-items)(/|\?|$)")
# What a browser must never send there: the supplier's secret, and identity claims.
CLAIMS = ("supplier-token", "authless-id")


def shopper_credential(
    prerender_url: str, *, user: str | None = None, authless: str | None = None, token: str = RETAILER_TOKEN
) -> str:
    """The credential prerender issues for a shopper, as a customer's server gets it: the `<svc-shopper>` element
    of the v2 bootstrap asked for with the supplier-token and the shopper (a user, else an authless visitor)."""
    anonymous = authless or f"t-anon-{uuid.uuid4().hex}"
    identity = {"authorization": f"user_id {user}"} if user else {"authless-id": anonymous}
    response = requests.get(
        f"{prerender_url}/v2/svc-window-bootstrap",
        timeout=10,
        headers={**identity, "language-id": "fr", "session-id": "browser-tests", "supplier-token": token},
    )
    assert response.status_code == 200, response.text
    element = BeautifulSoup(response.text, "html.parser").find("svc-shopper")
    assert element is not None, "the bootstrap carries no credential"
    return str(element["credential"])


def basket_of(prerender_url: str, credential: str, store: str = "1001") -> dict[str, Any]:
    """A shopper's basket as prerender answers the browser routes for that credential."""
    response = requests.get(
        f"{prerender_url}/v1/basket",
        params={"store_id": store},
        timeout=10,
        headers={"authorization": f"Bearer {credential}", "language-id": "fr", "session-id": "browser-tests"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def recipes_in(basket: dict[str, Any]) -> list[str]:
    return [str(entry["recipe_id"]) for entry in basket["recipes"]]


def page_credential(page: Page, kind: str | None = None) -> str:
    """The credential of the page's last `<svc-shopper>` element (of that kind when given)."""
    selector = f"svc-shopper[kind='{kind}']" if kind else "svc-shopper"
    return page.locator(selector).last.get_attribute("credential") or ""


@dataclass
class Sent:
    """A request the page sent to a browser route: method, URL, all its headers and body."""

    method: str
    url: str
    headers: dict[str, str]
    body: str | None = None
    beacon_headers: dict[str, str] = field(default_factory=dict)


class BrowserCalls:
    """Records the requests the page sends to prerender's browser routes (CORS preflights left out)."""

    def __init__(self, page: Page, prerender_url: str) -> None:
        self._requests: list[Request] = []
        self._prerender = prerender_url

        def keep(request: Request) -> None:
            ours = request.url.startswith(self._prerender) and BROWSER_ROUTE.search(request.url)
            if ours and request.method != "OPTIONS":
                self._requests.append(request)

        page.on("request", keep)

    def sent(self, since: int = 0) -> list[Sent]:
        calls = []
        for request in self._requests[since:]:
            body = request.post_data
            beacon: dict[str, str] = {}
            if body and request.url.split("?")[0].endswith("/events"):
                try:
                    beacon = {str(k).lower(): str(v) for k, v in (json.loads(body).get("headers") or {}).items()}
                except (ValueError, AttributeError):
                    beacon = {}
            calls.append(Sent(request.method, request.url, request.all_headers(), body, beacon))
        return calls

    def __len__(self) -> int:
        return len(self._requests)


# A retailer's dark page, added to a page under test: the components must stay readable on it.
DARK_HOST = "html, body { background: #111; color: #eee; }"


# The focused control, where the shop's sticky header or a sticky or fixed bar of the service (the catalog list's
# filter bar, the basket preview's footer, the planner's) covers part of it (what is drawn at a point of its box, as
# elementFromPoint tells); null otherwise.
FOCUS_UNDER_A_BAR = """() => {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  const box = active.getBoundingClientRect();
  if (box.height === 0 || box.bottom <= 0 || box.top >= innerHeight) return null;  // not scrolled into view
  const bar = (element) => {
    for (let el = element; el; el = el.parentElement) {
      if (el.contains(active)) return null;
      if (el.matches(".site-header") || ["sticky", "fixed"].includes(getComputedStyle(el).position)) return el;
    }
    return null;
  };
  const x = Math.min(Math.max(box.left + box.width / 2, 0), innerWidth - 1);
  for (const y of [box.top + 1, box.top + box.height / 2, box.bottom - 1]) {
    const drawn = document.elementFromPoint(x, Math.min(Math.max(y, 0), innerHeight - 1));
    const over = drawn && bar(drawn);
    if (over) return `${active.outerHTML.slice(0, 120)} at ${Math.round(box.top)} under ${over.className}`;
  }
  return null;
}"""


def focus_under_bars(page: Page, key: str, *, presses: int) -> list[str]:
    """Presses `key` (Tab, Shift+Tab) `presses` times; each focused control that lands under a bar
    (FOCUS_UNDER_A_BAR), described."""
    hidden = []
    for _ in range(presses):
        page.keyboard.press(key)
        where = page.evaluate(FOCUS_UNDER_A_BAR)
        if where:
            hidden.append(where)
    return hidden


def cover_with_host_widget(target: Locator) -> Locator:
    """Puts a host page's own element at the highest z-index (a chat widget, a cookie banner) right over `target`,
    and returns it."""
    target.evaluate(
        """(element) => {
            const box = element.getBoundingClientRect();
            const widget = document.createElement("div");
            widget.className = "host-widget";
            widget.style.cssText = `position: fixed; left: ${box.left - 8}px; top: ${box.top - 8}px;
              width: ${box.width + 16}px; height: ${box.height + 16}px; z-index: 2147483647; background: #c00;`;
            document.body.append(widget);
        }"""
    )
    return target.page.locator(".host-widget").last


def reached(target: Locator) -> bool:
    """Whether the shopper's pointer at the centre of `target` meets it (what is above it on the screen would take
    the click), whether or not `target` takes clicks itself (the toaster does not)."""
    return bool(
        target.evaluate(
            """(element) => {
                const own = element.style.pointerEvents;
                element.style.pointerEvents = "auto";
                const box = element.getBoundingClientRect();
                const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
                element.style.pointerEvents = own;
                return hit !== null && element.contains(hit);
            }"""
        )
    )


def record_policy_violations(page: Page) -> None:
    """From the next page on, `page` records every Content-Security-Policy violation (`policy_violations`)."""
    page.add_init_script(
        "window.violations = [];"
        "document.addEventListener('securitypolicyviolation', (e) =>"
        " window.violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`));"
    )


def policy_violations(page: Page) -> list[str]:
    """The violations the page reported since `record_policy_violations`: directive, blocked URI, sample."""
    return list(page.evaluate("window.violations"))


@contextmanager
def origin_served_by(
    page: Page, origin: str, server_url: str, *, page_headers: dict[str, str] | None = None
) -> Iterator[str]:
    """Every request of `page` for `origin` (a customer site the seed routing names, such as the shop's
    http://127.0.0.1:8080) answered by the test's server on `server_url` (cookies are per host, not per port:
    the server's cookies hold). Redirects become a page that asks for the target, so it is routed too.
    `page_headers` are added to the site's pages (documents), such as a retailer's Content-Security-Policy."""

    def forward(route: Route) -> None:
        response = route.fetch(url=route.request.url.replace(origin, server_url, 1), max_redirects=0)
        location = response.headers.get("location")
        if 300 <= response.status < 400 and location:
            # Chromium follows a fulfilled redirect without routing the next request: the page asks for it.
            target = html.escape(urljoin(route.request.url, location))
            body = f'<!doctype html><meta http-equiv="refresh" content="0;url={target}"><title>…</title>'
            cookies = {"set-cookie": response.headers["set-cookie"]} if "set-cookie" in response.headers else {}
            route.fulfill(status=200, content_type="text/html", body=body, headers=cookies)
            return
        if page_headers and route.request.resource_type == "document":
            route.fulfill(response=response, headers={**response.headers, **page_headers})
            return
        route.fulfill(response=response)

    pattern = re.compile(rf"^{re.escape(origin)}/")
    page.route(pattern, forward)
    try:
        yield origin
    finally:
        # A request still being forwarded when the test ends (a page reloading, a beacon) is dropped: its late
        # fulfill would fail the teardown with "Route is already handled". The page closes right after.
        page.unroute_all(behavior="ignoreErrors")


@dataclass
class PostsAppliedThenLost:
    """A Playwright route handler: each POST reaches the service (applied, or answered as applied to the same key
    again) and loses its answer; `keys` are the tries' idempotency keys. Other methods pass."""

    keys: list[str | None] = field(default_factory=list)

    def __call__(self, route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        self.keys.append(route.request.headers.get("idempotency-key"))
        route.fetch()
        route.abort("connectionreset")

    def one_write_tried_again(self) -> bool:
        """Tried more than once, always with the same key."""
        return len(self.keys) > 1 and len(set(self.keys)) == 1 and self.keys[0] is not None


def expect_refused(field: Locator, error: Locator, text: str) -> None:
    """A field refused in the page's own words: `text` under it (`error`), the field marked invalid, described by
    that sentence and focused (not the browser's validation bubble)."""
    expect(error).to_be_visible()
    expect(error).to_have_text(text)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(text)
    expect(field).to_be_focused()


def customer_page(title: str, body: str, *, head: str = "", store: str = "1001") -> str:
    """A customer's page around the fragments its server got from prerender (`body`, and its stylesheets' links in
    `head`), set up as README.md shows: the page's language and its store."""
    return f"""<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{head}
</head>
<body>
<main>
<h1>{title}</h1>
{body}
</main>
<script type="module">
window.svc.supplier.setup({{ language: "fr" }});
window.svc.pos.load("{store}");
</script>
</body>
</html>"""

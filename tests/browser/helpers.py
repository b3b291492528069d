"""Shared steps of the browser tests: a visitor's cookies, the cards of a page, the moment a card is seen."""

from __future__ import annotations

import uuid

import requests
from playwright.sync_api import BrowserContext, Locator, Page

from examples.shop.visitor import AUTHLESS_COOKIE, SESSION_COOKIE, STORE_COOKIE, USER_COOKIE


def visit(
    context: BrowserContext,
    page: Page,
    url: str,
    path: str = "/",
    *,
    store: str | None = "1001",
    user: str | None = None,
) -> None:
    """Open a page of the shop as a visitor at `store`, logged in as `user` when given."""
    cookies = []
    if store:
        cookies.append({"name": STORE_COOKIE, "value": store, "url": url})
    if user:
        cookies.append({"name": USER_COOKIE, "value": user, "url": url})
    if cookies:
        context.add_cookies(cookies)
    page.goto(f"{url}{path}")


def new_user() -> str:
    """A user of one test only (coreapi keeps likes and baskets per user for the whole session)."""
    return f"t-{uuid.uuid4().hex[:12]}"


def session_id(context: BrowserContext, url: str) -> str:
    return next(c["value"] for c in context.cookies(url) if c["name"] == SESSION_COOKIE)


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
    identity = (
        {"authorization": f"user_id {user}"}
        if user
        else {"authless-id": next(c["value"] for c in context.cookies(shop_url) if c["name"] == AUTHLESS_COOKIE)}
    )
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

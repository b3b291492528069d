"""The browser acts only for the shopper its page's server vouched for (docs/security.md, docs/sdk.md): the SDK
takes the credential of the `<svc-shopper>` elements the page's fragments carry, sends it as `Authorization:
Bearer` on the browser routes, and never the supplier token nor an identity claim. Against the real stack:
the demo shop's pages get their credentials from prerender, which checks them on every browser route."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, expect

from examples.shop.visitor import USER_COOKIE
from tests.demo_sites import shop_cookie

from .helpers import (
    CLAIMS,
    RETAILER_TOKEN,
    BrowserCalls,
    Sent,
    basket_of,
    card_fragment,
    hydrated_cards,
    new_user,
    page_credential,
    recipes_in,
    shop_authless_id,
    shopper_credential,
    visit,
)

INTERNAL = "window.svc[Symbol.for('prerender.sdk.internal')]"
USER = "() => window.svc.user.user$.value"
CREDENTIAL_TEXT = re.compile("session a expiré")
SIGN_IN_TEXT = re.compile("Connectez-vous")


def warnings_of(page: Page) -> list[str]:
    warnings: list[str] = []

    def keep(message: ConsoleMessage) -> None:
        if message.type == "warning":
            warnings.append(message.text)

    page.on("console", keep)
    return warnings


def insert_shopper(page: Page, credential: str, kind: str, shopper_id: str, expires_at: int | None = None) -> None:
    """A credential element appended to the body, valid for an hour by its expires-at unless given."""
    page.evaluate(
        """([credential, kind, id, expires]) => {
        const element = document.createElement("svc-shopper");
        element.hidden = true;
        Object.entries({ credential, kind, "shopper-id": id, "expires-at": expires })
          .forEach(([name, value]) => element.setAttribute(name, String(value)));
        document.body.append(element);
    }""",
        [credential, kind, shopper_id, expires_at or int(time.time()) + 3600],
    )


def route_of(call: Sent) -> str:
    return re.sub(r"^.*/v[12]/", "/", call.url.split("?")[0])


def add_first_card_to_basket(page: Page) -> str:
    """ "Add all" of the first card's recipe in the drawer; the recipe id once the card shows it in the basket."""
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id") or ""
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    dialog.locator(".svc-recipe-details__add-all").click()
    expect(card).to_have_attribute("in-basket", "true")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    return recipe_id


# --- (a) Bearer only ----------------------------------------------------------------------------------


def test_every_browser_call_carries_the_pages_credential_and_never_the_supplier_token_or_a_claim(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    user = new_user()
    calls = BrowserCalls(page, prerender_url)
    visit(context, page, shop_url, user=user)
    card = hydrated_cards(page).first
    recipe_id = card.get_attribute("recipe-id")
    credential = page_credential(page)
    assert credential and page_credential(page, "user") == credential
    expect(page.locator("svc-shopper").first).to_be_hidden()
    assert page.evaluate(USER) == {"kind": "user", "id": user, "forbidProfiling": False}

    with page.expect_response(lambda r: f"/likes/{recipe_id}" in r.url and r.request.method == "PUT") as liked:
        card.locator(".svc-like-button").click()
    assert liked.value.status == 204
    add_first_card_to_basket(page)
    with page.expect_response(lambda r: r.url.endswith("/v1/events") and r.request.method == "POST") as stored:
        page.evaluate("window.svc.analytics.pageview('/credential-test'); window.svc.analytics.flush()")
    assert stored.value.status == 202
    plain = re.compile(r"^text/plain")
    with page.expect_request(lambda r: r.url.endswith("/v1/events") and plain.match(r.headers.get("content-type", ""))):
        page.evaluate(f"window.svc.analytics.pageview('/beacon-test'); {INTERNAL}.analytics.beacon()")

    # forbidProfiling of the page's own user: recorded, sent as `profiling: false` (the basket is loaded again).
    before = len(calls)
    page.evaluate(f"window.svc.user.loadWithExternalId({user!r}, true)")
    page.wait_for_function("() => window.svc.user.user$.value.forbidProfiling === true")
    with page.expect_response(lambda r: "/v1/basket?" in r.url and r.request.method == "GET") as reloaded:
        page.evaluate("window.svc.basket.reload()")
    assert reloaded.value.status == 200

    sent = calls.sent()
    routes = {route_of(call) for call in sent}
    assert {"/basket", "/basket/recipes", f"/likes/{recipe_id}", "/recipe-details", "/events"} <= routes, routes
    beacons = [call for call in sent if call.beacon_headers]
    assert beacons, "no beacon was recorded"
    for call in sent:
        where = f"{call.method} {call.url}"
        if call.beacon_headers:  # sendBeacon cannot set headers: they are in the body
            assert call.beacon_headers.get("authorization") == f"Bearer {credential}", where
            assert not set(CLAIMS) & set(call.beacon_headers), where
            continue
        assert call.headers.get("authorization") == f"Bearer {credential}", where
        assert not set(CLAIMS) & set(call.headers), where
        assert "user_id" not in call.headers.get("authorization", ""), where
        assert RETAILER_TOKEN not in " ".join(call.headers.values()) + (call.body or ""), where
    reloads = [call for call in sent[before:] if route_of(call) == "/basket" and call.method == "GET"]
    assert reloads and all(call.headers.get("profiling") == "false" for call in reloads)


# --- (b) a credential that arrives later --------------------------------------------------------------


def test_a_credential_element_inserted_with_innerhtml_is_taken_and_the_last_valid_one_wins(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    calls = BrowserCalls(page, prerender_url)
    visit(context, page, shop_url, "/injection")  # logged out: the page's credential is the authless visitor's
    authless_id = shop_authless_id(context, shop_url)
    page.wait_for_function(f"() => window.svc.user.user$.value?.id === {authless_id!r}")
    assert page.evaluate(USER)["kind"] == "authless"

    # A fragment of another shopper (a login in a single-page app): its card and its credential element.
    user = new_user()
    html = card_fragment(context, shop_url, prerender_url, "57", variant=1, orientation="vertical", user=user)
    assert "<svc-shopper" in html
    page.locator("[data-injection-slot]").evaluate("(slot, html) => { slot.innerHTML = html; }", html)
    page.wait_for_function(f"() => window.svc.user.user$.value?.id === {user!r}")
    assert page.evaluate(USER) == {"kind": "user", "id": user, "forbidProfiling": False}
    element = page.locator("[data-injection-slot] svc-shopper")
    expect(element).to_be_hidden()
    expect(element).to_have_attribute("inert", "")
    credential = element.get_attribute("credential")

    # The basket the new shopper's credential brought may still be loading (the SDK loads it on the change of
    # shopper): every load from here on, that one and the reload asked for, carries the new credential alone.
    since = len(calls)
    with page.expect_response(lambda r: "/v1/basket?" in r.url and r.request.method == "GET") as loaded:
        page.evaluate("window.svc.basket.reload()")
    assert loaded.value.status in (200, 304)
    loads = [c.headers.get("authorization") for c in calls.sent(since) if route_of(c) == "/basket"]
    assert loads and set(loads) == {f"Bearer {credential}"}

    # A malformed element is ignored (with a warning); one whose expires-at has passed by the device's clock is not
    # judged here (the service decides, and answers 401): the most recently connected valid element wins.
    warnings = warnings_of(page)
    page.evaluate("""() => document.body.insertAdjacentHTML(
        "beforeend", '<svc-shopper hidden kind="user" shopper-id="x"></svc-shopper>')""")
    assert page.evaluate(USER)["id"] == user
    assert sum("svc-shopper element was ignored" in text for text in warnings) == 1

    # The most recently connected valid element wins: another visitor's, even with an expires-at past by the
    # device's clock (a device ahead of time would see every fresh one so).
    other = shopper_credential(prerender_url, authless="t-anon-other-visitor")
    insert_shopper(page, other, "authless", "t-anon-other-visitor", int(time.time()) - 60)
    assert page.evaluate(USER) == {"kind": "authless", "id": "t-anon-other-visitor", "forbidProfiling": False}

    # The first visitor's again (the same credential for ten minutes: a logout that keeps the visitor's id) too.
    authless = shopper_credential(prerender_url, authless=authless_id)
    insert_shopper(page, authless, "authless", authless_id)
    assert page.evaluate(USER) == {"kind": "authless", "id": authless_id, "forbidProfiling": False}

    # But not the user's, whose credential another shopper's replaced on the page (a view of before a logout,
    # restored by a single-page app's router), until the page names that user again (a login again).
    warnings = warnings_of(page)
    insert_shopper(page, credential or "", "user", user)
    assert page.evaluate(USER)["id"] == authless_id
    page.evaluate(f"() => window.svc.user.loadWithExternalId({user!r})")
    assert page.evaluate(USER) == {"kind": "user", "id": user, "forbidProfiling": False}
    assert sum(f'loadWithExternalId("{user}")' in text for text in warnings) == 1  # the ignored one, said


@pytest.mark.parametrize("hours", [24, -72])
def test_a_device_whose_clock_is_off_by_days_still_acts_for_its_shopper(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str, hours: int
):
    """A fresh credential looks expired to a device a day ahead (an AM/PM slip, a clock never set): the SDK takes
    it all the same (the service judges a credential's time on every call), and the drawer works."""
    warnings = warnings_of(page)
    page.clock.set_system_time(datetime.now(UTC) + timedelta(hours=hours))
    user = new_user()
    visit(context, page, shop_url, user=user)
    page.wait_for_function(f"() => window.svc.user.user$.value?.id === {user!r}")
    recipe_id = add_first_card_to_basket(page)
    assert recipe_id in recipes_in(basket_of(prerender_url, page_credential(page, "user")))
    assert not [text for text in warnings if "svc-shopper element was ignored" in text]


def test_another_users_credential_without_a_reload_shows_that_users_hearts(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    """A single-page app's login as another user: the hearts the page shows say what that user likes, not what
    the previous one did (sdk/likes.js asks again; components/ui.js shows a heart unknown meanwhile unpressed)."""
    first_user, next_user = new_user(), new_user()
    visit(context, page, shop_url, user=first_user)
    cards = hydrated_cards(page)
    liked_before, liked_next = (cards.nth(index) for index in (0, 1))
    with page.expect_response(lambda r: "/likes/" in r.url and r.request.method == "PUT") as liked:
        liked_before.locator(".svc-like-button").click()
    assert liked.value.status == 204
    expect(liked_before.locator(".svc-like-button")).to_have_attribute("aria-pressed", "true")
    next_credential = shopper_credential(prerender_url, user=next_user)
    recipe_id = liked_next.get_attribute("recipe-id")
    stored = requests.put(
        f"{prerender_url}/v1/likes/{recipe_id}",
        headers={"authorization": f"Bearer {next_credential}", "language-id": "fr", "session-id": "hearts"},
        timeout=10,
    )
    assert stored.status_code == 204

    insert_shopper(page, next_credential, "user", next_user)
    page.wait_for_function(f"() => window.svc.user.user$.value?.id === {next_user!r}")
    expect(liked_next.locator(".svc-like-button")).to_have_attribute("aria-pressed", "true")
    expect(liked_before.locator(".svc-like-button")).to_have_attribute("aria-pressed", "false")


# --- (c) a claim changes nothing ----------------------------------------------------------------------


def test_load_with_another_id_does_not_change_whose_basket_is_used(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    user, other = new_user(), new_user()
    warnings = warnings_of(page)
    visit(context, page, shop_url, user=user)
    expect(hydrated_cards(page).first).to_be_visible()
    page.evaluate(f"window.svc.user.loadWithExternalId({other!r})")
    page.evaluate("window.svc.user.loadWithAuthlessId('anon-claimed')")
    assert page.evaluate(USER) == {"kind": "user", "id": user, "forbidProfiling": False}
    mismatches = [text for text in warnings if "does not match the identity the page's server vouched for" in text]
    assert len(mismatches) == 2, warnings

    recipe_id = add_first_card_to_basket(page)
    assert recipe_id in recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=user)))
    assert recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=other))) == []


# --- (d) logout ---------------------------------------------------------------------------------------


def test_after_reset_the_sdk_has_no_identity_and_sends_no_authorization(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    calls = BrowserCalls(page, prerender_url)
    visit(context, page, shop_url, user=new_user())
    card = hydrated_cards(page).first
    add_first_card_to_basket(page)
    page.evaluate("() => window.svc.user.reset()")
    assert page.evaluate(USER) is None
    page.wait_for_function("() => window.svc.basket.basket$.value?.recipe_count === 0")  # the user's basket is gone
    expect(card).to_have_attribute("in-basket", "false")
    since = len(calls)

    # The basket is empty without a credential: nothing is asked.
    page.evaluate("() => window.svc.basket.reload()")
    # The page's old element, connected again, is not taken back.
    page.evaluate("() => document.body.append(document.querySelector('svc-shopper'))")
    assert page.evaluate(USER) is None

    # The drawer still asks for the details (for 7 guests: not an answer the browser's cache holds), without
    # authorization: the service refuses, the drawer says why.
    recipe_id = card.get_attribute("recipe-id")
    with page.expect_response(lambda r: "/recipe-details?" in r.url) as details:
        page.evaluate("(id) => window.svc.recipes.openDetails(id, 7).catch(() => {})", recipe_id)
    assert details.value.status == 401  # no credential and nothing of a server's (docs/security.md)
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-drawer__error")).to_have_text(CREDENTIAL_TEXT)
    expect(dialog.locator("[data-action=retry]")).to_have_count(0)
    page.keyboard.press("Escape")

    # A like needs a logged-in user's credential: the shopper is asked to sign in, nothing is sent.
    card.locator(".svc-like-button").click()
    expect(page.locator("[data-svc-toaster]")).to_have_text(SIGN_IN_TEXT)  # no drawer open: the toaster

    # Events wait for a credential.
    page.evaluate("() => { window.svc.analytics.pageview('/after-logout'); return window.svc.analytics.flush(); }")
    page.wait_for_timeout(300)

    sent = calls.sent(since)
    assert [route_of(call) for call in sent] == ["/recipe-details"]
    for call in sent:
        assert "authorization" not in call.headers and not set(CLAIMS) & set(call.headers)


# --- (e) the merge at login ---------------------------------------------------------------------------


def test_merge_authless_proves_the_logged_out_visitor_with_the_remembered_credential(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    visit(context, page, shop_url)  # logged out
    authless_id = shop_authless_id(context, shop_url)
    authless_credential = page_credential(page, "authless")
    recipe_id = add_first_card_to_basket(page)
    remembered = page.evaluate("() => JSON.parse(localStorage.getItem('_svc/supplier-1/authless-credential'))")
    assert remembered["id"] == authless_id and remembered["credential"] == authless_credential
    assert remembered["expiresAt"] > time.time()

    # Logged in (the shop's cookie; its own login would merge server-side): the page brings the user's credential.
    user = new_user()
    context.add_cookies([{"name": USER_COOKIE, "value": shop_cookie(USER_COOKIE, user), "url": shop_url}])
    calls = BrowserCalls(page, prerender_url)
    page.goto(f"{shop_url}/")
    page.wait_for_function(f"() => window.svc.user.user$.value?.id === {user!r}")
    user_credential = page_credential(page, "user")

    unknown = page.evaluate(
        "() => window.svc.basket.mergeAuthless('anon-never-seen').then(() => null, (e) => e.problem?.type ?? String(e))"
    )
    assert unknown.endswith("#no-authless-credential")
    assert not [call for call in calls.sent() if "merge-authless-basket" in call.url]  # nothing sent without proof

    merged = page.evaluate(
        "async (id) => (await window.svc.basket.mergeAuthless(id)).basket.recipes.map((e) => String(e.recipe_id))",
        authless_id,
    )
    assert recipe_id in merged
    [merge] = [call for call in calls.sent() if "merge-authless-basket" in call.url]
    assert merge.headers["authorization"] == f"Bearer {user_credential}"
    assert merge.headers["authless-credential"] == authless_credential
    assert not set(CLAIMS) & set(merge.headers)
    assert recipe_id in recipes_in(basket_of(prerender_url, shopper_credential(prerender_url, user=user)))
    expect(page.locator(f"svc-recipe-card[recipe-id='{recipe_id}']").first).to_have_attribute("in-basket", "true")


# --- 401 on a user action -----------------------------------------------------------------------------


def test_a_refused_credential_tells_the_shopper_to_reload_or_sign_in_again(
    page: Page, context: BrowserContext, shop_url: str
):
    user = new_user()
    visit(context, page, shop_url, user=user)
    card = hydrated_cards(page).first
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details__add-all")).to_be_visible()

    # The credential went bad while the page stayed open (a key rotated away, an altered token): a newer element
    # of the same shopper (a later expires-at) with a credential the service does not accept.
    forged = page_credential(page)[:-6] + ("AAAAAA" if not page_credential(page).endswith("AAAAAA") else "BBBBBB")
    expires_at = int(page.locator("svc-shopper[kind='user']").last.get_attribute("expires-at") or 0)
    insert_shopper(page, forged, "user", user, expires_at + 600)
    with page.expect_response(lambda r: r.url.endswith("/v1/basket/recipes") and r.request.method == "POST") as refused:
        dialog.locator(".svc-recipe-details__add-all").click()
    assert refused.value.status == 401
    expect(dialog.locator(".svc-drawer__message--error")).to_have_text(CREDENTIAL_TEXT)
    expect(card).to_have_attribute("in-basket", "false")
    page.keyboard.press("Escape")

    heart = card.locator(".svc-like-button")
    with page.expect_response(lambda r: "/likes/" in r.url and r.request.method == "PUT") as like:
        heart.click()
    assert like.value.status == 401
    expect(page.locator("[data-svc-toaster]")).to_have_text(CREDENTIAL_TEXT)  # no drawer open: the toaster
    expect(heart).to_have_attribute("aria-pressed", "false")  # rolled back

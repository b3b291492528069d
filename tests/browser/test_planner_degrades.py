"""The planner's current-menu page when the upstream fails as the customer's server asks for it (issue 22): the
fragment is the try-again state, and in Chromium the page's module asks prerender again by itself (after 2, 4,
8 and 16 s: Playwright's clock moves time, no test waits for it) and puts the real page in its place once the
upstream answers; after its last try it stays on the message with its button, which asks again at once. axe-core
finds no violation in the try-again state at 1280px and 375px.

Here prerender's upstream is a proxy in front of the live coreapi that fails the menu's calls until the test
clears its faults (tests/faulty_upstream.py); the host page is the customer's, on a loopback server
(tests/browser/test_planner_page.py)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import requests
from playwright.sync_api import Locator, Page, Request, expect

import prerender
from prerender.rendering.i18n import TextCatalog
from tests.faulty_upstream import MENUS, FaultyUpstream, status
from tests.live import TEST_BUDGETS, LiveServer, Stack

from .axe import assert_no_axe_violations
from .test_planner_entry import WIDTHS, HostPages
from .test_planner_page import HOST_PATH, ONBOARDED_KEY, STORE, host_page, product, server_headers

# The module's automatic tries (components/planner.js, RETRY_DELAYS_MS).
RETRY_DELAYS_MS = [2000, 4000, 8000, 16000]
FR = TextCatalog(overrides_dir=None).translator("fr")


@pytest.fixture(scope="module")
def host_pages() -> Iterator[HostPages]:
    pages = HostPages()
    with pages.server:
        yield pages


@dataclass
class DegradedPrerender:
    """A live prerender whose upstream is the faulty proxy."""

    url: str
    upstream: FaultyUpstream


@pytest.fixture(scope="module")
def degraded(stack: Stack, coreapi_url: str) -> Iterator[DegradedPrerender]:
    with FaultyUpstream(coreapi_url) as upstream:
        # Its circuit breaker never opens: the browser's clock is Playwright's, the breaker's cooldown real time
        # (the breaker's own tests: tests/unit/test_gateway.py).
        config = {"UPSTREAM_URL": upstream.url, "LOG_LEVEL": "ERROR", "UPSTREAM_BREAKER_MINIMUM_CALLS": 10_000}
        app = prerender.create_app({**config, **TEST_BUDGETS, **stack.cache_config("degrades")})
        with LiveServer(app) as server:
            yield DegradedPrerender(server.url, upstream)


@dataclass
class Site:
    """The customer's page holding the try-again fragment, and the page's calls to prerender's page route."""

    page: Page
    prerender_url: str
    tries: list[str] = field(default_factory=list)

    def record(self, request: Request) -> None:
        if request.url.startswith(f"{self.prerender_url}/v2/planner/current-menu"):
            self.tries.append(request.url)

    def next_try(self, advance_ms: int) -> None:
        """Moves the page's clock by `advance_ms`: the module's next try goes out, its answer comes back and the
        module is done with it (`busy` leaves the root: the next try is scheduled, or the page replaced)."""
        with self.page.expect_response(lambda r: r.url.startswith(f"{self.prerender_url}/v2/planner/current-menu")):
            self.page.clock.run_for(advance_ms)
        expect(self.page.locator("svc-planner")).not_to_have_attribute("busy", "")


@pytest.fixture
def failing_site(page: Page, degraded: DegradedPrerender, host_pages: HostPages) -> Iterator[Site]:
    """The customer's page, its server having asked prerender while the menu's calls failed; onboarding seen."""
    degraded.upstream.faults[MENUS] = status(503)
    hdrs = server_headers(user=None, authless=f"t-degrades-{uuid.uuid4().hex}")
    response = requests.get(
        f"{degraded.url}/v2/planner/current-menu", params={"store_id": STORE}, headers=hdrs, timeout=10
    )
    assert response.status_code == 200 and response.headers["X-Degraded"] == "upstream", response.text
    host_pages.pages[HOST_PATH] = host_page(degraded.url, response.text, hdrs)
    page.add_init_script(f"localStorage.setItem({json.dumps(ONBOARDED_KEY)}, 'true')")
    page.clock.install()
    site = Site(page, degraded.url)
    page.on("request", site.record)
    page.goto(f"{host_pages.url}{HOST_PATH}")
    yield site
    degraded.upstream.faults.clear()
    host_pages.pages.clear()


def try_again_state(page: Page) -> Locator:
    planner = page.locator("svc-planner")
    expect(planner).to_have_attribute("hydrated", "")
    expect(planner).to_have_attribute("retry", "fetch")
    state = planner.get_by_role("status").filter(has=page.get_by_role("heading"))
    expect(state.get_by_role("heading", level=3)).to_have_text(FR("PLANNER_PAGE.RETRY_TITLE"))
    expect(state).to_contain_text(FR("PLANNER_PAGE.RETRY_TEXT"))
    expect(state.get_by_role("button", name=FR("PLANNER_PAGE.RETRY"))).to_be_visible()
    return planner


def expect_real_page(page: Page) -> Locator:
    planner = page.locator("svc-planner")
    expect(planner).not_to_have_attribute("retry", "fetch")
    expect(planner).to_have_attribute("hydrated", "")
    expect(planner.locator(".svc-planner__menu-list > li")).to_have_count(6)
    expect(planner.locator("[data-role=retry]")).to_have_count(0)
    return planner


@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_try_again_state_is_accessible(failing_site: Site, page: Page, width: str) -> None:
    page.set_viewport_size(WIDTHS[width])
    try_again_state(page)
    assert_no_axe_violations(page, product(page), what=f"the planner's try-again state ({width})")


def test_the_page_replaces_the_try_again_state_by_itself_once_the_upstream_answers(
    failing_site: Site, page: Page, degraded: DegradedPrerender
) -> None:
    try_again_state(page)
    assert failing_site.tries == []  # nothing before the first delay
    failing_site.next_try(RETRY_DELAYS_MS[0])  # still failing: the message stays
    try_again_state(page)
    degraded.upstream.faults.clear()
    failing_site.next_try(RETRY_DELAYS_MS[1])
    planner = expect_real_page(page)
    assert len(failing_site.tries) == 2
    # The real page's own hydration ran: it acts (its help opens the onboarding), and nothing asks again.
    planner.locator("[data-action=help]").click()
    expect(page.locator("svc-planner-onboarding")).to_be_visible()
    page.clock.run_for(60_000)
    assert len(failing_site.tries) == 2
    assert_no_axe_violations(page, product(page), what="the planner once recovered")


def test_after_its_last_try_the_page_stays_on_the_message_and_the_button_asks_again(
    failing_site: Site, page: Page, degraded: DegradedPrerender
) -> None:
    planner = try_again_state(page)
    for delay in RETRY_DELAYS_MS:
        failing_site.next_try(delay)
    assert len(failing_site.tries) == len(RETRY_DELAYS_MS)
    page.clock.run_for(10 * 60_000)
    expect(planner).not_to_have_attribute("busy", "")  # no try went out: the timer would have set it at once
    assert len(failing_site.tries) == len(RETRY_DELAYS_MS)
    try_again_state(page)

    # The button asks at once; still failing, an alert says so and the message stays.
    button = planner.get_by_role("button", name=FR("PLANNER_PAGE.RETRY"))
    with page.expect_response(lambda r: r.url.startswith(f"{failing_site.prerender_url}/v2/planner/current-menu")):
        button.click()
    expect(planner.get_by_role("alert")).to_have_text(FR("PLANNER_PAGE.RETRY_FAILED"))
    try_again_state(page)

    # Once the upstream answers, the button brings the page, and the focus goes to its title.
    degraded.upstream.faults.clear()
    button.focus()
    page.keyboard.press("Enter")
    expect_real_page(page)
    expect(page.locator("svc-planner .svc-planner__title")).to_be_focused()

"""What a page with cards costs the shopper's browser (issue 24): prerender's release build (make static) is
served, compressed, and a card page loads the SDK, the card and their shared helpers only, each once, in at
most 5 JavaScript files and 60 KB as transferred; the drawer's code comes when the drawer first opens."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, Response, expect

from .helpers import hydrated_cards, visit

MAX_FILES = 5
MAX_COMPRESSED_BYTES = 60_000
CARD_PAGE_MODULES = {"sdk/svc.js", "components/ui.js", "components/recipe-card.js"}
DRAWER_MODULES = {"components/drawer.js", "components/recipe-details.js"}


class Scripts:
    """prerender's JavaScript responses of a page, as the browser received them."""

    def __init__(self, page: Page, prerender_url: str) -> None:
        self.prefix = f"{prerender_url}/static/"
        self.responses: list[Response] = []
        page.on("response", self.seen)

    def seen(self, response: Response) -> None:
        if response.url.startswith(self.prefix) and urlsplit(response.url).path.endswith(".js"):
            self.responses.append(response)

    def names(self) -> Counter[str]:
        """`sdk/svc.js`, `components/...`: the path below the build id, by times loaded."""
        return Counter(urlsplit(r.url).path.split("/", 3)[3] for r in self.responses)

    def transferred(self) -> int:
        """The bodies' bytes on the wire (compressed as sent)."""
        return sum(r.request.sizes()["responseBodySize"] for r in self.responses)


def test_a_card_page_loads_three_compressed_modules_once_and_the_drawer_on_demand(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    scripts = Scripts(page, prerender_url)
    visit(context, page, shop_url)
    expect(hydrated_cards(page).first).to_be_visible()
    page.wait_for_load_state("networkidle")

    names = scripts.names()
    assert set(names) == CARD_PAGE_MODULES and len(names) <= MAX_FILES, names
    assert all(count == 1 for count in names.values()), f"a module loaded twice: {names}"
    assert all(r.header_value("content-encoding") in {"br", "gzip"} for r in scripts.responses)
    assert scripts.transferred() <= MAX_COMPRESSED_BYTES, scripts.transferred()

    hydrated_cards(page).first.locator(".svc-recipe-card-cta").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.wait_for_load_state("networkidle")
    after = scripts.names()
    assert set(after) - CARD_PAGE_MODULES >= DRAWER_MODULES, after
    assert all(count == 1 for count in after.values()), f"a module loaded twice: {after}"


def test_the_catalog_page_with_its_planner_entry_loads_at_most_five_modules_and_the_modal_on_demand(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str
):
    scripts = Scripts(page, prerender_url)
    visit(context, page, shop_url, "/idees")
    entry = page.locator("svc-planner-entry")
    expect(entry).to_have_attribute("hydrated", "")
    expect(hydrated_cards(page).first).to_be_visible()
    page.wait_for_load_state("networkidle")

    names = scripts.names()
    assert len(names) <= MAX_FILES and "components/planner-entry.js" in names, names
    assert not {"components/planner-onboarding.js", "components/planner.js"} & set(names), names
    assert not DRAWER_MODULES & set(names), names
    assert all(count == 1 for count in names.values()), f"a module loaded twice: {names}"
    assert scripts.transferred() <= MAX_COMPRESSED_BYTES, scripts.transferred()

    entry.locator("[data-action=help]").click()
    expect(page.locator("svc-planner-onboarding[open]")).to_be_visible()
    assert scripts.names()["components/planner-onboarding.js"] == 1

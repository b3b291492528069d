"""A shopper who prints (Chromium's print media, the sheets' `@media print` rules): the recipe of an open drawer
prints as a document (the page behind, the backdrop and the buttons left out, every ingredient and step, nothing
cut by a scrolling box), the blog's sticky button and the planner's bars and onboarding do not print over the
page's content, and nothing of the service's is fixed or sticky on paper (it would print on every sheet)."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import hydrated_cards, visit
from .test_publisher import CTA, open_recipe

WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 740}}

# What of the service's, shown on paper, is fixed or sticky (printed on every sheet, over the content), or cuts its
# content (a scrolling box prints what it shows, not what it holds). A clamped title and a visually hidden text
# cut on purpose.
PRINT_PROBLEMS = """() => {
  const roots = document.querySelectorAll(".svc-ds-scope, .svc-toaster, .svc-drawer");
  const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
  const problems = new Set();
  for (const root of roots) {
    for (const el of [root, ...root.querySelectorAll("*")]) {
      if (!el.checkVisibility() || el.closest("svg")) continue;
      const style = getComputedStyle(el);
      if (style.position === "fixed" || style.position === "sticky") problems.add(`${name(el)} is ${style.position}`);
      const clips = ["hidden", "auto", "scroll", "clip"].includes(style.overflowY);
      const clamped = style.webkitLineClamp !== "none";
      if (clips && !clamped && el.clientWidth > 1 && el.children.length && el.scrollHeight > el.clientHeight + 1) {
        problems.add(`${name(el)} cuts its content (${el.scrollHeight} > ${el.clientHeight})`);
      }
    }
  }
  return [...problems];
}"""


# The page's own overflow, which the SDK's scroll lock sets on <html> while a dialog is open (sdk/customization.js).
PAGE_OVERFLOW = "() => getComputedStyle(document.documentElement).overflowY"


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def width(request: pytest.FixtureRequest, page: Page) -> str:
    page.set_viewport_size(WIDTHS[request.param])
    return str(request.param)


def test_an_open_drawer_prints_the_recipe(page: Page, context: BrowserContext, shop_url: str, width: str):
    visit(context, page, shop_url)
    page.mouse.wheel(0, 300)  # the shopper has scrolled a little
    card = hydrated_cards(page).first
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog", name=title)
    expect(dialog.locator(".svc-recipe-details__footer")).to_be_visible()

    page.emulate_media(media="print")
    assert page.evaluate(PRINT_PROBLEMS) == []
    assert page.evaluate(PAGE_OVERFLOW) == "visible"  # the drawer's scroll lock cuts nothing on paper
    expect(page.locator("main").first).to_be_hidden()  # the shop behind is not printed
    for left_out in (".svc-drawer__backdrop", ".svc-drawer__close", ".svc-drawer__footer", "[role=tablist]"):
        expect(dialog.locator(left_out)).to_be_hidden()
    expect(dialog.locator(".svc-drawer__title")).to_have_text(title)
    # The cooking tab's content (its ingredients and every step), not the products of the shop.
    expect(dialog.locator("[data-panel=shopping]")).to_be_hidden()
    ingredients = dialog.locator(".svc-recipe-details__ingredients--cooking .svc-recipe-details__ingredient")
    steps = dialog.locator(".svc-recipe-details__step")
    assert ingredients.count() > 0 and steps.count() > 0
    for row in [*ingredients.all(), *steps.all()]:
        expect(row).to_be_visible()
    assert len(page.pdf(format="A4")) > 0  # Chromium prints it (the sheets are looked at in the session's notes)

    page.emulate_media(media="screen")  # back on screen, the drawer is as it was
    expect(page.locator("main").first).to_be_visible()
    assert page.evaluate(PAGE_OVERFLOW) == "hidden"
    expect(dialog.locator(".svc-drawer__footer")).to_be_visible()
    assert page.evaluate("() => getComputedStyle(document.querySelector('.svc-drawer__panel')).position") == "absolute"


def test_the_blogs_sticky_button_does_not_print_over_the_recipe(page: Page, publisher_url: str, width: str):
    cta = open_recipe(page, publisher_url)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight / 2)")
    fixed = cta.locator(".svc-no-supplier-cta__fixed")
    expect(fixed).to_be_visible()  # on screen, once the page's own button has scrolled away
    page.emulate_media(media="print")
    expect(cta).to_be_hidden()  # a button means nothing on paper
    assert page.evaluate(PRINT_PROBLEMS) == []


def test_the_planner_prints_without_its_bars_and_onboarding(
    page: Page, context: BrowserContext, shop_url: str, width: str
):
    visit(context, page, shop_url, "/planner/current-menu")
    onboarding = page.locator("svc-planner-onboarding[open]")
    expect(onboarding).to_be_visible()  # a first visit
    page.emulate_media(media="print")
    expect(onboarding).to_be_hidden()
    assert page.evaluate(PRINT_PROBLEMS) == []
    assert page.evaluate(PAGE_OVERFLOW) == "visible"  # the onboarding's scroll lock cuts nothing on paper
    page.emulate_media(media="screen")
    page.keyboard.press("Escape")
    expect(onboarding).to_have_count(0)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight / 2)")
    page.emulate_media(media="print")
    assert page.evaluate(PRINT_PROBLEMS) == []
    expect(page.locator(".svc-planner .svc-planner__search, .svc-planner input[type=search]").first).to_be_visible()


def test_the_catalog_prints_without_its_sticky_toolbar(page: Page, context: BrowserContext, shop_url: str, width: str):
    visit(context, page, shop_url, "/idees/recherche?all_recipes=true")
    expect(page.locator(".svc-catalog-list__item, svc-recipe-card").first).to_be_visible()
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight / 2)")
    page.emulate_media(media="print")
    assert page.evaluate(PRINT_PROBLEMS) == []


def test_a_blog_drawer_prints_the_recipe(page: Page, publisher_url: str, width: str):
    cta = open_recipe(page, publisher_url)
    cta.locator(".svc-no-supplier-cta__static button").click()
    drawer = page.locator("svc-drawer[open]")
    expect(drawer).to_be_visible()
    page.emulate_media(media="print")
    assert page.evaluate(PRINT_PROBLEMS) == []
    expect(page.locator(CTA)).to_be_hidden()
    expect(drawer.locator(".svc-drawer__panel")).to_be_visible()

"""The components on a 320 px screen (WCAG 1.4.10: 1280 px at 400 %), as set and under a reader's own text spacing
(WCAG 1.4.12: line height 1.5, letter spacing 0.12 em, word spacing 0.16 em, paragraph spacing 2 em): every control's
text stays inside its control, and no two controls cover each other. The basket preview's three tabs, the drawer's
footer and the planner's entry block, where the product's markup is densest; and the demo shop's sheets around the
entry. And a control the keyboard reaches in a row that scrolls sideways shows whole."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import hydrated_cards, visit

# The text spacing WCAG 1.4.12 asks content to take without loss, as a reader's own stylesheet sets it.
TEXT_SPACING = """* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }
p { margin-bottom: 2em !important; }"""

# The controls of the product's markup under `root` whose visible text runs out of their box, and the pairs of
# controls that cover each other (more than 2 px each way; a control in a sticky or fixed bar is compared only with
# controls of the same bar, as the page scrolls under it). Text a line clamp cuts on purpose (a card's title: the
# drawer shows it whole) and visually hidden text are left out.
CROWDED = """(root) => {
  const shown = (element) => element.checkVisibility({ visibilityProperty: true })
    && element.getBoundingClientRect().width > 1;
  const clamped = (element, control) => {
    for (let e = element; e && e !== control.parentElement; e = e.parentElement) {
      if (getComputedStyle(e).webkitLineClamp !== 'none') return true;
    }
    return false;
  };
  const bar = (element) => {
    for (let e = element; e; e = e.parentElement) {
      if (['sticky', 'fixed'].includes(getComputedStyle(e).position)) return e;
    }
    return null;
  };
  const name = (element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}`
    + ` "${element.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40)}"`;
  const controls = [...root.querySelectorAll('a[href], button, [role=tab], input, select')].filter(shown);
  const found = [];
  for (const control of controls) {
    const box = control.getBoundingClientRect();
    const walker = document.createTreeWalker(control, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const parent = text.parentElement;
      if (!text.data.trim() || !shown(parent) || clamped(parent, control)) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      const r = range.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        found.push(`text out of ${name(control)}`);
        break;
      }
    }
  }
  controls.forEach((one, i) => controls.slice(i + 1).forEach((other) => {
    if (one.contains(other) || other.contains(one) || bar(one) !== bar(other)) return;
    const a = one.getBoundingClientRect(), b = other.getBoundingClientRect();
    const width = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const height = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (width > 2 && height > 2) found.push(`${name(one)} covers ${name(other)}`);
  }));
  return found;
}"""


def crowding(page: Page, root: str) -> dict[str, Any]:
    """What `CROWDED` finds under `root`, as set and then under the reader's text spacing."""
    found = {"as set": page.locator(root).evaluate(CROWDED)}
    page.add_style_tag(content=TEXT_SPACING)
    found["text spacing"] = page.locator(root).evaluate(CROWDED)
    return found


@pytest.fixture
def phone_320(page: Page) -> Page:
    page.set_viewport_size({"width": 320, "height": 640})
    return page


def test_the_basket_previews_tabs_stay_apart(phone_320: Page, context: BrowserContext, shop_url: str):
    """Three tabs (favorites, history, the basket) in 296 px: they wrap rather than run into each other. On a
    375 px phone they keep one row."""
    phone_320.set_viewport_size({"width": 375, "height": 740})
    visit(context, phone_320, shop_url, "/idees/panier")
    tabs = phone_320.locator("svc-catalog .svc-my-space__tabs .svc-my-space__tab")
    expect(tabs).to_have_count(3)
    tops = tabs.evaluate_all("(tabs) => tabs.map((tab) => Math.round(tab.getBoundingClientRect().top))")
    assert len(set(tops)) == 1, tops
    phone_320.set_viewport_size({"width": 320, "height": 640})
    assert crowding(phone_320, "svc-catalog .svc-my-space__tabs") == {"as set": [], "text spacing": []}


def test_the_drawers_footer_keeps_its_button_whole(phone_320: Page, context: BrowserContext, shop_url: str):
    """The total and "add all": when the total leaves the button too little, the button takes a row of its own."""
    visit(context, phone_320, shop_url)
    hydrated_cards(phone_320).first.locator(".svc-recipe-card-cta").click()
    footer = phone_320.locator("svc-drawer[open] .svc-recipe-details__footer")
    expect(footer.locator(".svc-recipe-details__add-all")).to_be_visible()
    assert crowding(phone_320, "svc-drawer[open] .svc-drawer__panel") == {"as set": [], "text spacing": []}


def test_the_planner_entry_and_the_sheets_keep_their_controls_apart(
    phone_320: Page, context: BrowserContext, shop_url: str
):
    """The planner's entry block (its guests stepper, its two ways in) over the demo shop's sheets, two columns of
    them, each with its button."""
    visit(context, phone_320, shop_url, "/idees/fiches")
    expect(phone_320.locator(".ideas-planner [data-action=guests-increase]")).to_be_visible()
    assert crowding(phone_320, "main") == {"as set": [], "text spacing": []}


# How much of a control, its focus ring included, the rows that scroll sideways hide (null: none). At 320 px: the
# recipe types' chips of the search page.
PARTLY_HIDDEN = """(control) => {
  const look = getComputedStyle(control);
  const ring = look.outlineStyle === 'none' ? 0
    : parseFloat(look.outlineWidth) + Math.max(0, parseFloat(look.outlineOffset));
  for (let row = control.parentElement; row; row = row.parentElement) {
    if (row.scrollWidth <= row.clientWidth || !['auto', 'scroll'].includes(getComputedStyle(row).overflowX)) continue;
    const box = row.getBoundingClientRect(), shown = control.getBoundingClientRect();
    const item = { left: shown.left - ring, right: shown.right + ring };
    const at = (r) => `${Math.round(r.left)}-${Math.round(r.right)}`;
    if (item.left < box.left - 1 || item.right > box.right + 1) return `${at(item)} in ${at(box)}`;
  }
  return null;
}"""


def test_a_chip_the_keyboard_reaches_shows_whole(phone_320: Page, context: BrowserContext, shop_url: str):
    """The recipe types' chips run past their row's edge at 320 px: each one the keyboard reaches is scrolled
    wholly into view, its focus ring too (WCAG 2.4.12). Chromium by itself leaves one that shows in part where it
    is."""
    visit(context, phone_320, shop_url, "/idees/recherche?all_recipes=true")
    chips = phone_320.locator("svc-catalog[hydrated] .svc-catalog-list__filters .svc-catalog-list__filter")
    expect(chips.first).to_be_visible()
    assert chips.last.evaluate(PARTLY_HIDDEN) is not None  # the last one starts half past the edge
    chips.first.focus()
    hidden = []
    for index in range(1, chips.count()):
        phone_320.keyboard.press("Tab")
        expect(chips.nth(index)).to_be_focused()
        hidden.append(chips.nth(index).evaluate(PARTLY_HIDDEN))
    phone_320.keyboard.press("Shift+Tab")
    hidden.append(chips.nth(chips.count() - 2).evaluate(PARTLY_HIDDEN))
    assert hidden == [None] * chips.count(), hidden


def test_a_card_half_in_its_carousel_opens_where_it_is_clicked(phone_320: Page, context: BrowserContext, shop_url: str):
    """The pointer's focus does not scroll a row (only the keyboard's, as above): a card half in its snapping
    carousel, clicked where it shows, opens, rather than being scrolled from under the pointer before the click."""
    visit(context, phone_320, shop_url, "/idees")
    row = phone_320.locator("svc-catalog[hydrated] .svc-catalog__carousel").first
    expect(row.locator("svc-recipe-card[hydrated]").first).to_be_attached()
    half = row.evaluate(
        """(row) => {
          row.scrollIntoView({ block: 'center' });  // the page scrolls to the row, the row itself does not
          const box = row.getBoundingClientRect();
          for (const card of row.querySelectorAll('svc-recipe-card')) {
            const cta = card.querySelector('.svc-recipe-card__title-button').getBoundingClientRect();
            if (cta.left < box.right - 20 && cta.right > box.right) {
              return { id: card.getAttribute('recipe-id'), x: (cta.left + box.right) / 2, y: cta.top + cta.height / 2 };
            }
          }
          return null;
        }"""
    )
    assert half is not None, "no card is half in its row at 320 px"
    phone_320.mouse.click(half["x"], half["y"])  # where it shows: Playwright's own click would scroll it first
    expect(phone_320.locator(f"svc-drawer[open] svc-recipe-details[recipe-id='{half['id']}']")).to_be_attached()


def test_the_shops_navigation_shows_the_link_the_keyboard_reaches(
    phone_320: Page, context: BrowserContext, shop_url: str
):
    """The demo shop's own rows (the site's sections, the recipe pages') scroll sideways at 320 px: each link the
    keyboard reaches shows whole, as the product's rows do."""
    visit(context, phone_320, shop_url, "/idees")
    hidden = {}
    for row in (".site-nav__list", ".section-nav__list"):
        links = phone_320.locator(f"{row} a")
        links.first.focus()
        for index in range(1, links.count()):
            phone_320.keyboard.press("Tab")
            expect(links.nth(index)).to_be_focused()
            hidden[links.nth(index).inner_text()] = links.nth(index).evaluate(PARTLY_HIDDEN)
    assert set(hidden.values()) == {None}, hidden


# The width of an input's placeholder in the input's own font, against the room the input gives it.
PLACEHOLDER_FITS = """(input) => {
  const style = getComputedStyle(input);
  const context = document.createElement("canvas").getContext("2d");
  context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return { text: input.placeholder, width: context.measureText(input.placeholder).width, room };
}"""


@pytest.mark.parametrize("path", ["/idees/recherche?all_recipes=true", "/planner/current-menu"])
def test_a_search_fields_example_shows_whole_on_a_phone(page: Page, context: BrowserContext, shop_url: str, path: str):
    """The catalog's and the planner's search fields at 375 px: their example ("Ex. : tomate") is not cut."""
    page.set_viewport_size({"width": 375, "height": 740})
    page.context.add_init_script("localStorage.setItem('_svc/planner/onboarded', 'true')")
    visit(context, page, shop_url, path)
    field = page.locator(".svc-catalog__toolbar input[type=search], .svc-planner input[type=search]").first
    expect(field).to_be_visible()
    fit = field.evaluate(PLACEHOLDER_FITS)
    assert fit["text"] and fit["width"] <= fit["room"], fit

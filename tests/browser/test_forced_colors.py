"""The components in forced colours (Windows' contrast themes; Chromium's `forced-colors: active`): the browser drops
backgrounds and shadows, so a state the product shows by a background alone would vanish. Each state keeps a mark the
theme draws (a border, an underline, a system colour): the selected tab of my space and of the drawer, and a control
the SDK marks `aria-disabled` (it keeps the keyboard's focus), which looks as a `:disabled` one does."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import hydrated_cards, visit

# What of an element's look survives forced colours: its border, underline and outline, its colour, and the
# background of its `::after` (the drawer's tabs draw their bar there).
MARKS = """(element) => {
  const own = getComputedStyle(element), after = getComputedStyle(element, "::after");
  return {
    border: `${own.borderTopStyle} ${own.borderTopWidth} ${own.borderTopColor}`,
    underline: own.textDecorationLine,
    outline: own.outlineStyle,
    color: own.color,
    bar: after.content === "none" ? "none" : after.backgroundColor,
  };
}"""


def system_colour(page: Page, name: str) -> str:
    """A system colour of the forced palette, as computed styles give it ("rgb(...)")."""
    return page.evaluate(
        """(name) => {
            const probe = document.body.appendChild(document.createElement("span"));
            probe.style.color = name;
            const colour = getComputedStyle(probe).color;
            probe.remove();
            return colour;
        }""",
        name,
    )


@pytest.fixture
def forced(page: Page) -> Page:
    page.emulate_media(forced_colors="active")
    return page


def test_the_selected_tab_of_my_space_keeps_its_mark(forced: Page, context: BrowserContext, shop_url: str):
    visit(context, forced, shop_url, "/idees/panier")
    tabs = forced.locator("svc-catalog .svc-my-space__tabs")
    selected = tabs.locator(".svc-my-space__tab--active").evaluate(MARKS)
    other = tabs.locator(".svc-my-space__tab:not(.svc-my-space__tab--active)").first.evaluate(MARKS)
    assert selected["border"] != other["border"] and selected["underline"] == "underline", (selected, other)


def test_the_drawers_selected_tab_and_a_busy_button_keep_their_marks(
    forced: Page, context: BrowserContext, shop_url: str
):
    visit(context, forced, shop_url)
    hydrated_cards(forced).first.locator(".svc-recipe-card-cta").click()
    drawer = forced.locator("svc-drawer[open]")
    tabs = drawer.locator(".svc-recipe-details__tabs [role=tab]")
    expect(tabs).to_have_count(2)
    selected = tabs.and_(forced.locator("[aria-selected=true]")).evaluate(MARKS)
    other = tabs.and_(forced.locator("[aria-selected=false]")).evaluate(MARKS)
    # The bar under the selected tab in the theme's highlight (a background of the page's colour would not show).
    assert selected["bar"] == system_colour(forced, "Highlight") != other["bar"], (selected, other)

    # "Add all" while its write is under way (recipe-details.js marks it so), beside the stepper's minus disabled. Its
    # colour changes through a transition: `to_have_css` waits for its end.
    add_all = drawer.locator(".svc-recipe-details__add-all")
    enabled = add_all.evaluate(MARKS)
    disabled = drawer.locator("[data-action=guests-decrease]").evaluate(
        f"(button) => {{ button.disabled = true; return ({MARKS})(button); }}"
    )
    assert disabled["color"] != enabled["color"], (disabled, enabled)
    add_all.evaluate("(button) => button.setAttribute('aria-disabled', 'true')")
    expect(add_all).to_have_css("color", disabled["color"])

"""The components against the host page's own CSS (docs/styles.md, "Component scope"): rules on element names,
which every retail site and blog theme has (`p { font-size: 18px }`, `h3 { color: navy }`, `li { margin: … }`),
and rules of one class or attribute linked after prerender's sheets (an older Tailwind's reset of typed buttons,
a content wrapper's `.prose :where(img)`, a theme's `.entry-content button`) change nothing in prerender's
components. Measured in Chromium as computed styles of every element of every
component, before and after such a sheet is added to the page: the cards, the drawer of a retailer and of a
publisher, the planner and the catalog."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import hydrated_cards, new_user, visit

# What a host's element rules set and would change in ours. The box properties (margin, padding, border...) are
# kept to the elements inside the components, at the same specificity (`:where()` counts nothing): on the host's
# own boxes they would widen or narrow the box a component is placed in, which changes its layout on purpose
# (container queries).
HOST_SHEET = """
h1, h2, h3, h4, h5, h6, p, span, a, li, ul, ol, dl, dt, dd, label, legend, fieldset, strong, em, b, i, small,
time, output, figure, figcaption, button, input, select, textarea, img, div, section, article, header, footer,
nav, aside, form, table, td, th {
  color: rgb(1, 2, 3); background-color: rgb(250, 240, 230); font-family: serif; font-size: 23px;
  font-weight: 100; font-style: italic; line-height: 3; letter-spacing: 3px; word-spacing: 5px;
  text-transform: uppercase; text-align: center; text-indent: 9px; text-decoration: underline wavy;
  text-shadow: 1px 1px red; list-style: square inside; vertical-align: 5px; opacity: 0.9;
}
:where(.svc-ds-scope) :is(h1, h2, h3, h4, h5, h6, p, span, a, li, ul, ol, dt, dd, label, legend, fieldset, strong,
em, b, i, small, time, output, figure, figcaption, button, input, select, textarea, img, div, section, article,
header, footer, nav, aside, form) {
  margin: 13px; padding: 7px; border: 3px dotted rgb(1, 2, 3); border-radius: 11px; box-shadow: 0 0 4px red;
  float: left; min-width: 40px;
}
"""
# A sheet of one class's weight (or one class and an element name), as frameworks and themes ship them, on a page
# whose body is the theme's content wrapper (`HOST_WRAPPER`).
HOST_WRAPPER = "host-content"
ONE_CLASS_SHEET = """
button, [type='button'], [type='reset'], [type='submit'] {
  -webkit-appearance: button; background-color: transparent; background-image: none;
}
.host-content :where(h1, h2, h3, h4, h5, h6, p, span, a, li, ul, ol, dl, dt, dd, label, legend, fieldset, strong, em,
b, i, small, time, output, figure, figcaption, button, input, select, textarea, img, div, section, article, header,
footer, nav, aside, form) {
  color: rgb(1, 2, 3); background-color: rgb(250, 240, 230); font-family: serif; font-size: 23px;
  font-weight: 100; font-style: italic; line-height: 3; letter-spacing: 3px; word-spacing: 5px;
  text-transform: uppercase; text-align: center; text-indent: 9px; text-decoration: underline wavy;
  text-shadow: 1px 1px red; list-style: square inside; vertical-align: 5px; opacity: 0.9;
  margin: 13px; padding: 7px; border: 3px dotted rgb(1, 2, 3); border-radius: 11px; box-shadow: 0 0 4px red;
  float: left; min-width: 40px;
}
.host-content button, .host-content img, .host-content a, .host-content p {
  background-color: rgb(20, 30, 80); color: rgb(250, 250, 250); padding: 12px 24px; border-radius: 0;
}
"""
PROPERTIES = [
    "color",
    "background-color",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "line-height",
    "letter-spacing",
    "word-spacing",
    "text-transform",
    "text-align",
    "text-indent",
    "text-decoration-line",
    "text-shadow",
    "list-style-type",
    "list-style-position",
    "vertical-align",
    "opacity",
    "margin-top",
    "margin-left",
    "padding-top",
    "padding-left",
    "border-top-width",
    "border-top-style",
    "border-top-left-radius",
    "box-shadow",
    "float",
    "min-width",
    "background-image",
]
# The box the host's page gives each component, kept as it is: the host's rules make its own boxes larger or
# smaller (a grid row as tall as its tallest cell), and a component fills the box it is given on purpose.
KEEP_THE_HOSTS_BOXES = """() => {
  for (const root of document.querySelectorAll(".svc-ds-scope")) {
    if (root.parentElement.closest(".svc-ds-scope")) continue;
    const box = root.getBoundingClientRect();
    for (const size of ["width", "min-width", "max-width"]) root.style.setProperty(size, `${box.width}px`);
    for (const size of ["height", "min-height", "max-height"]) root.style.setProperty(size, `${box.height}px`);
    root.style.setProperty("flex", "none");  // a flex cell's `flex: 1` would stretch it with its row
  }
}"""
# Every element of every component (SVG drawings aside), keyed by its place in the page.
COMPUTED_STYLES = """(properties) => {
  const where = (element) => {
    const path = [];
    for (let node = element; node && node !== document.body; node = node.parentElement) {
      path.unshift(`${node.tagName.toLowerCase()}.${[...node.classList].join(".")}:${[...node.parentElement.children].indexOf(node)}`);
    }
    return path.join(" > ");
  };
  const styles = {};
  for (const root of document.querySelectorAll(".svc-ds-scope")) {
    for (const element of [root, ...root.querySelectorAll("*")]) {
      if (element.closest("svg")) continue;
      const computed = getComputedStyle(element);
      styles[where(element)] = Object.fromEntries(properties.map((name) => [name, computed.getPropertyValue(name)]));
    }
  }
  return styles;
}"""


def open_a_cards_drawer(page: Page, context: BrowserContext, shop_url: str, publisher_url: str) -> None:
    visit(context, page, shop_url, user=new_user())
    hydrated_cards(page).first.locator("button[data-action='open-details']").first.click()
    expect(page.locator("svc-drawer[open] [data-action='add-all']")).to_be_enabled()


def open_the_planner(page: Page, context: BrowserContext, shop_url: str, publisher_url: str) -> None:
    visit(context, page, shop_url, "/planner/current-menu", user=new_user())
    expect(page.locator("svc-planner[hydrated]")).to_be_visible()


def open_the_catalog(page: Page, context: BrowserContext, shop_url: str, publisher_url: str) -> None:
    visit(context, page, shop_url, "/idees", user=new_user())
    expect(page.locator("svc-catalog[hydrated]").first).to_be_visible()


def open_a_blogs_drawer(page: Page, context: BrowserContext, shop_url: str, publisher_url: str) -> None:
    page.goto(f"{publisher_url}/recettes/pub-ratatouille-provencale")
    page.locator("svc-no-supplier-add-to-cart-cta[hydrated] .svc-no-supplier-cta__static button").click()
    expect(page.locator("svc-drawer[open] [data-role='store-form']")).to_be_visible()


Journey = Callable[[Page, BrowserContext, str, str], None]


@pytest.mark.parametrize("sheet", [HOST_SHEET, ONE_CLASS_SHEET], ids=["element-names", "one-class"])
@pytest.mark.parametrize(
    "journey",
    [open_a_cards_drawer, open_the_planner, open_the_catalog, open_a_blogs_drawer],
    ids=["cards-and-drawer", "planner", "catalog", "blog-drawer"],
)
def test_the_host_pages_rules_change_nothing_in_the_components(
    page: Page, context: BrowserContext, shop_url: str, publisher_url: str, journey: Journey, sheet: str
) -> None:
    page.emulate_media(reduced_motion="reduce")
    journey(page, context, shop_url, publisher_url)
    page.wait_for_load_state("networkidle")
    # Nothing moving (a drawer sliding in, an opacity fading): the styles are read twice, each settled.
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    page.evaluate(KEEP_THE_HOSTS_BOXES)
    before = page.evaluate(COMPUTED_STYLES, PROPERTIES)
    assert len(before) > 5, "no component on the page"
    page.evaluate("(wrapper) => document.body.classList.add(wrapper)", HOST_WRAPPER)
    page.add_style_tag(content=sheet)
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    after = page.evaluate(COMPUTED_STYLES, PROPERTIES)

    changed = {
        element: {
            name: f"{value} -> {after[element][name]}"
            for name, value in styles.items()
            if after[element][name] != value
        }
        for element, styles in before.items()
        if element in after
    }
    changed = {element: change for element, change in changed.items() if change}
    assert set(after) == set(before), "the host's sheet changed which elements the components have"
    assert not changed, f"{len(changed)} of {len(before)} elements changed, e.g. {list(changed.items())[:5]}"

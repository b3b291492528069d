"""The title of a card is its main action: anywhere in the title box opens the drawer, including the empty
second line a one-line title leaves (the box always reserves two lines, prerender/static/css/recipe-card.css)."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .helpers import card_fragment, visit

# "Tiramisu" (coreapi/seed/data/recipes.json): one line in every layout of the card.
SHORT_TITLE_RECIPE = "57"

# Lines of text in the title button, counted from the line boxes of its text.
TITLE_LINES = """button => {
    const range = document.createRange();
    range.selectNodeContents(button);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
}"""


@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
@pytest.mark.parametrize("variant", [1, 2, 3])
def test_a_click_anywhere_in_a_one_line_title_box_opens_the_drawer(
    page: Page, context: BrowserContext, shop_url: str, prerender_url: str, variant: int, orientation: str
):
    # The page that inserts cards at runtime (its module scripts and styles are loaded already), with a
    # cell wide enough for the horizontal layout (from 360px of card width).
    visit(context, page, shop_url, "/injection")
    html = card_fragment(context, shop_url, prerender_url, SHORT_TITLE_RECIPE, variant=variant, orientation=orientation)
    page.locator("[data-injection-slot]").evaluate(
        "(slot, [html, width]) => { slot.style.maxWidth = width; slot.innerHTML = html; }",
        [html, "640px" if orientation == "horizontal" else "320px"],
    )
    card = page.locator(f"[data-injection-slot] svc-recipe-card[recipe-id='{SHORT_TITLE_RECIPE}'][hydrated]")
    expect(card).to_be_visible()
    expect(card).to_have_attribute("display-variant", str(variant))
    layout = "row" if orientation == "horizontal" else "column"
    expect(card.locator(".svc-recipe-card__inner")).to_have_css("flex-direction", layout)

    title = card.locator(".svc-recipe-card__title")
    button = title.locator(".svc-recipe-card__title-button")
    assert button.evaluate(TITLE_LINES) == 1, "the title should fit on one line"
    # The look is kept: the text sits on the first of the two reserved lines, not centred in the box.
    text_top = button.evaluate(
        "b => { const r = document.createRange(); r.selectNodeContents(b); return r.getBoundingClientRect().top; }"
    )
    box = title.bounding_box()
    assert box is not None and text_top - box["y"] < box["height"] / 8
    dialog = page.get_by_role("dialog")

    for share in (0.5, 0.8):  # the centre of the title box, then its lower part
        # Move first: the card lifts by 2px on hover, so the box is measured under the pointer.
        box = title.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * share)
        box = title.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * share
        hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.className ?? ''", [x, y])
        page.mouse.click(x, y)
        expect(dialog, f"a click at {share:.0%} of the title box's height (on {hit!r}) opens the drawer").to_be_visible(
            timeout=3000
        )
        expect(dialog.locator(".svc-recipe-details__title")).to_have_text(button.inner_text().strip())
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(button).to_be_focused()  # the title button was the opener

"""Rules that a browser at the support floor (docs/styles.md, "Browsers") must not drop whole: a selector list
with one selector it cannot parse is dropped entirely, so a `:has()` selector (Firefox before 121) never shares a
list with selectors that style what such a browser must still show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "prerender" / "static" / "css"
COMMENT = re.compile(r"/\*.*?\*/", re.S)
# A rule's selector list: the text before a "{" since the last "}", ";" or "{" (at-rule preludes included, which
# the test leaves alone).
PRELUDE = re.compile(r"(?:^|[{};])\s*([^{};@]+?)\s*\{")


def top_level_selectors(prelude: str) -> list[str]:
    """The selectors of a list, split at the commas outside parentheses."""
    selectors, depth, current = [], 0, ""
    for char in prelude:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            selectors.append(current.strip())
            current = ""
        else:
            current += char
    return [*selectors, current.strip()]


@pytest.mark.parametrize("sheet", sorted(CSS.glob("*.css")), ids=lambda path: path.name)
def test_no_selector_list_mixes_has_with_selectors_that_need_no_has(sheet: Path) -> None:
    text = COMMENT.sub("", sheet.read_text(encoding="utf-8"))
    mixed = []
    for match in PRELUDE.finditer(text):
        selectors = top_level_selectors(match.group(1))
        with_has = [selector for selector in selectors if ":has(" in selector]
        if with_has and len(with_has) != len(selectors):
            mixed.append(match.group(1))
    assert mixed == [], f"{sheet.name}: split these lists (a rule of its own for the :has() selectors)"

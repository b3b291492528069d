"""The stylesheets' selectors keep the weight docs/styles.md ("Component scope") gives them: every style rule starts
from `:root`, one class's weight above a host page's rules of one class or attribute (tests/browser/test_host_styles.py
measures what that keeps out)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

CSS_DIR = Path(__file__).resolve().parents[2] / "prerender" / "static" / "css"
# At-rules whose blocks hold style rules; the others' (@keyframes, @font-face) hold none.
GROUPING = {"media", "supports", "container", "layer"}


def style_rule_preludes(css: str) -> Iterator[str]:
    """The selector list of every style rule of a sheet, at any depth of grouping at-rules."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", '""', css)
    kinds: list[str] = []
    start = 0
    for position, char in enumerate(css):
        if char == "{":
            prelude = css[start:position].strip()
            if kinds and kinds[-1] != "group":
                kinds.append("other")
            elif prelude.startswith("@"):
                name = re.match(r"@([a-z-]+)", prelude)
                kinds.append("group" if name and name.group(1) in GROUPING else "other")
            else:
                kinds.append("rule")
                yield prelude
            start = position + 1
        elif char == "}":
            kinds.pop()
            start = position + 1
        elif char == ";" and (not kinds or kinds[-1] == "group"):
            start = position + 1


def selectors(prelude: str) -> list[str]:
    """A selector list split at its top-level commas (not those inside `:is()`, `:where()`, `:not()`)."""
    parts, depth, current = [], 0, []
    for char in prelude:
        depth += char in "([" or -(char in ")]")
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return parts


SHEETS = sorted(CSS_DIR.glob("*.css"))


def test_the_parser_reads_grouped_rules_and_skips_keyframes():
    css = (
        "/* a, b { */ :root { --x: 1; } @media print { :root .a, :root .b:is(.c, .d) { x: y; } }"
        " @keyframes k { from { } }"
    )
    assert list(style_rule_preludes(css)) == [":root", ":root .a, :root .b:is(.c, .d)"]
    assert selectors(":root .a, :root .b:is(.c, .d)") == [":root .a", ":root .b:is(.c, .d)"]


@pytest.mark.parametrize("sheet", SHEETS, ids=[sheet.name for sheet in SHEETS])
def test_every_rule_of_a_sheet_starts_from_the_root(sheet: Path):
    unscoped = [
        selector
        for prelude in style_rule_preludes(sheet.read_text(encoding="utf-8"))
        for selector in selectors(prelude)
        if selector != ":root" and not re.match(r":root[ .]", selector)
    ]
    assert not unscoped, f"{sheet.name}: selectors that do not start from :root: {unscoped[:5]}"


def test_only_the_design_systems_sheet_declares_tokens_on_the_root():
    declaring = [
        sheet.name
        for sheet in SHEETS
        if any(prelude == ":root" for prelude in style_rule_preludes(sheet.read_text(encoding="utf-8")))
    ]
    assert declaring == ["base.css"]

"""The browser's copy of the icons its components draw, generated from the one source,
prerender/templates/macros/icons.html (docs/decisions.md, "one icon source").

components/ui.js holds, between two marker lines, `const ICONS = {...}`: for each icon of BROWSER_ICONS, its
`<svg>` attributes and its shapes, as the macro renders them (decorative: the macro's defaults). ui.js's `icon()`
builds the SVG from that data with DOM calls, never markup. `python -m prerender.rendering.icons` rewrites the block
after a change of the macros; tests/unit/test_icons.py fails while the two differ.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from jinja2 import Environment, FileSystemLoader

PACKAGE = Path(__file__).resolve().parent.parent
TEMPLATES = PACKAGE / "templates"
UI_MODULE = PACKAGE / "static" / "components" / "ui.js"
# The icons the components draw in the browser (every other icon is only ever server-rendered).
BROWSER_ICONS = ("basket", "heart", "close")
BEGIN = "// BEGIN ICONS: generated from templates/macros/icons.html by `python -m prerender.rendering.icons`."
END = "// END ICONS"
# What ui.js's icon() sets itself: the class it is given, and the decorative attributes.
SET_BY_ICON = {"class", "aria-hidden", "focusable"}


@functools.cache
def macros() -> Any:
    """The macros of macros/icons.html, rendered as the app renders them (autoescaped)."""
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True)
    return environment.get_template("macros/icons.html").module


def icon_data(name: str) -> dict[str, Any]:
    """An icon as ui.js needs it: the `<svg>`'s own attributes (viewBox, size) and its shapes, read as XML (which
    keeps the case of `viewBox`)."""
    root = ElementTree.fromstring(str(getattr(macros(), name)()))
    if root.tag != "svg" or any(len(shape) for shape in root):
        raise ValueError(f"the icon {name} is not one <svg> of shapes")
    svg = {key: value for key, value in root.attrib.items() if key not in SET_BY_ICON}
    return {"svg": svg, "shapes": [(shape.tag, dict(shape.attrib)) for shape in root]}


def browser_block() -> str:
    """The lines of ui.js between the markers, both included."""
    lines = [
        BEGIN,
        "/** @type {Record<string, { svg: Record<string, string>, shapes: [string, Record<string, string>][] }>} */",
        "const ICONS = {",
    ]
    for name in BROWSER_ICONS:
        data = icon_data(name)
        lines += [f"  {name}: {{", f"    svg: {json.dumps(data['svg'])},", "    shapes: ["]
        lines += [f"      [{json.dumps(tag)}, {json.dumps(attributes)}]," for tag, attributes in data["shapes"]]
        lines += ["    ],", "  },"]
    return "\n".join([*lines, "};", END])


def with_block(source: str) -> str:
    """ui.js's source with its block replaced by the generated one."""
    start, end = source.index(BEGIN), source.index(END) + len(END)
    return source[:start] + browser_block() + source[end:]


def main() -> int:
    """Rewrite ui.js's block."""
    source = UI_MODULE.read_text(encoding="utf-8")
    UI_MODULE.write_text(with_block(source), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One icon source (docs/decisions.md, "one icon source"): every icon is a macro of
prerender/templates/macros/icons.html, and components/ui.js draws its few from a copy generated from them."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from prerender.rendering import icons

TEMPLATES = icons.TEMPLATES
COMPONENTS = icons.UI_MODULE.parent
# The templates that may hold an <svg> of their own: the icons, and the planner's onboarding pictures.
SVG_SOURCES = {"macros/icons.html", "planner/pictures.html"}


def test_the_browsers_icons_are_the_generated_copy_of_the_macros() -> None:
    """Fails after a change of macros/icons.html until `python -m prerender.rendering.icons` is run."""
    source = icons.UI_MODULE.read_text(encoding="utf-8")
    assert icons.with_block(source) == source


def test_the_copy_draws_what_the_macro_renders() -> None:
    for name in icons.BROWSER_ICONS:
        rendered = BeautifulSoup(str(getattr(icons.macros(), name)()), "html.parser").svg
        data = icons.icon_data(name)
        assert {key.lower(): value for key, value in data["svg"].items()} | {
            "class": "svc-ds-icon",
            "aria-hidden": "true",
            "focusable": "false",
        } == {key: " ".join(v) if isinstance(v, list) else v for key, v in rendered.attrs.items()}
        assert [(tag, attributes) for tag, attributes in data["shapes"]] == [
            (shape.name, shape.attrs) for shape in rendered.find_all(recursive=False)
        ]


def test_the_components_draw_only_generated_icons() -> None:
    """Every `icon("name", ...)` of a component names an icon of the copy, and no component writes an SVG's
    shapes itself."""
    used = set()
    for path in COMPONENTS.rglob("*.js"):
        source = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"\bicon\(\"([a-z_]+)\"", source))
        if path != icons.UI_MODULE:
            assert "viewBox" not in source and "createElementNS" not in source, path.name
    assert used == set(icons.BROWSER_ICONS)


def test_no_template_writes_its_own_svg() -> None:
    """An icon a template needs is a macro of macros/icons.html, imported: never a copy of its markup."""
    holders = {
        path.relative_to(TEMPLATES).as_posix()
        for path in TEMPLATES.rglob("*.html")
        if "<svg" in path.read_text(encoding="utf-8")
    }
    assert holders == SVG_SOURCES


def test_a_labelled_icon_is_an_image_with_its_name() -> None:
    svg = BeautifulSoup(str(icons.macros().basket(label="Dans le panier")), "html.parser").svg
    assert svg["role"] == "img" and svg["aria-label"] == "Dans le panier" and not svg.has_attr("aria-hidden")

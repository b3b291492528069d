"""The eleven styles routes: {links, html}, absolute hashed links that serve text/css; what the catalog routes
combine; the catalog templates' classes against the sheets and the contract (docs/styles.md); the conventions
every sheet follows (docs/styles.md, section 2)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from prerender.rendering.stylesheets import STYLE_BUNDLES

from .conftest import headers

ROOT = Path(__file__).resolve().parents[2]
CSS_DIR = ROOT / "prerender" / "static" / "css"
CATALOG_TEMPLATES = ROOT / "prerender" / "templates" / "catalog"
STYLES_DOC = (ROOT / "docs" / "styles.md").read_text(encoding="utf-8")

SPEC_ROUTES = [
    "",
    "/base",
    "/recipe-card",
    "/catalog",
    "/catalog/catalog-home",
    "/catalog/catalog-category",
    "/catalog/catalog-favorites",
    "/catalog/catalog-list",
    "/catalog/my-space",
    "/planner",
    "/planner/planner-entry",
]


def test_the_table_covers_exactly_the_spec_routes():
    assert {f"/{name}" for name in STYLE_BUNDLES} == set(SPEC_ROUTES) - {""}


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("route", SPEC_ROUTES)
def test_styles_route(client, version, route):
    response = client.get(f"/{version}/styles{route}", headers=headers())
    assert response.status_code == 200
    body = response.get_json()
    links = body["links"]
    assert links and all(urlsplit(link).scheme == "http" and urlsplit(link).netloc for link in links)
    tags = BeautifulSoup(body["html"], "html5lib").find_all("link")
    assert [(tag["rel"], tag["href"]) for tag in tags] == [(["stylesheet"], link) for link in links]
    for link in links:
        sheet = client.get(urlsplit(link).path)
        assert sheet.status_code == 200 and sheet.mimetype == "text/css"
        assert sheet.headers["Cache-Control"].count("immutable") == 1
        assert len(sheet.data) > 200  # a real stylesheet, not an empty file


def sheet_names(client, route: str) -> list[str]:
    links = client.get(f"/v1/styles{route}", headers=headers()).get_json()["links"]
    return [link.rsplit("/", 1)[1].removesuffix(".css") for link in links]


def test_component_routes_include_their_sub_components(client):
    assert {"recipe-card", "like-button", "drawer", "recipe-details"} <= set(sheet_names(client, "/recipe-card"))
    assert set(sheet_names(client, "/recipe-card")) <= set(sheet_names(client, "/catalog"))
    home = set(sheet_names(client, "/catalog/catalog-home"))
    assert {"recipe-card", "planner-entry", "catalog-home"} <= home
    planner = set(sheet_names(client, "/planner"))
    assert {"drawer", "catalog-list", "breadcrumb", "planner-entry", "quick-menu", "planner"} <= planner
    assert "base" not in planner and sheet_names(client, "/base") == ["base"]
    assert sheet_names(client, "")[0] == "base"


def test_links_change_with_the_content(client, app):
    link = client.get("/v1/styles/base", headers=headers()).get_json()["links"][0]
    build = app.extensions["prerender.rendering.assets"].build_id
    assert f"/static/{build}/css/base.css" in link
    assert client.get(urlsplit(link).path.replace(build, "000000000000")).status_code == 404


def test_unknown_component_is_a_404_problem(client):
    response = client.get("/v1/styles/nothing", headers=headers())
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_cdn_url_moves_the_links(app_config):
    from prerender import create_app

    app = create_app({**app_config, "CDN_URL": "https://cdn.example/prerender"})
    links = app.test_client().get("/v1/styles/base", headers=headers()).get_json()["links"]
    assert links[0].startswith("https://cdn.example/prerender/static/")


# The catalog routes whose pages have the toolbar, hence the preferences panel it opens.
TOOLBAR_ROUTES = [
    "/catalog",
    "/catalog/catalog-home",
    "/catalog/catalog-category",
    "/catalog/catalog-favorites",
    "/catalog/catalog-list",
    "/catalog/my-space",
]


@pytest.mark.parametrize("route", TOOLBAR_ROUTES)
def test_catalog_routes_serve_the_preferences_panel_after_the_shell(client, route):
    names = sheet_names(client, route)
    assert names.index("preferences") == names.index("catalog") + 1  # before the page's sheet, which may adapt it


def test_the_catalog_route_serves_every_catalog_pages_sheets(client):
    """`/styles/catalog` is the whole catalog (its home's planner entry included): a retailer linking it alone
    styles every catalog page; the per-page routes narrow it, in the same order."""
    catalog = sheet_names(client, "/catalog")
    for route in TOOLBAR_ROUTES[1:]:
        page_sheets = sheet_names(client, route)
        assert set(page_sheets) <= set(catalog), route
        assert sorted(page_sheets, key=catalog.index) == page_sheets, route
    assert len(catalog) == len(set(catalog))


def test_catalog_routes_serve_the_sheets_of_their_pages(client):
    my_space = sheet_names(client, "/catalog/my-space")
    assert my_space.index("basket-preview") == my_space.index("my-space") + 1
    category = sheet_names(client, "/catalog/catalog-category")
    assert category.index("catalog-list") < category.index("catalog-category")  # its recipe-type chips
    assert not {"preferences", "basket-preview"} & set(sheet_names(client, "/planner"))
    combined = sheet_names(client, "")
    assert {"preferences", "basket-preview"} <= set(combined) and len(combined) == len(set(combined))


# --- the catalog templates against the sheets and the contract ------------------------------------------

# Classes on purpose without a rule of their own (docs/styles.md says so): the page name of the category root,
# and the modifiers that mirror the my-space tab for the retailer.
CATALOG_HOOKS = {
    "svc-catalog-category",
    "svc-my-space--favorites",
    "svc-my-space--history",
    "svc-my-space__panel--favorites",
}


def template_classes(text: str) -> set[str]:
    """The `svc-` classes a template can write: its class attributes, with the values of the Jinja expressions
    and variables that build them (quoted literals, `svc-my-space--{{ page.tab }}` for both tabs)."""
    names: set[str] = set()
    for value in re.findall(r'class="([^"]*)"', text):
        literal = re.sub(r"\{[{%].*?[%}]\}", " ", value)
        names.update(name for name in literal.split() if name.startswith("svc-") and not name.endswith(("-", "_")))
        for prefix in re.findall(r"(svc-[\w-]+)\{\{ page\.tab \}\}", value):
            names.update(f"{prefix}{tab}" for tab in ("favorites", "history"))
    for literal in re.findall(r"['\"](svc-[\w-]+(?: svc-[\w-]+)*)['\"]", text):
        names.update(literal.split())
    return names


def catalog_css() -> str:
    routes = [names for route, names in STYLE_BUNDLES.items() if route.startswith("catalog")]
    sheets = {"base"} | {name for names in routes for name in names}
    return "".join((CSS_DIR / f"{name}.css").read_text(encoding="utf-8") for name in sorted(sheets))


def documented(name: str) -> bool:
    """By its full name, or by its BEM part after the block (`__x`, `--x`), the tables' shorthand."""
    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", STYLES_DOC):
        return True
    cut = name.find("__") if "__" in name else name.find("--")
    return cut > 0 and f"`{name[cut:]}`" in STYLES_DOC


@pytest.mark.parametrize("template", sorted(path.name for path in CATALOG_TEMPLATES.glob("*.html")))
def test_every_class_of_the_catalog_templates_is_styled_and_documented(template):
    classes = template_classes((CATALOG_TEMPLATES / template).read_text(encoding="utf-8"))
    css = catalog_css()
    unstyled = sorted(name for name in classes - CATALOG_HOOKS if not re.search(rf"\.{re.escape(name)}(?![\w-])", css))
    assert not unstyled, f"classes without a rule in the catalog routes' sheets: {unstyled}"
    undocumented = sorted(name for name in classes if not documented(name))
    assert not undocumented, f"classes missing from docs/styles.md: {undocumented}"


# --- conventions (docs/styles.md, section 2) --------------------------------------------------------------

SHEETS = sorted(CSS_DIR.glob("*.css"))


def css_blocks(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each block's prelude (a selector list or an at-rule) with the preludes it is nested in."""
    blocks, stack, prelude = [], [], ""
    for char in re.sub(r"/\*.*?\*/", "", text, flags=re.S):
        if char == "{":
            blocks.append((prelude.strip(), tuple(stack)))
            stack.append(prelude.strip())
            prelude = ""
        elif char == "}":
            stack.pop()
            prelude = ""
        elif char == ";":
            if prelude.strip().startswith("@"):
                blocks.append((prelude.strip(), tuple(stack)))
            prelude = ""
        else:
            prelude += char
    return blocks


def selectors(prelude: str) -> list[str]:
    """A selector list split on its top-level commas (not those inside :is(), :not(), :has()…)."""
    parts, depth, current = [], 0, ""
    for char in prelude:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda path: path.name)
def test_no_selector_list_mixes_has_with_selectors_that_need_no_has(sheet):
    """A browser at the support floor (docs/styles.md, "Browsers") drops a whole selector list with one selector it
    cannot parse: a `:has()` selector (Firefox before 121) never shares a list with selectors that style what such a
    browser must still show."""
    mixed = []
    for prelude, _parents in css_blocks(sheet.read_text(encoding="utf-8")):
        listed = [] if prelude.startswith("@") else selectors(prelude)
        with_has = [selector for selector in listed if ":has(" in selector]
        if with_has and len(with_has) != len(listed):
            mixed.append(prelude)
    assert mixed == [], f"{sheet.name}: split these lists (a rule of its own for the :has() selectors)"


# The one rule of ours that reaches the host's own elements: printed with our drawer open, the rest of the page's
# body is left out, over the host's own display rules (docs/styles.md, "Print").
PRINT_HOST_RULE = ":root body:has(> .svc-drawer[open]) > :not(.svc-drawer)"
# The SDK's scroll lock, on the host's <html> by default (or on the scroll element the page names).
SCROLL_LOCK = ":root.svc-scroll-lock"


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda path: path.name)
def test_every_sheet_follows_the_conventions(sheet):
    text = sheet.read_text(encoding="utf-8")
    code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for prelude, parents in css_blocks(text):
        assert not prelude.startswith("@import"), prelude
        if prelude.startswith("@keyframes"):
            assert prelude.split()[1].startswith("svc-"), prelude
        if prelude.startswith("@") or any(parent.startswith("@keyframes") for parent in parents):
            continue
        # Every rule starts from `:root`, one class above a host's rules of one class or attribute, then from a class
        # of ours (docs/styles.md, "Conventions"); the tokens are declared on `:root` alone, in base.css.
        for selector in selectors(prelude):
            allowed = (
                (sheet.name == "base.css" and selector == ":root")
                or (sheet.name == "drawer.css" and selector == PRINT_HOST_RULE and parents == ("@media print",))
                or selector.startswith(SCROLL_LOCK)
            )
            assert selector.startswith(":root .svc-") or allowed, selector
    assert "url(" not in code and not re.search(r"\d(?:\.\d+)?rem\b", code)
    exception = {"base.css": ":root .svc-ds-visually-hidden {", "drawer.css": f"{PRINT_HOST_RULE} {{"}.get(sheet.name)
    if exception:  # the one rule of the sheet that must win over a host's (or a screen reader's view of it)
        rule = code[code.index(exception) :]
        code = code.replace(rule[: rule.index("}")], "")
    assert "!important" not in code
    if re.search(r"\b(?:transition|animation)\s*:", code):
        assert "prefers-reduced-motion: reduce" in code
    # A component's width is its container's (container queries); only the overlays fill the viewport. A height query
    # is the viewport's too: the overlays', and the planner's footers that stick to the viewport's bottom.
    overlays = {"drawer.css", "planner-onboarding.css", "preferences.css"}
    widths = re.findall(r"@media[^{]*\((?:min|max)-width", code)
    assert not widths or sheet.name in overlays, widths
    heights = re.findall(r"@media[^{]*\((?:min|max)-height", code)
    assert not heights or sheet.name in {*overlays, "planner.css"}, heights


def _luminance(colour: str) -> float:
    """WCAG's relative luminance of a #rrggbb colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(one: str, other: str) -> float:
    lighter, darker = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_control_boundaries_are_visible_on_every_surface_of_the_palette():
    """The border of a field, a stepper or a select (`--svc-color-border-strong`) is at least 3:1 against the white
    surface and the tinted one the components put controls on (WCAG 1.4.11): 2.91:1 on the tint before."""
    base = (CSS_DIR / "base.css").read_text(encoding="utf-8")
    tokens = dict(re.findall(r"--svc-color-([a-z-]+):\s*(#[0-9a-f]{6})\b", base))
    for surface in ("surface", "surface-alt"):
        assert _contrast(tokens["border-strong"], tokens[surface]) >= 3, surface

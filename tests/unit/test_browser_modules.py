"""The browser modules can be followed by reading them: every import names its module as a literal, and every
module of prerender/static/ is reached that way from the scripts the fragments carry; `import()`, which ESLint's
no-restricted-imports does not see, loads only what docs/architecture.md ("The browser modules") allows."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

from prerender.blueprints.bootstrap import SDK_MODULES
from prerender.gateway.baskets import EMPTY_BASKET
from prerender.rendering.assets import SOURCE_DIR
from prerender.rendering.cards import CARD_MODULES
from prerender.rendering.catalog import CATALOG_MODULES
from prerender.rendering.cta import CTA_MODULES
from prerender.rendering.current_menu import PAGE_MODULES
from prerender.rendering.planner import ENTRY_MODULES

ROOT = Path(__file__).resolve().parents[2]
# `import ... from "x"`, `import "x"`, `export ... from "x"` and `import("x")`, with the specifier as written.
STATIC_IMPORT = re.compile(r'^(?:import|export) (?:[^;"]*? from )?"(?P<path>[^"]+)";', re.MULTILINE)
LITERAL_DYNAMIC_IMPORT = re.compile(r"""\bimport\((?P<quote>["'])(?P<path>[^"'\n]+)(?P=quote)\)""")
# Any dynamic import, literal or not (`import(` not preceded by a name character or a dot: not `typeof import(`
# in a JSDoc type, which is a comment).
ANY_DYNAMIC_IMPORT = re.compile(r"(?<![\w.$])import\(")


def modules() -> dict[str, str]:
    return {path.relative_to(SOURCE_DIR).as_posix(): path.read_text() for path in sorted(SOURCE_DIR.rglob("*.js"))}


def code_of(source: str) -> str:
    """The source without its comments (JSDoc types name modules with `import("...")` too), its lines in place."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda comment: "\n" * comment[0].count("\n"), source, flags=re.DOTALL)


def dynamic_imports_of(code: str) -> list[tuple[int, str | None]]:
    """(line, specifier) of each `import()` of a module's code; the specifier None when it is not one literal."""
    found = []
    for match in ANY_DYNAMIC_IMPORT.finditer(code):
        literal = LITERAL_DYNAMIC_IMPORT.match(code, match.start())
        found.append((code.count("\n", 0, match.start()) + 1, literal["path"] if literal else None))
    return found


def resolved(module: str, specifier: str) -> str:
    parts: list[str] = []
    for part in (PurePosixPath(module).parent / specifier).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def test_every_import_names_its_module_as_a_literal():
    """ESLint refuses a non-literal `import()` too (eslint.config.js); this is the rule the graph below relies on."""
    unnamed = [
        f"{name}:{line}"
        for name, source in modules().items()
        for line, specifier in dynamic_imports_of(code_of(source))
        if specifier is None
    ]
    assert unnamed == []


def test_every_module_is_reached_from_the_fragments_scripts():
    sources = modules()
    entries = {*SDK_MODULES, *CARD_MODULES, *CTA_MODULES, *PAGE_MODULES, *CATALOG_MODULES, *ENTRY_MODULES}
    reached: set[str] = set()
    pending = sorted(entries)
    while pending:
        module = pending.pop()
        if module in reached:
            continue
        reached.add(module)
        code = code_of(sources[module])
        for match in [*STATIC_IMPORT.finditer(code), *LITERAL_DYNAMIC_IMPORT.finditer(code)]:
            target = resolved(module, match["path"])
            assert target in sources, f"{module} imports {match['path']}, which is not a module of the tree"
            pending.append(target)
    assert set(sources) - reached == set()


def test_components_reach_the_sdk_through_its_one_module():
    """The release tree has one SDK module, sdk/svc.js (the others are bundled into it: tools/build_static.mjs),
    so a component importing any other file of sdk/ would work from the readable tree only."""
    for name, targets in component_imports().items():
        assert [t for t in targets if t.startswith("sdk/") and t != "sdk/svc.js"] == [], name


def test_a_components_parts_are_its_own():
    """A component's private parts (components/<name>/*.js) are bundled into components/<name>.js in the release
    tree (tools/build_static.mjs): only that component and its other parts import them, or another component
    would carry a second copy."""
    for name, targets in component_imports().items():
        owner = name.removeprefix("components/").removesuffix(".js").split("/")[0]
        for target in targets:
            part_of = PurePosixPath(target).parts[1] if len(PurePosixPath(target).parts) == 3 else None
            assert part_of in (None, owner), f"{name} imports {target}, a part of components/{part_of}.js"


def component_imports() -> dict[str, list[str]]:
    """Each component module's imports (static and dynamic), resolved to paths of the tree."""
    found = {}
    for name, source in modules().items():
        if name.startswith("components/"):
            code = code_of(source)
            matches = (*STATIC_IMPORT.finditer(code), *LITERAL_DYNAMIC_IMPORT.finditer(code))
            found[name] = [resolved(name, m["path"]) for m in matches]
    return found


# What the SDK loads at run time (sdk/svc.js: the drawer, when it first opens), as written: the only `import()` of
# sdk/, since the SDK imports nothing else outside it (tools/build_static.mjs keeps this one out of its bundle).
SDK_RUN_TIME_IMPORTS = {"../components/drawer.js"}


def dynamic_imports() -> dict[str, list[str]]:
    """Each module's literal `import()` specifiers, as written (a non-literal one fails the test above)."""
    return {
        name: [specifier for _, specifier in dynamic_imports_of(code_of(source)) if specifier is not None]
        for name, source in modules().items()
    }


def test_no_part_reads_its_own_url():
    """A part's `import.meta.url` is its own in the readable tree but its component's, one folder up, once bundled
    into it (tools/build_static.mjs): a URL built from it would point elsewhere in one of the two trees. A part
    takes such URLs from its component (the drawer's preview part its sheets' folder, components/drawer.js)."""
    for name, source in modules().items():
        if name.startswith("components/") and name.count("/") == 2:
            assert "import.meta" not in code_of(source), name


def test_what_modules_load_at_run_time():
    """ESLint's no-restricted-imports does not see `import()` calls: the SDK loads nothing at run time but the
    drawer, and a component (or one of its parts) loads other components only (the drawer's transfer panel and
    its preview's catalog, the planner entry's onboarding), never a part or an SDK file."""
    found = dynamic_imports()
    assert set(found["sdk/svc.js"]) == SDK_RUN_TIME_IMPORTS  # the scan sees them
    for name, specifiers in found.items():
        if name.startswith("sdk/"):
            assert set(specifiers) <= SDK_RUN_TIME_IMPORTS, name
        else:
            assert name.startswith("components/"), name
            outside = [s for s in specifiers if PurePosixPath(resolved(name, s)).parent.as_posix() != "components"]
            assert outside == [], name


def test_the_sdk_s_empty_basket_is_the_service_s():
    """The browser's basket before any answer (sdk/basket.js `emptyBasket`) has the members and values of the
    empty basket `GET /basket` answers without a store (prerender/blueprints/basket.py)."""
    node = shutil.which("node")
    assert node, "node is needed (make install)"
    script = "import('./prerender/static/sdk/basket.js').then((m) => console.log(JSON.stringify(m.emptyBasket(null))))"
    printed = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert json.loads(printed) == EMPTY_BASKET


# The forwarded routes' paths (prerender/blueprints/basket.py, payments.py, transfers.py, menu.py), each written
# once, in the SDK's module of its calls (docs/architecture.md, "Adding a forwarded route").
ROUTES_MODULES = {"sdk/basket-routes.js", "sdk/menu-routes.js"}
FORWARDED_PATH = re.compile(r"""["'`]/(?:basket|baskets|menu)(?:[/"'`?$])""")


def test_the_basket_and_menu_paths_are_written_in_their_routes_modules_only():
    """A component or SDK module writing a basket or menu path itself bypasses the one method of its call (the
    planner's page and the catalog wrote the menu's paths themselves while the docs said otherwise)."""
    written = [
        f"{name}:{code.count(chr(10), 0, match.start()) + 1}: {match[0]}"
        for name, source in modules().items()
        if name not in ROUTES_MODULES
        for code in [code_of(source)]
        for match in FORWARDED_PATH.finditer(code)
    ]
    assert written == []

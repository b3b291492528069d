"""The release tree `make static` writes (tools/build_static.mjs) is the one served, is up to date with the
readable modules, and is whole: every module parses, every module URL a fragment or a module names is in it, and
every file has its gzip and brotli siblings."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from prerender.blueprints.bootstrap import SDK_MODULES
from prerender.rendering.assets import BUILD_DIR, EAGER_IMPORTS, ENCODINGS, SOURCE_DIR, read_tree, served_tree
from prerender.rendering.cards import CARD_MODULES
from prerender.rendering.catalog import CATALOG_MODULES
from prerender.rendering.cta import CTA_MODULES
from prerender.rendering.current_menu import PAGE_MODULES
from prerender.rendering.planner import ENTRY_MODULES
from prerender.rendering.stylesheets import all_sheets

# A module's import of another, static or loaded when needed, as esbuild leaves it, minified:
# `from"./ui.js"`, `import("../components/drawer.js")`.
RUNTIME_IMPORT = re.compile(r'(?:\bfrom\s*|\bimport\()"(?P<path>\.{1,2}/[./a-z-]+\.js)"')


@pytest.fixture(scope="module")
def release() -> Path:
    tree = served_tree(SOURCE_DIR, BUILD_DIR)
    assert tree.root == BUILD_DIR, "no release tree built from the current sources: run `make static`"
    return BUILD_DIR


def test_the_release_tree_has_the_readable_tree_s_components_and_sheets_and_the_sdk_in_one_module(release: Path):
    sources, built = read_tree(SOURCE_DIR).files, read_tree(release).files
    # A component's parts (components/<name>/*.js) are inside it, as the SDK's modules are inside svc.js.
    parts = {name for name in sources if name.startswith("components/") and name.count("/") > 1}
    assert parts, "no component in parts: this check would see nothing"
    assert built == {name for name in sources if not name.startswith("sdk/")} - parts | {"sdk/svc.js"}
    svc = (release / "sdk" / "svc.js").read_text()
    assert not re.search(r"""\bfrom\s*["']""", svc), "svc.js still imports modules statically"
    readable = sum(len(path.read_text()) for path in (SOURCE_DIR / "sdk").glob("*.js"))
    assert len(svc) < readable / 2  # minified


def test_every_file_has_its_compressed_siblings(release: Path):
    tree = read_tree(release)
    for name in tree.files:
        assert tree.encodings[name] == tuple(ENCODINGS), name
        content = (release / name).read_bytes()
        assert gzip.decompress((release / f"{name}.gz").read_bytes()) == content, name
        assert 0 < (release / f"{name}.br").stat().st_size < len(content), name


def test_every_module_parses_as_an_es_module(release: Path, tmp_path: Path):
    node = shutil.which("node")
    assert node, "node is needed to build and check the browser modules (make static)"
    for name in sorted(n for n in read_tree(release).files if n.endswith(".js")):
        copy = tmp_path / name.replace("/", "_").replace(".js", ".mjs")  # .mjs: node reads it as a module
        copy.write_bytes((release / name).read_bytes())
        checked = subprocess.run([node, "--check", str(copy)], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, f"{name}: {checked.stderr}"


def test_every_module_url_named_by_a_fragment_or_a_module_is_in_the_release_tree(release: Path):
    files = read_tree(release).files
    scripts = {*SDK_MODULES, *CARD_MODULES, *CTA_MODULES, *CATALOG_MODULES, *ENTRY_MODULES, *PAGE_MODULES}
    preloads = {name for imports in EAGER_IMPORTS.values() for name in imports}
    sheets = {f"css/{sheet}.css" for sheet in all_sheets()}
    imported = set()
    for name in (n for n in files if n.endswith(".js")):
        for match in RUNTIME_IMPORT.finditer((release / name).read_text()):
            path = PurePosixPath(name).parent / match["path"]
            imported.add(str(PurePosixPath(*_normalized(path.parts))))
    assert imported >= {"components/ui.js", "components/drawer.js", "sdk/svc.js"}, imported
    assert scripts | preloads | set(EAGER_IMPORTS) | sheets | imported <= files


def _normalized(parts: tuple[str, ...]) -> list[str]:
    """`components/../sdk/svc.js` -> `sdk/svc.js` (PurePosixPath keeps `..`)."""
    result: list[str] = []
    for part in parts:
        if part == "..":
            result.pop()
        elif part != ".":
            result.append(part)
    return result

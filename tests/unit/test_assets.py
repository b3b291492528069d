"""Which static tree prerender serves (prerender/rendering/assets.py): the release tree while it was built from the
current sources, the readable sources otherwise; the build id of the served tree; the precompressed siblings and
the digest file are not files of their own; the modules a fragment preloads."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import pytest
from flask import Flask

from prerender import create_app
from prerender.rendering.assets import (
    DIGEST_FILE,
    EAGER_IMPORTS,
    SOURCE_DIR,
    AssetManifest,
    eager_imports,
    read_tree,
    served_tree,
    tree_digest,
)
from prerender.rendering.cards import CARD_MODULES
from prerender.rendering.planner import ENTRY_MODULES

# A module's static imports: `import { a, b } from "./x.js";` (the dynamic `import("./x.js")` of a module loaded
# when first needed is not one).
TOP_LEVEL_IMPORT = re.compile(r'^import [^;]*? from "(?P<path>[./a-z-]+\.js)";', re.MULTILINE)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    return write(tmp_path / "static", {"sdk/svc.js": "export const a = 1;\n", "css/base.css": "a { color: red }\n"})


def release(root: Path, sources: Path, *, digest: str | None = None) -> Path:
    """A release tree of `sources` as tools/build_static.mjs writes one (the siblings' bytes do not matter here)."""
    write(
        root,
        {
            "sdk/svc.js": "export const a=1;",
            "sdk/svc.js.gz": "gzip bytes",
            "sdk/svc.js.br": "brotli bytes",
            "css/base.css": "a{color:red}",
            "css/base.css.gz": "gzip bytes",
        },
    )
    (root / DIGEST_FILE).write_text(f"{digest or read_tree(sources).digest}\n")
    return root


def test_a_release_tree_built_from_the_current_sources_is_served(
    sources: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    build = release(tmp_path / "static_build", sources)
    tree = served_tree(sources, build)
    assert tree.root == build and not caplog.records
    assert tree.files == {"sdk/svc.js", "css/base.css"}  # neither the siblings nor the digest file
    assert tree.encodings == {"sdk/svc.js": ("br", "gzip"), "css/base.css": ("gzip",)}
    # The build id is the served tree's, its variants included: another build of the same sources is a new URL.
    served = ("css/base.css", "css/base.css.gz", "sdk/svc.js", "sdk/svc.js.br", "sdk/svc.js.gz")
    assert tree.build_id == tree_digest(build, served)[:12] != read_tree(sources).build_id


def test_the_recorded_digest_is_the_sources_digest_as_the_build_script_writes_it(sources: Path):
    """SHA-256 of each file's relative name, a NUL, its bytes, in name order (tools/build_static.mjs)."""
    expected = hashlib.sha256(b"css/base.css\0a { color: red }\nsdk/svc.js\0export const a = 1;\n").hexdigest()
    assert read_tree(sources).digest == expected


@pytest.mark.parametrize("case", ["stale", "absent"])
def test_without_a_fresh_release_tree_the_sources_are_served_with_one_warning(
    sources: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, case: str
):
    build = tmp_path / "static_build"
    if case == "stale":
        release(build, sources, digest="0" * 64)
    caplog.set_level(logging.WARNING, logger="prerender.rendering.assets")
    tree = served_tree(sources, build)
    assert tree.root == sources and tree.files == {"sdk/svc.js", "css/base.css"} and tree.encodings == {}
    assert tree.build_id == read_tree(sources).digest[:12]
    assert served_tree(sources, build) is tree  # once per process: one warning
    (warning,) = caplog.records
    assert warning.levelno == logging.WARNING and "make static" in warning.getMessage()


def test_a_source_changed_after_the_build_makes_the_release_tree_stale(tmp_path: Path):
    sources = write(tmp_path / "before", {"sdk/svc.js": "export const a = 1;\n"})
    build = release(tmp_path / "static_build", sources)
    changed = write(tmp_path / "after", {"sdk/svc.js": "export const a = 2;\n"})
    assert served_tree(sources, build).root == build
    assert served_tree(changed, build).root == changed


def test_every_app_of_a_process_shares_one_read_of_the_tree(app_config: dict):
    first, second = (create_app(app_config).extensions["prerender.rendering.assets"] for _ in range(2))
    assert isinstance(first, AssetManifest) and first.tree is second.tree


def test_the_eager_imports_table_is_the_modules_top_level_imports():
    """The imports of each component as the release tree has it: its private parts (`./<name>/x.js`) are
    inside it (tools/build_static.mjs), so they are no import to preload."""
    components = SOURCE_DIR / "components"
    found = {
        f"components/{path.name}": tuple(
            (Path("components") / match["path"]).as_posix().replace("components/../", "")
            for match in TOP_LEVEL_IMPORT.finditer(path.read_text())
            if match["path"].startswith("../") or match["path"].count("/") == 1
        )
        for path in sorted(components.glob("*.js"))
    }
    assert found == EAGER_IMPORTS


def test_a_fragment_preloads_what_its_scripts_import_at_once(app: Flask):
    assert eager_imports(CARD_MODULES) == ("components/ui.js",)  # ui.js's own import, the SDK, is a script
    assert eager_imports(ENTRY_MODULES) == ("components/ui.js",)
    assert eager_imports(("components/drawer.js",)) == (
        "components/ui.js",
        "components/recipe-details.js",
        "sdk/svc.js",
    )
    with app.test_request_context("/", base_url="https://fragments.example"):
        assets = app.extensions["prerender.rendering.assets"]
        urls = assets.module_urls(CARD_MODULES)
    build = assets.build_id
    assert urls.scripts == (
        f"https://fragments.example/static/{build}/sdk/svc.js",
        f"https://fragments.example/static/{build}/components/recipe-card.js",
    )
    assert urls.preloads == (f"https://fragments.example/static/{build}/components/ui.js",)

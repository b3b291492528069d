"""A running process never reads a later release's files (docs/decisions.md): the static files and the templates are
read when the app is made (prerender/rendering/assets.py, prerender/rendering/templates.py), so that an installation
in place (`pip install --force-reinstall` of the next release, before the reload: docs/operations.md, "A new
release") changes nothing a running process serves; in development (debug, TEMPLATES_AUTO_RELOAD) an edit shows.

The app is made from a copy of the package's files (its templates, static/ and static_build/), which the test then
changes as an installation would: the package itself is never touched, and the other tests of the run see nothing.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

import prerender
from prerender import create_app
from prerender.rendering import assets
from prerender.rendering.assets import BUILD_DIR, ENCODINGS, EXTENSION_KEY, PACKAGE_DIR, SOURCE_DIR, AssetManifest
from prerender.rendering.templates import templates_size
from tests.conftest import HEADERS

# What the bootstrap renders (templates/scripts.html) and the one module it links: the release tree's, bundled.
BOOTSTRAP = "/v2/svc-window-bootstrap"
TEMPLATE = "scripts.html"
MODULE = "sdk/svc.js"
NEXT_RELEASE = "the next release"


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the package's files that the apps made in the test read: Flask finds the templates beside the
    package's `__file__`, assets.py the static trees at SOURCE_DIR and BUILD_DIR."""
    assert (BUILD_DIR / MODULE).is_file(), "no release tree: run `make static`"
    copy = tmp_path / "prerender"
    for folder in ("templates", SOURCE_DIR.name, BUILD_DIR.name):
        shutil.copytree(PACKAGE_DIR / folder, copy / folder, copy_function=shutil.copy2)
    monkeypatch.setattr(prerender, "__file__", str(copy / "__init__.py"))
    monkeypatch.setattr(assets, "SOURCE_DIR", copy / SOURCE_DIR.name)
    monkeypatch.setattr(assets, "BUILD_DIR", copy / BUILD_DIR.name)
    yield copy


def install_next_release(package: Path) -> bytes:
    """What `pip install --force-reinstall` of another release does to two of the files: each replaced (a new
    file under the old name), the module's precompressed siblings with it. The next release's module."""
    next_module = f"// {NEXT_RELEASE}\n".encode()
    module = package / BUILD_DIR.name / MODULE
    module.unlink()
    module.write_bytes(next_module)
    (package / BUILD_DIR.name / (MODULE + ENCODINGS["gzip"])).write_bytes(gzip.compress(next_module))
    (package / BUILD_DIR.name / (MODULE + ENCODINGS["br"])).write_bytes(b"brotli of the next release")
    template = package / "templates" / TEMPLATE
    template.unlink()
    template.write_text(f"<p>{NEXT_RELEASE}</p>\n")
    return next_module


def served_from(app: Flask, package: Path) -> AssetManifest:
    manifest: AssetManifest = app.extensions[EXTENSION_KEY]
    assert manifest.root == package / BUILD_DIR.name  # the copy's release tree, not the package's
    return manifest


def test_a_running_app_serves_the_files_it_started_with_after_another_release_is_installed(
    app_config: dict, package: Path
):
    app = create_app(app_config)
    client = app.test_client()
    manifest = served_from(app, package)
    url = f"/static/{manifest.build_id}/{MODULE}"
    before = {coding: client.get(url, headers={"Accept-Encoding": coding}) for coding in ("identity", "gzip", "br")}
    started_with = (package / BUILD_DIR.name / MODULE).read_bytes()

    install_next_release(package)

    # The template is first rendered now, after the installation: from the copy read at start.
    fragment = client.get(BOOTSTRAP, headers=HEADERS)
    assert fragment.status_code == 200 and NEXT_RELEASE not in fragment.text
    assert f'<script type="module" src="http://localhost{url}"></script>' in fragment.text
    for coding, first in before.items():
        again = client.get(url, headers={"Accept-Encoding": coding})
        assert again.status_code == 200 and again.data == first.data, coding
        assert again.headers["ETag"] == first.headers["ETag"], coding
        revalidated = client.get(url, headers={"Accept-Encoding": coding, "If-None-Match": first.headers["ETag"]})
        assert revalidated.status_code == 304, coding
    assert before["identity"].data == started_with
    assert gzip.decompress(before["gzip"].data) == started_with


def test_an_app_made_after_the_installation_serves_the_next_release(app_config: dict, package: Path):
    """The reload's new workers (step 5 of "A new release"): the files as installed, under a new build id."""
    before = served_from(create_app(app_config), package).build_id
    next_module = install_next_release(package)
    assets.served_tree.cache_clear()  # a new process: nothing read yet
    assets.read_tree.cache_clear()
    app = create_app(app_config)
    manifest = served_from(app, package)
    assert manifest.build_id != before
    client = app.test_client()
    assert client.get(f"/static/{manifest.build_id}/{MODULE}").data == next_module
    assert client.get(BOOTSTRAP, headers=HEADERS).text.startswith(f"<p>{NEXT_RELEASE}</p>")


@pytest.mark.parametrize("development", [{"DEBUG": True}, {"TEMPLATES_AUTO_RELOAD": True}])
def test_in_development_an_edit_shows_at_once(app_config: dict, package: Path, development: dict):
    app = create_app({**app_config, **development})
    assert templates_size(app) == 0  # read from disk at each use
    manifest = served_from(app, package)
    next_module = install_next_release(package)
    client = app.test_client()
    assert client.get(f"/static/{manifest.build_id}/{MODULE}").data == next_module
    assert client.get(BOOTSTRAP, headers=HEADERS).text.startswith(f"<p>{NEXT_RELEASE}</p>")


def test_every_template_of_the_package_is_read_at_start(app: Flask):
    """Those of the app's folder and of every blueprint's, as Flask would look them up on disk."""
    on_disk = app.create_global_jinja_loader()
    names = on_disk.list_templates()
    assert TEMPLATE in names and "recipe_card/card.html" in names
    assert sorted(app.jinja_env.list_templates()) == sorted(names)
    assert all(app.jinja_env.loader.get_source(app.jinja_env, name)[0] == on_disk.get_source(app.jinja_env, name)[0]
               for name in names)  # fmt: skip
    assert templates_size(app) == sum(len((PACKAGE_DIR / "templates" / name).read_bytes()) for name in names)

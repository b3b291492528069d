"""A new release installed in place under a running prerender, as docs/operations.md, "A new release", says: a clean
checkout of the next release, its wheels built and installed into the same virtual environment with `pip install
--no-deps --force-reinstall` (step 3), the reload (step 5), the check of `GET /healthz` (step 6).

Between the installation and the reload, the running workers serve the release they started with, whole: its
version, its static files under its build id, and a template first rendered after the installation
(docs/decisions.md, "A running process never reads a later release's files"). After the reload, every worker serves
the next release.

The services are installed and started as in tests/ops/test_production_install.py (its fixtures, for a machine of
this module's own); skipped, with the reason, without nginx or PostgreSQL.
"""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest
import requests

from tests.ops import test_production_install as production
from tests.ops.test_production_install import (
    NOT_RELEASED,
    ROOT,
    Installed,
    Machine,
    doc_blocks,
    outside_environment,
    readme_card_request,
    run_block,
)

# The install's fixtures, for a machine of this module's own.
installed = production.installed
postgres_schema = production.postgres_schema
redis_url = production.redis_url

pytestmark = [pytest.mark.nginx, pytest.mark.postgres]

TIMEOUT = 10
RELOAD_SECONDS = 60
# The next release: another version, one more rule in a stylesheet (hence another static build), and a template
# that writes its mark (templates/scripts.html: the bootstrap's fragment, never rendered before the installation).
NEXT_VERSION = "99.0.0"
STYLESHEET = "css/base.css"
NEXT_RULE = ".svc-next-release{color:red}"
TEMPLATE = "prerender/templates/scripts.html"
NEXT_MARK = "<!-- the next release -->"
BOOTSTRAP = "/v2/svc-window-bootstrap"


def next_release(base: Path) -> Path:
    """A clean checkout (step 1) of this release with the next one's changes."""
    release = base / "next-release"
    shutil.copytree(ROOT, release, ignore=NOT_RELEASED)
    setup = release / "setup.cfg"
    text = setup.read_text()
    assert "\nversion = " in text
    setup.write_text("\n".join(f"version = {NEXT_VERSION}" if line.startswith("version = ") else line
                               for line in text.split("\n")))  # fmt: skip
    stylesheet = release / "prerender" / "static" / STYLESHEET
    stylesheet.write_text(stylesheet.read_text() + f"\n{NEXT_RULE}\n")
    template = release / TEMPLATE
    template.write_text(template.read_text() + f"{NEXT_MARK}\n")
    return release


def install_in_place(installed: Installed, release: Path) -> None:
    """Step 3: the doc's block of prerender's install, again into the same folders, reinstalling."""
    block = doc_blocks()["prerender"]
    assert "/opt/prerender/bin/pip install --no-deps " in block
    block = block.replace(
        "/opt/prerender/bin/pip install --no-deps ", "/opt/prerender/bin/pip install --no-deps --force-reinstall "
    )
    run_block(Machine(installed.machine.root, release), block, outside_environment())


def health(url: str) -> dict:
    answer = requests.get(f"{url}/healthz", timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return answer.json()["version"]


def stylesheet(url: str, build: str, encodings: str = "br, gzip") -> requests.Response:
    """The stylesheet as a browser asks (compressed: the precompressed sibling's bytes), or as it is."""
    return requests.get(f"{url}/static/{build}/{STYLESHEET}", headers={"Accept-Encoding": encodings}, timeout=TIMEOUT)


def bootstrap(url: str) -> requests.Response:
    _, headers = readme_card_request()
    answer = requests.get(f"{url}{BOOTSTRAP}", headers=headers, timeout=TIMEOUT)
    assert answer.status_code == 200, answer.text
    return answer


def test_the_running_workers_serve_their_release_until_the_reload(installed: Installed, tmp_path: Path) -> None:
    url = installed.prerender.url
    started = health(url)
    build = started["static_build"]
    before = stylesheet(url, build)
    assert before.status_code == 200 and before.headers["Content-Encoding"] in ("br", "gzip")
    assert NEXT_RULE not in stylesheet(url, build, "identity").text.replace(" ", "")

    install_in_place(installed, next_release(tmp_path))
    (site,) = installed.machine.path("/opt/prerender/lib").glob("python3*/site-packages")
    assert NEXT_MARK in (site / TEMPLATE).read_text()  # the next release is on disk

    # Each of a few requests goes to either worker: all of them still serve the release they started with.
    for _ in range(8):
        assert health(url) == started
        again = stylesheet(url, build)
        assert again.status_code == 200 and again.content == before.content
        assert again.headers["ETag"] == before.headers["ETag"]
        fragment = bootstrap(url)
        assert NEXT_MARK not in fragment.text and f"/static/{build}/" in fragment.text

    # Step 5: the reload starts workers on the next release and retires the old ones.
    installed.prerender.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + RELOAD_SECONDS
    while [health(url)["package"] for _ in range(8)] != [NEXT_VERSION] * 8:
        assert time.monotonic() < deadline, f"still {health(url)} after the reload"
        time.sleep(0.2)
    moved = health(url)["static_build"]
    assert moved != build
    assert NEXT_RULE in stylesheet(url, moved, "identity").text.replace(" ", "")
    assert bootstrap(url).text.rstrip().endswith(NEXT_MARK)
    assert stylesheet(url, build).status_code == 404  # the previous release's files are nginx's to keep

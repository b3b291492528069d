"""A rolling deploy behind deploy/nginx/prerender.conf: one node already on the next release, the other still on
this one, both under gunicorn with gunicorn.conf.py, nginx in front as shipped.

Each release serves its own static files only (`/static/<build id>/...`, another build id is a 404:
prerender/blueprints/static_files.py). A page made by either node links its own release's modules, and nginx
sends each request to either node: without help, about half of a page's module requests found the other release
and failed (404), and the page's components stayed as the server wrote them. nginx now asks the other node when
one answers 404 for a static file, and keeps what it got until nobody has asked for it for 24 h: the previous
release's files stay available from its cache once every node has moved on, for the pages and open tabs that still
link them.
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bench.nginx import NginxFront
from prerender.rendering.assets import BUILD_DIR, ENCODINGS, SOURCE_DIR, served_tree
from tests.integration.conftest import headers, live_browser_headers
from tests.live import Stack

from .conftest import ROOT, GunicornPrerender

pytestmark = pytest.mark.nginx

TIMEOUT = 10
# What a release is made of, as a deploy brings it (the packages, the WSGI entry point, gunicorn's settings).
RELEASE = ("prerender", "plumbing", "wsgi.py", "gunicorn.conf.py")
# The file the next release changes (any served file changes the build id: prerender/rendering/assets.py).
CHANGED = "components/ui.js"
NEXT_RELEASE_MARK = b"\n// the next release\n"
BUILD_IN_LINK = re.compile(r"/static/([0-9a-f]{12})/")


@pytest.fixture
def next_release(tmp_path: Path) -> Path:
    """A copy of this release whose served static tree differs in one file: the next release's build."""
    release = tmp_path / "next-release"
    release.mkdir()
    for name in RELEASE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, release / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, release / name)
    served = served_tree(SOURCE_DIR, BUILD_DIR).root
    changed = release / served.relative_to(ROOT) / CHANGED
    changed.write_bytes(changed.read_bytes() + NEXT_RELEASE_MARK)
    for suffix in ENCODINGS.values():  # its compressed copies would be the old file's
        changed.with_name(changed.name + suffix).unlink(missing_ok=True)
    return release


@pytest.fixture
def two_releases(
    nginx_binary: str, coreapi_url: str, stack: Stack, tmp_path: Path, next_release: Path
) -> Iterator[tuple[NginxFront, GunicornPrerender, GunicornPrerender]]:
    """nginx in front of a node of this release and a node of the next one, one worker each."""
    with (
        GunicornPrerender(tmp_path / "this", coreapi_url, stack, workers=1) as this_node,
        GunicornPrerender(tmp_path / "next", coreapi_url, stack, workers=1, release=next_release) as next_node,
        NginxFront(nginx_binary, tmp_path / "nginx", this_node.url, next_node.url) as front,
    ):
        yield front, this_node, next_node


def build_of(node: GunicornPrerender) -> str:
    """The build id a node's fragments link (its stylesheet links)."""
    answer = requests.get(f"{node.url}/v1/styles/recipe-card", headers=headers(), timeout=TIMEOUT)
    answer.raise_for_status()
    builds = set(BUILD_IN_LINK.findall(answer.text))
    assert len(builds) == 1, builds
    return builds.pop()


def basket_status(node: GunicornPrerender, *, credential_of: GunicornPrerender) -> int:
    """A new shopper's basket read on `node` with a credential the other node issued."""
    browser = live_browser_headers(credential_of.url, user=f"rolling-{uuid.uuid4().hex[:12]}")
    return requests.get(f"{node.url}/v1/basket?store_id=1001", headers=browser, timeout=TIMEOUT).status_code


def module_and_style_names() -> list[str]:
    return sorted(name for name in served_tree(SOURCE_DIR, BUILD_DIR).files if name.endswith((".js", ".css")))


def fetch_all(front: NginxFront, build: str, names: list[str]) -> dict[str, requests.Response]:
    # As a browser asks (compressed), each file once: the first request of a URL is the one nginx sends to a node.
    return {
        name: requests.get(
            f"{front.url}/static/{build}/{name}", headers={"Accept-Encoding": "br, gzip"}, timeout=TIMEOUT
        )
        for name in names
    }


def test_during_a_rolling_deploy_every_page_gets_the_static_files_of_its_own_release(two_releases):
    front, this_node, next_node = two_releases
    this_build, next_build = build_of(this_node), build_of(next_node)
    assert this_build != next_build
    # Two releases of one deployment: a shopper's credential from either node acts on the other.
    assert basket_status(this_node, credential_of=next_node) == 200
    assert basket_status(next_node, credential_of=this_node) == 200
    names = module_and_style_names()
    assert CHANGED in names and len(names) > 5

    for build, release in ((this_build, "this"), (next_build, "next")):
        answers = fetch_all(front, build, names)
        failed = {name: answer.status_code for name, answer in answers.items() if answer.status_code != 200}
        assert not failed, f"{release} release's files refused: {failed}"
        # Each from its own release: the changed module as that release has it.
        assert answers[CHANGED].content.endswith(NEXT_RELEASE_MARK) == (release == "next")

    # A file neither release has is still a 404 (both asked), in prerender's error shape.
    missing = requests.get(f"{front.url}/static/{next_build}/components/no-such-module.js", timeout=TIMEOUT)
    assert missing.status_code == 404 and missing.headers["Content-Type"] == "application/problem+json"


def test_after_the_deploy_the_previous_releases_files_stay_in_nginxs_cache(two_releases):
    front, this_node, _next_node = two_releases
    this_build = build_of(this_node)
    names = module_and_style_names()
    assert all(answer.status_code == 200 for answer in fetch_all(front, this_build, names).values())

    this_node.stop()  # every node is on the next release now
    again = fetch_all(front, this_build, names)
    assert {answer.status_code for answer in again.values()} == {200}
    assert {answer.headers["X-Cache-Status"] for answer in again.values()} == {"HIT"}

"""examples/nginx-ssi for real: Debian's nginx runs the shipped configuration (prerender-ssi.conf, its EDIT values
replaced by free ports and this checkout's paths) and composes the page (site/index.html) from the live prerender's
fragments with server-side includes; then the same page with prerender down and with prerender too slow, and the
page in Chromium. Skipped only where nginx is not installed (.ci/run installs it)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from bs4 import BeautifulSoup, Tag
from playwright.sync_api import Page, expect

from bench.nginx import NginxFront, find_nginx
from tests.conftest import closed_port

from .conftest import LivePrerender, assert_headings_in_order

pytestmark = pytest.mark.nginx

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nginx-ssi"
SHIPPED_CONFIG = EXAMPLE / "prerender-ssi.conf"
SITE = EXAMPLE / "site"


def render_config(*, port: int, prerender: str, supplier_token: str) -> str:
    """The shipped file with its EDIT values replaced; each must be there exactly once, so a change to the file
    that the test would silently miss fails here instead."""
    text = SHIPPED_CONFIG.read_text()
    replacements = [
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("root /var/www/prerender-ssi;", f"root {SITE};"),
        ("proxy_pass http://127.0.0.1:8000/;", f"proxy_pass http://{prerender}/;"),
        ("proxy_pass http://127.0.0.1:8000/v1/styles/;", f"proxy_pass http://{prerender}/v1/styles/;"),
        (
            'proxy_set_header supplier-token "demo-retailer-token";',
            f'proxy_set_header supplier-token "{supplier_token}";',
        ),
    ]
    for old, new in replacements:
        if text.count(old) != 1:
            raise RuntimeError(f"{SHIPPED_CONFIG}: expected {old!r} exactly once")
        text = text.replace(old, new)
    return text


class SsiFront(NginxFront):
    """nginx with examples/nginx-ssi/prerender-ssi.conf in front of one prerender."""

    def __init__(self, binary: str, prefix: Path, prerender_url: str, supplier_token: str) -> None:
        super().__init__(binary, prefix, prerender_url)
        self.supplier_token = supplier_token

    def site_config(self) -> str:
        return render_config(port=self.port, prerender=self.upstreams[0], supplier_token=self.supplier_token)


@pytest.fixture(scope="session")
def nginx() -> str:
    found = find_nginx()
    if found is None:
        pytest.skip("nginx is not installed: install Debian's nginx package (.ci/run does)")
    return found


@pytest.fixture
def front(nginx: str, tmp_path: Path, live_prerender: LivePrerender) -> Iterator[SsiFront]:
    with SsiFront(nginx, tmp_path, live_prerender.url, live_prerender.supplier_token) as server:
        yield server


def parse(html: str) -> BeautifulSoup:
    """As a browser parses it (html5lib)."""
    assert html.lstrip().startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>"), html[:300]
    return BeautifulSoup(html, "html5lib")


def product_ids(soup: BeautifulSoup) -> list[str]:
    return [str(item["data-product-id"]) for item in soup.select("ul.shelf > li.product")]


def assert_page_shell(soup: BeautifulSoup, html: str, supplier_token: str) -> None:
    """The page's own markup is all there, no SSI directive or error text is left, and no token."""
    assert soup.find("h1") is not None and product_ids(soup) == ["100001", "100002", "100010"]
    assert "<!--#" not in html and "an error occurred" not in html
    assert supplier_token not in html


def test_the_page_is_composed_from_the_live_fragments(front: SsiFront, live_prerender: LivePrerender) -> None:
    with requests.Session() as browser:
        first = browser.get(f"{front.url}/", timeout=30)
        second = browser.get(f"{front.url}/", timeout=30)

    for answer in (first, second):
        assert answer.status_code == 200, front.logs()
        assert answer.headers["Content-Type"].startswith("text/html")
        assert answer.headers["Cache-Control"] == "private, no-store"
    authless_id = browser.cookies["svc_authless"]
    assert authless_id.startswith("ssi-") and "svc_session" in browser.cookies
    assert "svc_authless" not in second.headers.get("Set-Cookie", "")  # the second view keeps the visitor

    for answer in (first, second):
        soup = parse(answer.text)
        assert_page_shell(soup, answer.text, live_prerender.supplier_token)
        head, body = soup.head, soup.body
        assert isinstance(head, Tag) and isinstance(body, Tag)
        # The styles' JSON became its link tags, in <head>.
        links = {str(link["href"]) for link in head.find_all("link", rel="stylesheet")}
        expected = set()
        for component in ("base", "recipe-card"):
            styles = requests.get(
                f"{live_prerender.url}/v1/styles/{component}",
                headers={"authless-id": authless_id, "language-id": "fr", "session-id": "ssi-test"},
                timeout=10,
            )
            expected.update(styles.json()["links"])
        assert expected and links == expected
        assert not body.find_all("link", rel="stylesheet")
        # The featured card, the shelf's card, the bootstrap: each with the visitor's credential.
        featured = soup.select("section.featured svc-recipe-card")
        assert [card["id"] for card in featured] == ["svc-recipe-card-1"] and featured[0]["store-id"] == "1001"
        assert len(soup.select("li.shelf__recipe svc-recipe-card")) == 1
        assert_headings_in_order(soup)
        credentials = body.find_all("svc-shopper")
        assert len(credentials) == 3  # the two cards' and the bootstrap's
        assert {(c["kind"], c["shopper-id"]) for c in credentials} == {("authless", authless_id)}
        modules = [str(s["src"]) for s in body.find_all("script", type="module", src=True)]
        assert any(src.startswith(live_prerender.url) and src.endswith("/sdk/svc.js") for src in modules)

    # The fragments' locations are for the includes only: a browser asking for them (its own shopper named by
    # the token nginx adds) gets an empty answer (`internal`'s 404, answered as a missing fragment).
    for path in ("/_prerender/v2/svc-window-bootstrap", "/_prerender-styles/base"):
        direct = requests.get(f"{front.url}{path}", cookies={"svc_authless": authless_id}, timeout=10)
        assert direct.status_code == 204 and direct.content == b""


def test_a_logged_in_users_cookie_names_the_user(front: SsiFront, live_prerender: LivePrerender) -> None:
    user = f"ssi-user-{uuid.uuid4().hex[:12]}"
    answer = requests.get(f"{front.url}/", cookies={"demo_user": user}, timeout=30)

    soup = parse(answer.text)
    assert_page_shell(soup, answer.text, live_prerender.supplier_token)
    credentials = soup.find_all("svc-shopper")
    assert len(credentials) == 3 and {(c["kind"], c["shopper-id"]) for c in credentials} == {("user", user)}
    assert "svc_authless" not in answer.headers.get("Set-Cookie", "")


class SlowPrerender(BaseHTTPRequestHandler):
    """A prerender that never answers in time: each request waits until the test ends."""

    release = threading.Event()

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        self.release.wait(30)


class RedirectingPrerender(BaseHTTPRequestHandler):
    """Something at prerender's address that answers every request with a redirect and a body (a load balancer
    sending to a login or maintenance page): no fragment."""

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        body = b"<p>moved</p>"
        self.send_response(302)
        self.send_header("Location", "/elsewhere")
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def fake_prerender(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """A server of the test's handler class (`request.param`) on a free loopback port; None: no server."""
    handler: type[BaseHTTPRequestHandler] | None = request.param
    if handler is None:
        yield None
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    SlowPrerender.release.clear()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        SlowPrerender.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize(
    ("fake_prerender", "logged"),
    [
        (None, "Connection refused"),
        (SlowPrerender, "upstream timed out"),
        (RedirectingPrerender, None),  # nginx logs nothing for an answer it replaces
    ],
    ids=["down", "too slow", "redirects"],
    indirect=["fake_prerender"],
)
def test_failing_fragments_leave_the_page_rendered(
    nginx: str, tmp_path: Path, fake_prerender: str | None, logged: str | None
) -> None:
    upstream = fake_prerender or f"http://127.0.0.1:{closed_port()}"
    with SsiFront(nginx, tmp_path, upstream, "demo-retailer-token") as server:
        answer = requests.get(f"{server.url}/", timeout=60)
        logs = server.logs()

    assert answer.status_code == 200, logs
    soup = parse(answer.text)
    assert_page_shell(soup, answer.text, "demo-retailer-token")
    assert soup.find("svc-recipe-card") is None and soup.find("svc-shopper") is None
    assert not soup.find_all("link")
    assert "moved" not in answer.text
    if logged is not None:
        assert logged in logs


@pytest.mark.browser
def test_in_chromium_the_sdk_hydrates_and_a_cards_button_opens_the_drawer(front: SsiFront, page: Page) -> None:
    page.goto(f"{front.url}/")
    card = page.locator("section.featured svc-recipe-card[hydrated]")
    expect(card).to_be_visible()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".svc-recipe-details")).to_be_visible()
    with page.expect_response(lambda r: "/v1/basket/recipes" in r.url and r.request.method == "POST") as added:
        dialog.locator(".svc-recipe-details__add-all").click()
    assert added.value.status == 200, added.value.text()
    expect(card).to_have_attribute("in-basket", "true")

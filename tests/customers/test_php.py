"""examples/php for real: Debian's php-cli runs the customer's page builder (examples/php/page.php) against the live
prerender, from the command line and under `php -S`, then against prerender closed, refusing, slow or broken.

PHP runs with every diagnostic displayed on stdout (PHP_FLAGS): a warning or notice the page let through would
land in the HTML and fail the test. Skipped only where `php` is not installed (.ci/run installs php-cli).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import requests
from bs4 import BeautifulSoup, Tag
from playwright.sync_api import Page, expect

from tests.conftest import closed_port

from .conftest import LivePrerender, assert_headings_in_order

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "php"
PAGE = EXAMPLE / "page.php"
PHP_FLAGS = ["-d", "display_errors=1", "-d", "error_reporting=E_ALL", "-d", "log_errors=0"]
PHP_DIAGNOSTICS = ("Warning", "Notice", "Deprecated", "Fatal", "Parse error", "Uncaught")

# The page's own data (examples/php/page.php): its featured recipe, its shelf, and the card slots of the
# multiple call, each with the products the slot comes after and before.
FEATURED_RECIPE_ID = "1"
SHELF = ["100001", "100002", "100007", "100008", "100010", "100011", "100009", "100013"]
SLOTS = {2: ("100002", "100007"), 6: ("100011", "100009")}


@pytest.fixture(scope="session")
def php() -> str:
    found = shutil.which("php")
    if found is None:
        pytest.skip("php is not installed: install Debian's php-cli package (.ci/run does)")
    return found


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def environment(**variables: str) -> dict[str, str]:
    """The page's environment: these variables alone (none of the developer's shell), with PATH."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **variables}


def live_environment(live: LivePrerender, **shopper: str) -> dict[str, str]:
    return environment(PRERENDER_URL=live.url, SUPPLIER_TOKEN=live.supplier_token, STORE_ID=live.store_id, **shopper)


def run_page(php: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [php, *PHP_FLAGS, str(PAGE)], env=env, capture_output=True, text=True, timeout=30, check=False
    )


def direct_headers(live: LivePrerender, shopper: dict[str, str]) -> dict[str, str]:
    return {"language-id": "fr", "session-id": "php-test", "supplier-token": live.supplier_token, **shopper}


def stylesheet_links(live: LivePrerender, shopper: dict[str, str]) -> set[str]:
    """The links of /v1/styles/base and /v1/styles/recipe-card, asked directly."""
    links: set[str] = set()
    for component in ("base", "recipe-card"):
        answer = requests.get(f"{live.url}/v1/styles/{component}", headers=direct_headers(live, shopper), timeout=10)
        answer.raise_for_status()
        links.update(answer.json()["links"])
    return links


def card_modules(live: LivePrerender, shopper: dict[str, str]) -> set[str]:
    """The module scripts the featured card's fragment ends with, asked directly."""
    answer = requests.get(
        f"{live.url}/v1/recipe-card",
        params={"recipe_id": FEATURED_RECIPE_ID, "store_id": live.store_id},
        headers=direct_headers(live, shopper),
        timeout=10,
    )
    answer.raise_for_status()
    scripts = BeautifulSoup(answer.text, "html5lib").find_all("script", type="module")
    return {str(script["src"]) for script in scripts}


def parse(html: str) -> BeautifulSoup:
    """As a browser parses it (html5lib): an element out of place in <head> would move to <body>."""
    soup = BeautifulSoup(html, "html5lib")
    assert html.lstrip().startswith("<!DOCTYPE html>"), html[:200]
    assert html.rstrip().endswith("</html>"), html[-200:]
    return soup


def product_ids(soup: BeautifulSoup) -> list[str]:
    return [str(item["data-product-id"]) for item in soup.select("ul.shelf > li.product")]


def assert_no_diagnostics(text: str) -> None:
    found = [word for word in PHP_DIAGNOSTICS if word in text]
    assert not found, f"PHP diagnostics in the page: {found}"


def assert_page_with_fragments(
    html: str, live: LivePrerender, shopper: dict[str, str], kind: str, shopper_id: str
) -> BeautifulSoup:
    """The whole page, with the styles in <head>, the featured card, the multiple's cards in their slots, the
    module scripts, and the credential of the shopper the page named."""
    assert_no_diagnostics(html)
    soup = parse(html)
    head, body = soup.head, soup.body
    assert isinstance(head, Tag) and isinstance(body, Tag)

    in_head = {str(link["href"]) for link in head.find_all("link", rel="stylesheet")}
    expected_links = stylesheet_links(live, shopper)
    assert expected_links and expected_links <= in_head
    assert not body.find_all("link", rel="stylesheet"), "stylesheets outside <head>"

    featured = soup.select("section.featured svc-recipe-card")
    assert [card.get("id") for card in featured] == [f"svc-recipe-card-{FEATURED_RECIPE_ID}"]
    assert featured[0]["store-id"] == live.store_id

    assert product_ids(soup) == SHELF
    slots = soup.select("ul.shelf > li.shelf__recipe")
    # Every slot has a card, but one whose suggestion is a recipe already on the page (the featured one, by the
    # session's draw): the page leaves that one out.
    positions = [int(slot["data-position"]) for slot in slots]
    assert positions and set(positions) <= set(SLOTS)
    card_ids = [card["id"] for card in soup.find_all("svc-recipe-card")]
    assert len(card_ids) == len(set(card_ids)) == 1 + len(slots)
    for slot in slots:
        before, after = SLOTS[int(slot["data-position"])]
        cards = slot.find_all("svc-recipe-card")
        assert len(cards) == 1 and str(cards[0]["id"]).startswith("svc-recipe-card-"), slot
        assert cards[0]["display-variant"] == "2"
        previous, following = slot.find_previous_sibling("li"), slot.find_next_sibling("li")
        assert previous is not None and previous["data-product-id"] == before
        assert following is not None and following["data-product-id"] == after

    modules = {str(script["src"]) for script in body.find_all("script", type="module", src=True)}
    expected_modules = card_modules(live, shopper)
    assert any(src.endswith("/sdk/svc.js") for src in expected_modules)
    assert expected_modules <= modules

    # The page's own module script, after the fragments' (which define window.svc): the SDK's setup, no token.
    scripts = body.find_all("script", type="module")
    setup = str(scripts[-1].string or "")
    assert not scripts[-1].has_attr("src") and all(script.has_attr("src") for script in scripts[:-1])
    assert f'svc.pos.load("{live.store_id}")' in setup and 'svc.supplier.setup({ language: "fr"' in setup
    assert live.supplier_token not in setup

    assert_headings_in_order(soup)
    credentials = body.find_all("svc-shopper")
    assert len(credentials) == 1 + len(slots)  # one per fragment: the featured card and the multiple's
    assert {(element["kind"], element["shopper-id"]) for element in credentials} == {(kind, shopper_id)}
    return soup


# ------------------------------------------------------------------------------------- the live prerender


@pytest.mark.parametrize("kind", ["authless", "user"])
def test_the_cli_prints_the_page_with_the_live_fragments(php: str, live_prerender: LivePrerender, kind: str) -> None:
    shopper_id = unique(f"php-{kind}")
    if kind == "user":
        env = live_environment(live_prerender, USER_ID=shopper_id)
        shopper = {"authorization": f"user_id {shopper_id}"}
    else:
        env = live_environment(live_prerender, AUTHLESS_ID=shopper_id)
        shopper = {"authless-id": shopper_id}

    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    # Nothing failed; at most a suggestion of the featured recipe left out (the session's draw), and said.
    assert all("its recipe is already on the page" in line for line in result.stderr.splitlines()), result.stderr
    soup = assert_page_with_fragments(result.stdout, live_prerender, shopper, kind, shopper_id)
    shown = {int(slot["data-position"]) for slot in soup.select("ul.shelf > li.shelf__recipe")}
    for position in set(SLOTS) - shown:
        assert f"left out the card of position {position}: its recipe is already on the page" in result.stderr
    assert soup.select_one("p.store").get_text(strip=True) == f"Prix de votre magasin {live_prerender.store_id}"


class PhpServer:
    """`php -S 127.0.0.1:<port> -t examples/php`, stopped by its own process handle."""

    def __init__(self, php: str, env: dict[str, str]) -> None:
        self.port = closed_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [php, *PHP_FLAGS, "-S", f"127.0.0.1:{self.port}", "-t", str(EXAMPLE)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    def __enter__(self) -> PhpServer:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                assert self.process.poll() is None, f"php -S exited: {self.process.communicate()[1]}"
                assert time.monotonic() < deadline, "php -S did not listen within 10 s"
                time.sleep(0.05)

    def __exit__(self, *_: object) -> None:
        self.process.terminate()
        self.process.communicate(timeout=10)


def test_php_s_serves_the_page_and_keeps_the_issued_authless_id(php: str, live_prerender: LivePrerender) -> None:
    """No USER_ID nor AUTHLESS_ID: the page asks prerender for an authless id and keeps it in a cookie."""
    with PhpServer(php, live_environment(live_prerender)) as server, requests.Session() as browser:
        first = browser.get(f"{server.url}/", timeout=30)
        second = browser.get(f"{server.url}/", timeout=30)

    for answer in (first, second):
        assert answer.status_code == 200
        assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
        assert "private" in answer.headers["Cache-Control"]
    authless_id = browser.cookies["demo_authless_id"]
    assert "demo_authless_id" not in second.headers.get("Set-Cookie", "")  # the second view reuses it
    for answer in (first, second):
        assert_page_with_fragments(answer.text, live_prerender, {"authless-id": authless_id}, "authless", authless_id)


@pytest.mark.browser
def test_in_chromium_a_cards_basket_button_opens_the_drawer_and_adds_the_recipe(
    php: str, live_prerender: LivePrerender, page: Page
) -> None:
    """The served page in a browser: the page's setup script (supplier.setup, pos.load) lets the SDK work, so a
    card's basket button opens the recipe in the drawer, and "add all" puts it in the basket at the page's store."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    with PhpServer(php, live_environment(live_prerender)) as server:
        page.goto(f"{server.url}/")
        card = page.locator("section.featured svc-recipe-card[hydrated]")
        expect(card).to_be_visible()

        card.locator(".svc-recipe-card-cta").click()
        dialog = page.get_by_role("dialog")
        details = dialog.locator(".svc-recipe-details")
        expect(details).to_be_visible()
        expect(dialog.locator(".svc-drawer__error")).to_have_count(0)

        with page.expect_response(lambda r: "/v1/basket/recipes" in r.url and r.request.method == "POST") as added:
            dialog.locator(".svc-recipe-details__add-all").click()
        assert added.value.status == 200, added.value.text()
        assert added.value.request.post_data_json["store_id"] == live_prerender.store_id
        expect(card).to_have_attribute("in-basket", "true")

    assert not [text for text in errors if text.startswith("[svc]")], errors


def test_a_refused_store_leaves_the_cards_out_and_the_page_escapes_it(php: str, live_prerender: LivePrerender) -> None:
    store = '<b class="x">1001</b>'
    env = live_environment(live_prerender, AUTHLESS_ID=unique("php-authless"))
    env["STORE_ID"] = store

    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    assert_no_diagnostics(result.stdout)
    soup = parse(result.stdout)
    assert not soup.find("svc-recipe-card") and not soup.find("b")
    assert soup.select_one("p.store").get_text(strip=True) == f"Prix de votre magasin {store}"
    assert product_ids(soup) == SHELF
    assert "GET /v1/recipe-card: HTTP 400" in result.stderr
    assert "POST /v1/recipe-card/multiple: HTTP 400" in result.stderr


# ------------------------------------------------------------------------------- prerender down or broken


def assert_page_without_fragments(html: str) -> BeautifulSoup:
    assert_no_diagnostics(html)
    soup = parse(html)
    assert product_ids(soup) == SHELF
    assert soup.find("h1") is not None and soup.find("svc-recipe-card") is None
    assert soup.find("svc-shopper") is None and soup.find("script") is None
    return soup


def test_prerender_on_a_closed_port_still_renders_the_page(php: str) -> None:
    env = environment(
        PRERENDER_URL=f"http://127.0.0.1:{closed_port()}",
        SUPPLIER_TOKEN="demo-retailer-token",
        STORE_ID="1001",
        USER_ID=unique("php-user"),
    )

    started = time.monotonic()
    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 5  # a refused connection fails at once
    soup = assert_page_without_fragments(result.stdout)
    assert not soup.find_all("link")
    assert "GET /v1/styles/base: no answer" in result.stderr and "Connection refused" in result.stderr


class BrokenPrerender(BaseHTTPRequestHandler):
    """A prerender that answers the card (recipe 1) and the styles (malformed ones when `malformed_styles`), then
    is too slow for the multiple, or answers it `multiple` when set."""

    release = threading.Event()  # set at teardown: the slow answer stops waiting
    malformed_styles = False
    multiple: ClassVar[dict[str, object] | None] = None
    public_card = False  # the card without the shopper's credential (a supplier without personalization)
    asked: ClassVar[list[str]] = []
    CREDENTIAL = '<svc-shopper kind="user" shopper-id="php-user" credential="c" hidden></svc-shopper>'
    BOOTSTRAP = '<script type="module" src="http://prerender.test/static/sdk/svc.js"></script>' + CREDENTIAL

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        self.asked.append(self.path.split("?")[0])
        if self.path.startswith("/v1/recipe-card?"):
            card = '<svc-recipe-card id="svc-recipe-card-1"></svc-recipe-card>'
            self.answer("text/html", card if self.public_card else card + self.CREDENTIAL)
        elif self.path == "/v2/svc-window-bootstrap":
            self.answer("text/html", self.BOOTSTRAP)
        elif self.malformed_styles and self.path.startswith("/v1/styles/base"):
            self.answer("application/json", '{"html": "<link rel=')  # cut short
        elif self.malformed_styles:
            self.answer("application/json", '{"links": []}')  # no html
        else:
            name = self.path.split("?")[0].rsplit("/", 1)[-1]
            link = f'<link rel="stylesheet" href="http://prerender.test/static/{name}.css">'
            self.answer(
                "application/json", json.dumps({"html": link, "links": [f"http://prerender.test/static/{name}.css"]})
            )

    def do_POST(self) -> None:
        self.asked.append(self.path.split("?")[0])
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.multiple is not None:
            self.answer("application/json", json.dumps(self.multiple))
            return
        self.release.wait(10)
        self.answer("application/json", '{"data": []}')

    def answer(self, content_type: str, body: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the page stopped waiting
            self.wfile.write(data)


@pytest.fixture
def broken_prerender() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BrokenPrerender)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    BrokenPrerender.release.clear()
    BrokenPrerender.malformed_styles = False
    BrokenPrerender.multiple = None
    BrokenPrerender.public_card = False
    BrokenPrerender.asked = []
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        BrokenPrerender.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_slow_call_leaves_its_fragments_out(php: str, broken_prerender: str) -> None:
    env = environment(
        PRERENDER_URL=broken_prerender, SUPPLIER_TOKEN="demo-retailer-token", STORE_ID="1001", USER_ID="php-user"
    )

    started = time.monotonic()
    result = run_page(php, env)
    elapsed = time.monotonic() - started

    assert result.returncode == 0, result.stderr
    assert 2.5 < elapsed < 6  # the multiple's 3 s timeout, within the page's 4 s
    assert_no_diagnostics(result.stdout)
    soup = parse(result.stdout)
    assert [card["id"] for card in soup.find_all("svc-recipe-card")] == ["svc-recipe-card-1"]
    assert soup.select_one("section.featured svc-recipe-card") is not None
    assert not soup.select("li.shelf__recipe")
    assert [link["href"] for link in soup.find_all("link")] == [
        "http://prerender.test/static/base.css", "http://prerender.test/static/recipe-card.css",
    ]  # fmt: skip
    assert product_ids(soup) == SHELF
    assert "POST /v1/recipe-card/multiple: timed out after 3.0 s" in result.stderr


def test_only_the_asked_positions_and_one_card_per_recipe_go_in_the_page(php: str, broken_prerender: str) -> None:
    """A card of a position the page did not ask for has no place; a suggestion of the featured recipe (or of
    another slot's) would show it twice and repeat its element id."""
    card = '<svc-recipe-card id="svc-recipe-card-{}"></svc-recipe-card>'.format
    BrokenPrerender.multiple = {
        "data": [
            {"html": card("1"), "position": 2},  # the featured recipe
            {"html": card("12"), "position": 4},  # not asked
            {"html": card("13"), "position": 6},
        ]
    }
    env = environment(
        PRERENDER_URL=broken_prerender, SUPPLIER_TOKEN="demo-retailer-token", STORE_ID="1001", USER_ID="php-user"
    )
    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    assert_no_diagnostics(result.stdout)
    soup = parse(result.stdout)
    assert [card["id"] for card in soup.find_all("svc-recipe-card")] == ["svc-recipe-card-1", "svc-recipe-card-13"]
    assert [item["data-position"] for item in soup.select("li.shelf__recipe")] == ["6"]
    assert "ignored the card of position 4, not a position asked for" in result.stderr
    assert "left out the card of position 2: its recipe is already on the page" in result.stderr


@pytest.mark.parametrize("public", [True, False], ids=["public-card", "private-card"])
def test_a_page_of_public_cards_gets_the_bootstrap_for_the_credential(
    php: str, broken_prerender: str, public: bool
) -> None:
    """A supplier without personalization: its fixed card is public and carries no credential, so the page asks
    for the bootstrap, whose credential the SDK acts with. A page with a private card has one already."""
    BrokenPrerender.public_card = public
    BrokenPrerender.multiple = {"data": []}  # no suggestion fits
    env = environment(
        PRERENDER_URL=broken_prerender, SUPPLIER_TOKEN="demo-nopers-token", STORE_ID="1001", USER_ID="php-user"
    )
    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    soup = parse(result.stdout)
    (credential,) = soup.find_all("svc-shopper")
    assert credential["shopper-id"] == "php-user"
    assert ("/v2/svc-window-bootstrap" in BrokenPrerender.asked) is public
    assert (credential.find_parent("main") is None) is public  # the bootstrap's, after the page's content


def test_without_its_stylesheets_no_card_is_asked_for(php: str, broken_prerender: str) -> None:
    """A card without its stylesheets does not work (bare buttons, its drawer at the page's end): the styles come
    first, and when they do not, the page renders without cards."""
    BrokenPrerender.malformed_styles = True
    env = environment(
        PRERENDER_URL=broken_prerender, SUPPLIER_TOKEN="demo-retailer-token", STORE_ID="1001", USER_ID="php-user"
    )
    result = run_page(php, env)

    assert result.returncode == 0, result.stderr
    soup = assert_page_without_fragments(result.stdout)
    assert not soup.find_all("link")
    assert BrokenPrerender.asked == ["/v1/styles/base"]  # nothing more once the first sheet failed
    assert "GET /v1/styles/base: malformed JSON" in result.stderr
    assert "the stylesheets did not come: the page renders without cards" in result.stderr

"""The Java customer integration (examples/java/PrerenderPage.java), run as its README says: `java
examples/java/PrerenderPage.java`, with its configuration in the environment, the page on stdout.

- against the live prerender and coreapi of tests/live.py (`live_prerender` of conftest.py: the default stack
  only);
- against a fake prerender on loopback, for what the live one does not do on demand: the exact requests
  (headers, query, body) and their concurrency, answers to check the page's own JSON reading (escapes,
  surrogate pairs, unasked positions, hostile links), and faults (a hang, a 500, malformed JSON);
- against a closed port.

Each run starts a JVM that compiles the source first (a second or two): generous timeouts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from bs4 import BeautifulSoup, Tag

from tests.conftest import closed_port

from .conftest import LivePrerender, assert_headings_in_order

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "java" / "PrerenderPage.java"
JAVA = shutil.which("java")
DEFAULT_PRODUCTS = ["100001", "100002", "100010", "100011"]  # the program's default shelf

pytestmark = pytest.mark.skipif(
    JAVA is None, reason="`java` is not on PATH: the Java example needs a JDK 17 or newer (it runs its source)"
)


# ------------------------------------------------------------------------------------------ running the page


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def soup(self) -> BeautifulSoup:
        return BeautifulSoup(self.stdout, "html5lib")

    def warnings(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("prerender-page:")]


def run_page(**variables: str) -> Run:
    """The program with only these variables (and PATH, JAVA_HOME) in its environment, under the C locale:
    no configuration of the developer's shell leaks in, and the page must be UTF-8 all the same."""
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C", **variables}
    if "JAVA_HOME" in os.environ:
        env["JAVA_HOME"] = os.environ["JAVA_HOME"]
    assert JAVA is not None
    started = time.monotonic()
    process = subprocess.run([JAVA, str(SOURCE)], cwd=ROOT, env=env, capture_output=True, timeout=60, check=False)
    return Run(
        process.returncode,
        process.stdout.decode("utf-8"),  # strict: a page that is not UTF-8 fails here
        process.stderr.decode("utf-8", "replace"),
        time.monotonic() - started,
    )


def assert_only_a_page(run: Run) -> BeautifulSoup:
    """Exit status 0 and stdout one complete document, nothing before or after it."""
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("<!DOCTYPE html>\n<html"), run.stdout[:200]
    assert run.stdout.endswith("</body>\n</html>\n"), run.stdout[-200:]
    assert run.stdout.count("<!DOCTYPE") == 1
    soup = run.soup
    assert soup.head.find("meta", charset="utf-8") is not None
    assert soup.body.select_one("main > h1") is not None
    return soup


def slot_products(slot: Tag) -> list[str]:
    """The ids of the two products just before a card slot of the shelf."""
    before = [li for li in slot.find_previous_siblings("li") if "product" in li.get("class", [])][:2]
    return [li["data-product-id"] for li in reversed(before)]


def module_sources(soup: BeautifulSoup) -> list[str]:
    return [script["src"] for script in soup.find_all("script", attrs={"type": "module", "src": True})]


# ------------------------------------------------------------------------------------------ live prerender


def shopper_headers(live: LivePrerender, *, user: str, session: str) -> dict[str, str]:
    return {
        "supplier-token": live.supplier_token,
        "authorization": f"user_id {user}",
        "language-id": "fr",
        "session-id": session,
    }


def test_page_with_the_live_fragments(live_prerender: LivePrerender) -> None:
    live, store = live_prerender, live_prerender.store_id
    user, session = "java-page-user", "java-page-session"
    run = run_page(
        PRERENDER_URL=live.url,
        SUPPLIER_TOKEN=live.supplier_token,
        STORE_ID=store,
        USER_ID=user,
        SESSION_ID=session,
        RECIPE_ID="5",
    )
    soup = assert_only_a_page(run)
    assert run.warnings() == []
    assert live.supplier_token not in run.stdout  # the token stays on the server
    assert_headings_in_order(soup)

    # The same calls made directly: what the page must contain.
    direct = shopper_headers(live, user=user, session=session)
    expected_links: list[str] = []
    for component in ("base", "recipe-card"):
        answer = requests.get(f"{live.url}/v1/styles/{component}", headers=direct, timeout=10)
        answer.raise_for_status()
        expected_links += [link for link in answer.json()["links"] if link not in expected_links]
    card = requests.get(
        f"{live.url}/v1/recipe-card", params={"recipe_id": "5", "store_id": store}, headers=direct, timeout=10
    )
    card.raise_for_status()
    multiple = requests.post(
        f"{live.url}/v1/recipe-card/multiple",
        params={"store_id": store},
        json={
            "contexts": [
                {"productIds": DEFAULT_PRODUCTS[:2], "position": 1},
                {"productIds": DEFAULT_PRODUCTS[2:], "position": 2},
            ],
            "display_variant": 2,
        },
        headers=direct,
        timeout=10,
    )
    multiple.raise_for_status()

    # Stylesheets in <head>, base first, each once.
    assert [link["href"] for link in soup.head.find_all("link", rel="stylesheet")] == expected_links
    assert expected_links[0].endswith("/css/base.css")
    assert not soup.body.find_all("link", rel="stylesheet")

    # The featured card, as prerender rendered it (French texts: the page is UTF-8 under LC_ALL=C too).
    featured = soup.select_one("main > section.featured-recipe > svc-recipe-card")
    assert featured is not None
    assert featured["id"] == "svc-recipe-card-5"
    assert featured["recipe-id"] == "5"
    expected_card = BeautifulSoup(card.text, "html5lib").find("svc-recipe-card")
    assert featured.get_text(" ", strip=True) == expected_card.get_text(" ", strip=True)
    shopper = soup.select_one("section.featured-recipe > svc-shopper")
    assert shopper is not None and shopper["kind"] == "user" and shopper["shopper-id"] == user

    # The multiple's cards, each in the slot of its position, after its two products.
    expected_slots = {
        item["position"]: BeautifulSoup(item["html"], "html5lib").find("svc-recipe-card")["id"]
        for item in multiple.json()["data"]
        if item["html"]
    }
    assert expected_slots, "the demo catalog suggests recipes for the default shelf"
    slots = soup.select("main > ul.shelf > li.recipe-slot")
    assert {int(slot["data-position"]): slot.find("svc-recipe-card")["id"] for slot in slots} == expected_slots
    for slot in slots:
        position = int(slot["data-position"])
        assert slot_products(slot) == DEFAULT_PRODUCTS[2 * position - 2 : 2 * position]
        assert len(slot.find_all("svc-recipe-card")) == 1
    assert [li["data-product-id"] for li in soup.select("ul.shelf > li.product")] == DEFAULT_PRODUCTS

    # The fragments' module scripts, then the page's setup of the SDK, last.
    sources = module_sources(soup)
    assert any(src.endswith("/sdk/svc.js") for src in sources)
    assert any(src.endswith("/components/recipe-card.js") for src in sources)
    scripts = soup.find_all("script")
    setup = scripts[-1]
    assert setup.get("type") == "module" and not setup.get("src")
    assert "svc.supplier.setup(" in setup.string and json.dumps(session) in setup.string
    assert f"svc.pos.load({json.dumps(store)})" in setup.string


def test_logged_out_visitor_and_english(live_prerender: LivePrerender) -> None:
    run = run_page(
        PRERENDER_URL=f"{live_prerender.url}/",  # a trailing slash is fine
        SUPPLIER_TOKEN=live_prerender.supplier_token,
        STORE_ID=live_prerender.store_id,
        AUTHLESS_ID="java-visitor-1",
        LANGUAGE_ID="en",
        RECIPE_ID="5",
    )
    soup = assert_only_a_page(run)
    assert run.warnings() == []
    assert soup.html["lang"] == "en"
    card = soup.select_one("section.featured-recipe > svc-recipe-card")
    assert card is not None and card["id"] == "svc-recipe-card-5"
    assert card.find(class_="svc-like-button") is None  # README: no heart for a logged-out visitor
    shopper = soup.select_one("section.featured-recipe > svc-shopper")
    assert shopper["kind"] == "authless" and shopper["shopper-id"] == "java-visitor-1"


def test_public_cards_get_the_bootstrap_for_the_shoppers_credential(live_prerender: LivePrerender) -> None:
    """A supplier without personalization: its fixed card is public and carries no credential (no suggestion fits
    the unknown products), so the page inserts the bootstrap, whose credential the SDK then acts with."""
    run = run_page(
        PRERENDER_URL=live_prerender.url,
        SUPPLIER_TOKEN="demo-nopers-token",
        STORE_ID=live_prerender.store_id,
        USER_ID="java-nopers-user",
        PRODUCT_IDS="zz1,zz2",
    )
    soup = assert_only_a_page(run)
    assert run.warnings() == []
    card = soup.select_one("section.featured-recipe > svc-recipe-card")
    assert card is not None and card.find_next_sibling("svc-shopper") is None  # the public card: no credential
    (shopper,) = soup.find_all("svc-shopper")
    assert shopper["kind"] == "user" and shopper["shopper-id"] == "java-nopers-user"
    assert shopper.find_parent("main") is None  # the bootstrap's, after the page's content


def test_private_cards_bring_the_credential_without_the_bootstrap(live_prerender: LivePrerender) -> None:
    run = run_page(
        PRERENDER_URL=live_prerender.url,
        SUPPLIER_TOKEN=live_prerender.supplier_token,
        STORE_ID=live_prerender.store_id,
        USER_ID="java-private-user",
        PRODUCT_IDS="zz1,zz2",
    )
    soup = assert_only_a_page(run)
    (shopper,) = soup.find_all("svc-shopper")
    assert shopper.find_parent("section", class_="featured-recipe") is not None


# ------------------------------------------------------------------------------------------ a fake prerender


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


Answer = tuple[int, str, str]  # status, content type, body


class FakePrerender:
    """A loopback HTTP server answering `routes` ("GET /v1/styles/base" -> a function of the request), and
    recording every request. `released` ends the waits of hanging routes (set at teardown)."""

    def __init__(self) -> None:
        self.routes: dict[str, Callable[[Recorded], Answer]] = {}
        self.requests: list[Recorded] = []
        self.released = threading.Event()
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.answer()

            def do_POST(self) -> None:
                self.answer()

            def answer(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                recorded = Recorded(
                    self.command,
                    url.path,
                    parse_qs(url.query),
                    {name.lower(): value for name, value in self.headers.items()},
                    self.rfile.read(length),
                )
                with fake.lock:
                    fake.requests.append(recorded)
                route = fake.routes.get(f"{self.command} {url.path}")
                status, content_type, body = route(recorded) if route else (404, "text/plain", "no such route")
                data = body.encode()
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that gave up on a hanging route: a broken pipe, expected

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def hang(self, _: Recorded) -> Answer:
        self.released.wait(30)
        return 200, "text/html", ""


@pytest.fixture
def fake_prerender() -> Iterator[FakePrerender]:
    fake = FakePrerender()
    fake.thread.start()
    yield fake
    fake.released.set()
    fake.server.shutdown()
    fake.server.server_close()
    fake.thread.join(timeout=5)


def fragment(recipe_id: str, text: str) -> str:
    """A private card as prerender answers it: the card, its module scripts, the shopper's credential element."""
    return (
        f'<svc-recipe-card id="svc-recipe-card-{recipe_id}" recipe-id="{recipe_id}"><p>{text}</p></svc-recipe-card>'
        f'<script type="module" src="http://cdn.example/static/b1/sdk/svc.js"></script>'
        f'<script type="module" src="http://cdn.example/static/b1/components/recipe-card.js"></script>'
        f'<svc-shopper kind="user" shopper-id="u-42" credential="c.{recipe_id}" hidden></svc-shopper>'
    )


def json_answer(value: object) -> Answer:
    # ensure_ascii (Python's default): "é" arrives as \u00e9 and "🍳" as the surrogate pair \ud83c\udf73;
    # "<" as \u003c too, as some servers write it.
    return 200, "application/json", json.dumps(value).replace("<", "\\u003c")


# Both stylesheets, for a test about something else: without them the page shows no card.
def styles_of(name: str) -> Callable[[object], Answer]:
    return lambda _: json_answer({"links": [f"http://cdn.example/{name}.css"], "html": "-"})


STYLES = {f"GET /v1/styles/{name}": styles_of(name) for name in ("base", "recipe-card")}


def test_requests_headers_concurrency_and_json_reading(fake_prerender: FakePrerender) -> None:
    # Every route waits until the four calls have arrived: calls made one after the other would all fail.
    all_four = threading.Barrier(4, timeout=5)

    def concurrently(answer: Answer) -> Callable[[Recorded], Answer]:
        def route(_: Recorded) -> Answer:
            try:
                all_four.wait()
            except threading.BrokenBarrierError:
                return 503, "text/plain", "the four calls did not arrive together"
            return answer

        return route

    fake_prerender.routes = {
        "GET /v1/styles/base": concurrently(json_answer({"links": ["http://cdn.example/base.css"], "html": "-"})),
        "GET /v1/styles/recipe-card": concurrently(
            json_answer(
                {
                    "links": [
                        "http://cdn.example/base.css",  # already linked by base: once
                        "http://cdn.example/card.css?a=1&b='q'",
                        'http://cdn.example/x.css"><script>alert(1)</script>',  # no URI: left out
                        "javascript:alert(1)",  # not http(s): left out
                        42,  # not a string: left out
                    ],
                    "html": "ignored",
                }
            )
        ),
        "GET /v1/recipe-card": concurrently((200, "text/html; charset=utf-8", fragment("7", "Crème brûlée"))),
        "POST /v1/recipe-card/multiple": concurrently(
            json_answer(
                {
                    "data": [
                        {"html": fragment("11", 'Tarte "tatin" 🍳\n\t\\'), "position": 1},
                        {"html": "", "position": 2},  # no recipe fits: no card there
                        {"html": fragment("12", "Gratin"), "position": 3},
                        {"html": fragment("99", "Not asked"), "position": 7},  # no such slot: ignored
                        {"html": fragment("98", "Not an integer"), "position": 1.5},
                    ]
                }
            )
        ),
    }
    run = run_page(
        PRERENDER_URL=fake_prerender.url,
        SUPPLIER_TOKEN="token-1",
        STORE_ID="1001",
        USER_ID="u-42",
        SESSION_ID="s-java-1",
        RECIPE_ID="7",
        PRODUCT_IDS="p1, p2,p3,p4,p5,p6,p7",  # 7 products: slots after p2, p4 and p6
    )
    soup = assert_only_a_page(run)

    # The requests: the README's headers on each, the query and the body.
    requests_by_path = {request.path: request for request in fake_prerender.requests}
    assert sorted(requests_by_path) == [
        "/v1/recipe-card",
        "/v1/recipe-card/multiple",
        "/v1/styles/base",
        "/v1/styles/recipe-card",
    ]
    assert len(fake_prerender.requests) == 4
    for request in fake_prerender.requests:
        assert request.headers["supplier-token"] == "token-1"
        assert request.headers["authorization"] == "user_id u-42"
        assert "authless-id" not in request.headers
        assert request.headers["language-id"] == "fr"
        assert request.headers["session-id"] == "s-java-1"
    assert len({request.headers["x-request-id"] for request in fake_prerender.requests}) == 1
    assert requests_by_path["/v1/styles/base"].query == {}
    assert requests_by_path["/v1/recipe-card"].query == {"recipe_id": ["7"], "store_id": ["1001"]}
    multiple = requests_by_path["/v1/recipe-card/multiple"]
    assert multiple.method == "POST"
    assert multiple.headers["content-type"] == "application/json"
    assert multiple.query == {"store_id": ["1001"]}
    assert json.loads(multiple.body) == {
        "contexts": [
            {"productIds": ["p1", "p2"], "position": 1},
            {"productIds": ["p3", "p4"], "position": 2},
            {"productIds": ["p5", "p6"], "position": 3},
        ],
        "display_variant": 2,
    }

    # The answers, read: deduplicated http(s) links, attribute-escaped; unescaped JSON strings.
    assert [link["href"] for link in soup.head.find_all("link")] == [
        "http://cdn.example/base.css",
        "http://cdn.example/card.css?a=1&b='q'",
    ]
    assert 'href="http://cdn.example/card.css?a=1&amp;b=&#39;q&#39;"' in run.stdout
    assert sorted(run.warnings()) == [
        "prerender-page: GET /styles/recipe-card: ignored a link that is not an http(s) URL: 42",
        "prerender-page: GET /styles/recipe-card: ignored a link that is not an http(s) URL: "
        'http://cdn.example/x.css"><script>alert(1)</script>',
        "prerender-page: GET /styles/recipe-card: ignored a link that is not an http(s) URL: javascript:alert(1)",
        "prerender-page: POST /recipe-card/multiple: ignored the card of position 1.5, not a slot of this page",
        "prerender-page: POST /recipe-card/multiple: ignored the card of position 7, not a slot of this page",
    ]
    assert soup.select_one("section.featured-recipe > svc-recipe-card").get_text() == "Crème brûlée"
    slots = soup.select("ul.shelf > li.recipe-slot")
    assert [(slot["data-position"], slot_products(slot)) for slot in slots] == [
        ("1", ["p1", "p2"]),
        ("3", ["p5", "p6"]),
    ]
    assert slots[0].find("svc-recipe-card").get_text() == 'Tarte "tatin" 🍳\n\t\\'
    assert slots[1].find("svc-recipe-card")["id"] == "svc-recipe-card-12"
    assert "svc-recipe-card-99" not in run.stdout and "svc-recipe-card-98" not in run.stdout
    assert [li["data-product-id"] for li in soup.select("ul.shelf > li.product")] == [f"p{n}" for n in range(1, 8)]
    assert "token-1" not in run.stdout


def test_a_recipe_already_on_the_page_gets_no_second_card(fake_prerender: FakePrerender) -> None:
    """A suggestion may be the featured recipe, or another slot's: its card would repeat the element id."""
    fake_prerender.routes = {
        **STYLES,
        "GET /v1/recipe-card": lambda _: (200, "text/html", fragment("7", "Featured")),
        "POST /v1/recipe-card/multiple": lambda _: json_answer(
            {
                "data": [
                    {"html": fragment("12", "Gratin"), "position": 3},
                    {"html": fragment("7", "Featured again"), "position": 1},
                    {"html": fragment("12", "Gratin again"), "position": 2},
                ]
            }
        ),
    }
    run = run_page(
        PRERENDER_URL=fake_prerender.url, SUPPLIER_TOKEN="token-1", USER_ID="u-42", PRODUCT_IDS="p1,p2,p3,p4,p5,p6"
    )
    soup = assert_only_a_page(run)
    ids = [card["id"] for card in soup.find_all("svc-recipe-card")]
    assert ids == ["svc-recipe-card-7", "svc-recipe-card-12"]
    # The first card of a recipe in the page's order stays: slot 2's, not slot 3's.
    assert [slot["data-position"] for slot in soup.select("ul.shelf > li.recipe-slot")] == ["2"]
    assert sorted(run.warnings()) == [
        "prerender-page: left out the card of position 1: its recipe is already on the page",
        "prerender-page: left out the card of position 3: its recipe is already on the page",
    ]


def test_timeout_500_and_malformed_json_leave_fragments_out(fake_prerender: FakePrerender) -> None:
    fake_prerender.routes = {
        "GET /v1/styles/base": fake_prerender.hang,
        "GET /v1/styles/recipe-card": lambda _: (200, "application/json", '{"links": ["http://cdn.example/a.css"'),
        "GET /v1/recipe-card": lambda _: (500, "application/problem+json", '{"title": "Internal Server Error"}'),
        "POST /v1/recipe-card/multiple": lambda _: (
            200,
            "application/json",
            '{"data": {"html": "<p>", "position": 1}}',
        ),
    }
    run = run_page(
        PRERENDER_URL=fake_prerender.url, SUPPLIER_TOKEN="token-1", STORE_ID="1001", USER_ID="u-42", SESSION_ID="s-1"
    )
    soup = assert_only_a_page(run)
    assert run.seconds < 20  # the 3 s request timeout (plus the JVM's start), not the 30 s hang
    assert soup.find("link") is None
    assert soup.find("svc-recipe-card") is None
    assert soup.find("script") is None  # no fragment: no SDK to set up
    assert [li["data-product-id"] for li in soup.select("ul.shelf > li.product")] == DEFAULT_PRODUCTS
    warnings = "\n".join(run.warnings())
    assert "GET /styles/base failed: timed out" in warnings
    assert "GET /styles/recipe-card: malformed JSON" in warnings
    assert 'GET /recipe-card answered 500: {"title": "Internal Server Error"}' in warnings
    assert 'POST /recipe-card/multiple: no "data" array' in warnings


def test_the_page_escapes_its_own_input(fake_prerender: FakePrerender) -> None:
    fake_prerender.routes = {
        "GET /v1/recipe-card": lambda _: (200, "text/html", fragment("7", "Card")),
        **STYLES,  # without its stylesheets no card is shown
    }
    store = '1001"><script>alert(1)</script>'
    products = ["<img src=x onerror=alert(2)>", "a&b'c"]
    run = run_page(
        PRERENDER_URL=fake_prerender.url,
        USER_ID="u-42",
        STORE_ID=store,
        PRODUCT_IDS=",".join(products),
        RECIPE_ID='7"><b>bold</b>',
        LANGUAGE_ID="fr-demo",  # markup in a language id is refused before anything is sent (the test above)
        SESSION_ID="</script><script>alert(3)</script>",  # printable ASCII without a space: prerender takes it
    )
    soup = assert_only_a_page(run)
    assert soup.find("img") is None and soup.find("b") is None and soup.find("i") is None
    assert soup.title.string == f"Products and recipes, store {store}"
    assert soup.find("h1").string == f"Products and recipes, store {store}"
    assert [li["data-product-id"] for li in soup.select("li.product")] == products
    assert soup.select_one("section.featured-recipe")["data-recipe-id"] == '7"><b>bold</b>'
    assert soup.html["lang"] == "fr"
    # Scripts: the card's two module tags and the page's setup, whose strings cannot close the element.
    scripts = soup.find_all("script")
    assert len(scripts) == 3
    assert scripts[-1].string.count("alert") == 2  # the session id and the store, as JavaScript strings
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(3)" in scripts[-1].string
    # No supplier token configured: sent without one, and logged.
    assert all("supplier-token" not in request.headers for request in fake_prerender.requests)
    assert any("SUPPLIER_TOKEN is not set" in line for line in run.warnings())


@pytest.mark.parametrize(
    ("shopper", "token", "warning"),
    [
        ({}, "token-1", "neither USER_ID nor AUTHLESS_ID is set"),
        ({"USER_ID": "u-1\nx-injected: 1"}, "token-1", "USER_ID is not 1 to 128 printable ASCII characters"),
        # Java's client would send "Zo?" for "Zoé" and "Zoë" alike: two shoppers as one.
        ({"USER_ID": "Zoé"}, "token-1", "USER_ID is not 1 to 128 printable ASCII characters"),
        ({"AUTHLESS_ID": "visiteur-ü"}, "token-1", "AUTHLESS_ID is not 1 to 128 printable ASCII characters"),
        ({"USER_ID": "u" * 129}, "token-1", "USER_ID is not 1 to 128 printable ASCII characters"),
        ({"USER_ID": "u-1", "SESSION_ID": "my session"}, "token-1", "SESSION_ID is not 1 to 128 printable ASCII"),
        ({"USER_ID": "u-1", "LANGUAGE_ID": "fr_FR"}, "token-1", "LANGUAGE_ID is not a language id"),
        ({"AUTHLESS_ID": "a-1"}, "secret\r\nx", "the supplier-token header would hold a control character"),
        ({"AUTHLESS_ID": "a-1"}, "secrét", "the supplier-token header would hold a control character or one outside"),
    ],
    ids=[
        "no-shopper",
        "line-break-in-user",
        "accent-in-user",
        "accent-in-authless-id",
        "long-user",
        "space-in-session",
        "underscore-in-language",
        "line-break-in-token",
        "accent-in-token",
    ],
)
def test_nothing_sent_without_usable_headers(
    fake_prerender: FakePrerender, shopper: dict[str, str], token: str, warning: str
) -> None:
    run = run_page(PRERENDER_URL=fake_prerender.url, SUPPLIER_TOKEN=token, STORE_ID="1001", **shopper)
    soup = assert_only_a_page(run)
    assert fake_prerender.requests == []
    assert soup.find("svc-recipe-card") is None and soup.find("link") is None
    assert any(warning in line for line in run.warnings()), run.stderr
    assert "secret" not in run.stderr  # a bad header is named, its value never printed


# ------------------------------------------------------------------------------------------ nothing listening


def test_closed_port_still_renders_the_page() -> None:
    run = run_page(
        PRERENDER_URL=f"http://127.0.0.1:{closed_port()}", SUPPLIER_TOKEN="token-1", STORE_ID="1001", USER_ID="u-1"
    )
    soup = assert_only_a_page(run)
    assert soup.find("link") is None
    assert soup.find("svc-recipe-card") is None
    assert soup.find("script") is None
    assert soup.select_one("section.featured-recipe") is None
    assert soup.select("li.recipe-slot") == []
    assert [li["data-product-id"] for li in soup.select("ul.shelf > li.product")] == DEFAULT_PRODUCTS
    warnings = run.warnings()
    assert len(warnings) == 5 and all("failed: could not connect" in line for line in warnings[:4]), warnings
    assert warnings[4] == "prerender-page: the stylesheets did not come: the page renders without cards"

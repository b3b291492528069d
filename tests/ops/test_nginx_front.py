"""deploy/nginx/prerender.conf for real: Debian's nginx in front of a live prerender (tests/live.py).

What nginx may share is decided by prerender's Cache-Control (prerender/web/http_caching.py); these tests check
that nginx keeps to it: public answers MISS then HIT and identical, private ones never HIT and never cross
users, 304s, request ids, immutable static files, stale answers while prerender is down, body limits.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from bs4 import BeautifulSoup
from flask import Flask

import prerender
from bench.nginx import SHIPPED_CONFIG, NginxFront
from tests.conftest import allowed
from tests.integration.conftest import headers, live_browser_headers
from tests.live import TEST_BUDGETS, LiveServer, Stack

pytestmark = pytest.mark.nginx

NOPERS = "demo-nopers-token"  # a retailer with personalization disabled: its fixed cards are public
TIMEOUT = 10


def unique() -> str:
    return uuid.uuid4().hex[:12]


def get(front: NginxFront, path: str, hdrs: dict[str, str] | None = None, **kwargs) -> requests.Response:
    return requests.get(front.url + path, headers=hdrs or {}, timeout=TIMEOUT, **kwargs)


def cache_control(response: requests.Response) -> set[str]:
    return {part.strip().lower() for part in response.headers.get("Cache-Control", "").split(",") if part.strip()}


def is_public(response: requests.Response) -> bool:
    return "public" in cache_control(response)


def shopper_of(html: str) -> str:
    """The shopper a fragment's credential element names (prerender/web/shopper.py)."""
    element = BeautifulSoup(html, "html5lib").select_one("svc-shopper")
    assert element is not None, "the fragment carries no credential"
    return str(element["shopper-id"])


def like_pressed(html: str) -> str:
    """aria-pressed of the card's like button."""
    button = BeautifulSoup(html, "html5lib").select_one("button.svc-like-button")
    assert button is not None, "the card has no like button"
    return button["aria-pressed"]


# Public answers: the path and the options of tests/integration's headers() that make the answer public.
# Tests add a throwaway query parameter (prerender ignores unknown ones) so that the URL is new to the cache.
PUBLIC = {
    "styles": ("/v1/styles/recipe-card", {}),
    # Without a supplier-token: no shopper's credential in it (with one it is private, see below).
    "bootstrap": ("/v2/svc-window-bootstrap", {"token": None}),
    "nopers-card": ("/v1/recipe-card?recipe_id=5&store_id=1001&display_variant=2", {"token": NOPERS}),
    "recipe-details": ("/v1/recipe-details?recipe_id=5&store_id=1001&guests=4", {}),
}


def with_marker(path: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}ops={unique()}"


def test_the_shipped_config_passes_nginx_t(nginx_front):
    checked = nginx_front.check()
    assert checked.returncode == 0 and "test is successful" in checked.stderr


def test_no_shopper_waits_for_anothers_answer():
    """The cache key cannot tell a public answer from a private one before prerender answers, and a private
    answer is never stored: a cache lock would queue every shopper asking the same URL behind the one before (a
    p99 of 2.5 s against 59 ms directly, `make bench` figure 7b). The lock is off, and stays so."""
    directives = re.findall(r"^\s*(proxy_cache_lock\w*)\s+([^;]+);", SHIPPED_CONFIG.read_text(), re.MULTILINE)
    assert directives == [("proxy_cache_lock", "off")]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_answers_are_a_miss_then_a_hit_for_another_visitor(nginx_front, name):
    path, options = PUBLIC[name]
    path = with_marker(path)
    first = get(nginx_front, path, headers(user="ops-first", session="ops-s1", **options))
    assert first.status_code == 200 and first.content and is_public(first)
    assert first.headers["X-Cache-Status"] == "MISS"
    # Another visitor (logged out, another session) with the same language and supplier gets the copy.
    second = get(nginx_front, path, headers(user=None, session="ops-s2", **options))
    assert second.headers["X-Cache-Status"] == "HIT"
    assert second.content == first.content and second.headers["ETag"] == first.headers["ETag"]


def key_headers() -> set[str]:
    """The request headers in the cache key of the shipped config's API location."""
    text = SHIPPED_CONFIG.read_text()
    location = text[text.index("location / {") :]
    key = re.search(r"proxy_cache_key\s+\"([^\"]+)\"", location).group(1)
    return {name.replace("_", "-") for name in re.findall(r"\$http_([a-z_]+)", key)}


@pytest.mark.parametrize("name", PUBLIC)
def test_the_cache_key_holds_every_header_prerender_varies_on(nginx_front, name):
    path, options = PUBLIC[name]
    response = get(nginx_front, with_marker(path), {**headers(**options), "Origin": "http://localhost:3000"})
    varies = {part.strip().lower() for line in response.raw.headers.getlist("Vary") for part in line.split(",")}
    assert "origin" in varies
    assert varies - {"accept-encoding"} <= key_headers()  # accept-encoding: nginx compresses on the way out


# With an Origin, prerender's answer carries two Vary lines, of which nginx 1.22 caches by the last only.
@pytest.mark.parametrize("origin", [None, "http://localhost:3000"])
def test_the_cache_key_holds_the_language_and_the_supplier(nginx_front, origin):
    path = with_marker(PUBLIC["nopers-card"][0])
    extra = {"Origin": origin} if origin else {}
    french = get(nginx_front, path, {**headers(token=NOPERS), **extra})
    english = get(nginx_front, path, {**headers(token=NOPERS, language="en"), **extra})
    assert [french.headers["X-Cache-Status"], english.headers["X-Cache-Status"]] == ["MISS", "MISS"]
    assert english.content != french.content
    assert get(nginx_front, path, {**headers(token=NOPERS), **extra}).content == french.content
    # The same URL for a personalized supplier: its own, private answer with the like button.
    retailer = get(nginx_front, path, {**headers(user="ops-key-user"), **extra})
    assert retailer.headers["X-Cache-Status"] != "HIT" and not is_public(retailer)
    assert like_pressed(retailer.text) == "false"


def test_the_cache_key_holds_the_origin(nginx_front):
    """Access-Control-Allow-Origin echoes the Origin (every localhost origin is allowed): an answer cached
    for one origin, or for a disallowed one (no CORS headers), is never served to another."""
    path = with_marker(PUBLIC["nopers-card"][0])
    answers = {}
    for origin in ("https://evil.test", "http://localhost:3000", "http://localhost:4000"):
        response = get(nginx_front, path, {**headers(token=NOPERS), "Origin": origin})
        assert response.headers["X-Cache-Status"] == "MISS"
        answers[origin] = response.headers.get("Access-Control-Allow-Origin")
    assert answers == {
        "https://evil.test": None,
        "http://localhost:3000": "http://localhost:3000",
        "http://localhost:4000": "http://localhost:4000",
    }
    again = get(nginx_front, path, {**headers(token=NOPERS), "Origin": "http://localhost:3000"})
    assert again.headers["X-Cache-Status"] == "HIT"
    assert again.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"


def test_links_follow_the_host_nginx_was_asked_for(nginx_front):
    links = get(nginx_front, with_marker("/v1/styles/recipe-card"), headers()).json()["links"]
    assert links and all(link.startswith(f"{nginx_front.url}/static/") for link in links)


def test_a_connected_users_card_is_never_cached_nor_shared(nginx_front):
    alice, bob = f"ops-alice-{unique()}", f"ops-bob-{unique()}"
    alices_browser = live_browser_headers(nginx_front.url, user=alice)
    liked = requests.put(f"{nginx_front.url}/v1/likes/5", headers=alices_browser, timeout=TIMEOUT)
    assert liked.status_code == 204
    path = "/v1/recipe-card?recipe_id=5&store_id=1001&display_variant=2"
    statuses = []
    for user in [alice, bob, alice, bob]:
        response = get(nginx_front, path, headers(user=user))
        assert response.status_code == 200 and "private" in cache_control(response)
        # The heart is filled in by the browser; the credential is the user's own, every time.
        assert like_pressed(response.text) == "false"
        assert shopper_of(response.text) == user
        statuses.append(response.headers.get("X-Cache-Status"))
    assert set(statuses) <= {"MISS", "BYPASS"}, statuses


def test_a_bootstrap_with_a_shoppers_credential_is_never_cached_nor_shared(nginx_front):
    """With a valid supplier-token the bootstrap carries the shopper's credential: shared, it would let the next
    visitor act as the previous one."""
    path = with_marker("/v2/svc-window-bootstrap")
    alice, bob = f"ops-alice-{unique()}", f"ops-bob-{unique()}"
    statuses = []
    for user in (alice, bob, alice, bob):
        response = get(nginx_front, path, headers(user=user))
        assert response.status_code == 200 and "private" in cache_control(response)
        element = BeautifulSoup(response.text, "html.parser").find("svc-shopper")
        assert element is not None and element["shopper-id"] == user
        statuses.append(response.headers.get("X-Cache-Status"))
    assert set(statuses) <= {"MISS", "BYPASS"}, statuses


@pytest.mark.parametrize(
    "path",
    [
        "/v1/basket/merge-authless-basket",
        "/v2/basket/merge-authless-basket",
        "/v2/menu/merge-authless-menu",
        "/v2/planner",
        "/v2/planner/current-menu",
        "/v2/menu/current",
        "/v2/basket",
        "/v2/catalog/my-space/basket-preview",
    ],
)
def test_a_head_to_a_get_that_acts_reaches_prerender_as_a_head_and_does_nothing(nginx_front, path):
    """nginx turns a HEAD into a GET where it caches (proxy_cache_convert_head): a HEAD to a merge would have
    merged, one to a planner page or the current menu made a menu, one to the basket or its preview moved the
    basket to store_id. The per-user routes, these among them, are outside the cache, so prerender sees the HEAD
    and refuses it (a GET is never a 405 there)."""
    visitor = f"ops-visitor-{unique()}"
    response = requests.head(
        f"{nginx_front.url}{path}?authless_id={visitor}&store_id=1001",
        headers=headers(user=f"ops-user-{unique()}"),
        timeout=TIMEOUT,
    )
    assert response.status_code == 405
    assert allowed(response) == {"GET", "OPTIONS"} | ({"PATCH"} if path == "/v2/menu/current" else set())


def test_per_user_routes_never_touch_the_cache(nginx_front):
    browser = live_browser_headers(nginx_front.url, user="ops-basket")
    for path in ("/v1/basket?store_id=1001", "/v1/likes?recipe_ids=5", "/v2/menu/current?store_id=1001"):
        for _ in range(2):
            response = get(nginx_front, path, browser)
            assert response.status_code == 200 and "private" in cache_control(response)
            assert "X-Cache-Status" not in response.headers


# The same ids in every process (pytest-xdist's workers collect the same tests): the cache-busting marker is
# added when the test runs.
@pytest.mark.parametrize(
    "path,options",
    [
        pytest.param(PUBLIC["nopers-card"][0], {"token": NOPERS}, id="public-card"),  # nginx's cache answers
        pytest.param("/v1/basket?store_id=1001", {"user": "ops-etag"}, id="basket"),  # cache off: prerender's 304
    ],
)
def test_if_none_match_gives_304_through_nginx(nginx_front, path, options):
    if path.startswith("/v1/recipe-card"):
        path = with_marker(path)  # a fresh cache entry of this run
    # The basket is a browser route: the shopper's credential, from this deployment's bootstrap.
    hdrs = live_browser_headers(nginx_front.url, **options) if path.startswith("/v1/basket") else headers(**options)
    first = get(nginx_front, path, hdrs)
    assert first.status_code == 200 and first.headers.get("ETag")
    again = get(nginx_front, path, {**hdrs, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.usefixtures("one_credential_step")
def test_a_private_card_answers_in_full_to_a_conditional_request(nginx_front):
    """Where the cache is on, nginx does not pass If-None-Match upstream (prerender's 304 could otherwise
    be stored) and makes no 304 of an answer it cannot store: a private card comes back whole, and right.
    (docs/operations.md; the browser's per-user routes are in a location without cache, with 304s.)"""
    path = "/v1/recipe-card?recipe_id=5&store_id=1001"
    first = get(nginx_front, path, headers(user="ops-etag"))
    again = get(nginx_front, path, {**headers(user="ops-etag"), "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.content == first.content


def test_the_clients_request_id_comes_back_on_a_miss_and_on_a_hit(nginx_front):
    path = with_marker("/v1/styles/recipe-card")
    for request_id, status in (("ops-rid-1", "MISS"), ("ops-rid-2", "HIT")):
        response = get(nginx_front, path, {**headers(), "X-Request-Id": request_id})
        assert response.headers["X-Cache-Status"] == status
        assert response.headers["X-Request-Id"] == request_id  # one header, this request's id
    made = get(nginx_front, path, {**headers(), "X-Request-Id": "not a valid id!"})
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["X-Request-Id"])


def test_static_files_are_immutable_and_cached(nginx_front):
    link = get(nginx_front, with_marker("/v1/styles/recipe-card"), headers()).json()["links"][0]
    first = requests.get(link, timeout=TIMEOUT)
    assert first.status_code == 200 and first.headers["Content-Type"].startswith("text/css")
    assert {"public", "immutable", "max-age=31536000"} <= cache_control(first)
    second = requests.get(link, timeout=TIMEOUT)
    assert second.headers["X-Cache-Status"] == "HIT" and second.content == first.content
    compressed = requests.get(link, headers={"Accept-Encoding": "gzip"}, timeout=TIMEOUT, stream=True)
    assert compressed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(compressed.raw.read()) == first.content


def test_each_encoding_of_a_static_file_is_cached_apart(nginx_front):
    """prerender's precompressed variants (Vary: Accept-Encoding): the key holds the header, so a client that
    does not accept brotli never gets the brotli copy another client filled the cache with."""
    link = get(nginx_front, with_marker("/v1/styles/recipe-card"), headers()).json()["links"][0]
    seen = []
    for accept in ("br, gzip", "gzip", "identity", "br, gzip"):
        answer = requests.get(link, headers={"Accept-Encoding": accept}, timeout=TIMEOUT, stream=True)
        seen.append((answer.headers.get("Content-Encoding"), answer.headers["X-Cache-Status"]))
        assert "Accept-Encoding" in answer.headers["Vary"]
        assert {"public", "immutable", "max-age=31536000"} <= cache_control(answer)
    # (Another test may have cached some of them already: what matters is which copy each client gets.)
    assert [coding for coding, _ in seen] == ["br", "gzip", None, "br"] and seen[-1][1] == "HIT"


def test_requests_without_identity_headers_get_prerenders_400_not_the_cache(nginx_front):
    path = with_marker("/v1/styles/recipe-card")
    get(nginx_front, path, headers())
    assert get(nginx_front, path, headers()).headers["X-Cache-Status"] == "HIT"
    response = get(nginx_front, path, {"language-id": "fr", "session-id": "ops-s"})
    assert response.status_code == 400 and response.headers["Content-Type"] == "application/problem+json"
    assert response.headers["X-Cache-Status"] == "BYPASS"


def test_a_body_over_64_kib_is_refused_in_prerenders_error_shape(nginx_front):
    url = f"{nginx_front.url}/v1/recipe-card/multiple"
    hdrs = {**headers(), "Content-Type": "application/json"}
    refused = requests.post(url, data=b" " * (64 * 1024 + 1), headers=hdrs, timeout=TIMEOUT)
    assert refused.status_code == 413 and refused.headers["Content-Type"] == "application/problem+json"
    assert refused.json()["status"] == 413 and refused.headers["X-Request-Id"]
    assert refused.json()["title"] == "Content Too Large"  # as prerender's own 413 (plumbing/problems.py)
    # 64 KiB exactly reaches prerender, which judges it (blank JSON: 400).
    judged = requests.post(url, data=b" " * (64 * 1024), headers=hdrs, timeout=TIMEOUT)
    assert judged.status_code == 400


def test_health_and_metrics_reach_prerender_uncached(nginx_front):
    for path in ("/healthz", "/readyz", "/metrics"):
        response = get(nginx_front, path)
        assert response.status_code == 200 and "X-Cache-Status" not in response.headers


def test_html_is_compressed(nginx_front):
    response = get(nginx_front, with_marker(PUBLIC["nopers-card"][0]), headers(token=NOPERS), stream=True)
    assert response.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in response.headers["Vary"]


def test_the_access_log_is_json_with_the_request_id(nginx_front):
    get(nginx_front, with_marker("/v1/styles/recipe-card"), {**headers(), "X-Request-Id": "ops-log-line"})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = [json.loads(line) for line in nginx_front.access_log.read_text().splitlines()]
        logged = [line for line in lines if line["request_id"] == "ops-log-line"]
        if logged:
            break
        time.sleep(0.05)
    assert logged and logged[0]["cache"] == "MISS" and logged[0]["status"] == 200
    assert logged[0]["path"] == "/v1/styles/recipe-card"


def logged_line(front: NginxFront, request_id: str) -> dict:
    """The access log's line of one request (nginx writes it once the answer is sent)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = [json.loads(line) for line in front.access_log.read_text().splitlines()]
        logged = [line for line in lines if line["request_id"] == request_id]
        if logged:
            return logged[0]
        time.sleep(0.05)
    raise AssertionError(f"no access log line for {request_id}")


def test_the_access_log_leaves_out_a_query_that_names_a_shopper(nginx_front):
    """A merge's `authless_id` is the visitor's identity at the retailer's site: not in the log. Other queries are."""
    visitor = "ops-log-visitor-4f1c9"
    for name in ("authless_id", "AUTHLESS%5Fid"):
        request_id = f"ops-merge-{len(name)}"
        get(
            nginx_front,
            f"/v1/basket/merge-authless-basket?store_id=1001&{name}={visitor}",
            {"X-Request-Id": request_id},
        )
        line = logged_line(nginx_front, request_id)
        assert line["path"] == "/v1/basket/merge-authless-basket" and line["query"] == "(left out: it names a shopper)"
    get(nginx_front, "/v1/recipe-card?recipe_id=1&store_id=1001", {**headers(), "X-Request-Id": "ops-card-query"})
    assert logged_line(nginx_front, "ops-card-query")["query"] == "recipe_id=1&store_id=1001"
    assert visitor not in nginx_front.access_log.read_text()


@pytest.mark.parametrize(
    ("query", "logged"),
    [
        ("order-id=CMD-ops-000123", "(left out: it names a shopper)"),
        ("store_id=1001&order_id=CMD-ops-000123", "(left out: it names a shopper)"),
        ("search=sans+gluten+pour+ma+fille+coeliaque", "(left out: it holds a shopper's words)"),
        ("page=2&keyword=coeliaque", "(left out: it holds a shopper's words)"),
        ("q=coeliaque", "(left out: it holds a shopper's words)"),
        ("queue=1&page=2", "queue=1&page=2"),  # a name that only starts like one is logged
    ],
)
def test_the_access_log_leaves_out_order_ids_and_a_shoppers_words_and_the_whole_address(nginx_front, query, logged):
    """A payment's order id names a shopper, a search holds their words (a diet, a health condition): neither in
    the log; nor the client's whole address, nor the browser's User-Agent."""
    request_id = f"ops-private-{abs(hash(query)) % 10**8}"
    get(nginx_front, f"/v1/styles/recipe-card?{query}", {"X-Request-Id": request_id, "User-Agent": "Ops-Device/1"})
    line = logged_line(nginx_front, request_id)
    assert line["query"] == logged
    assert line["remote_addr"] == "127.0.0.0" and "user_agent" not in line
    text = nginx_front.access_log.read_text()
    assert "CMD-ops-000123" not in text and "coeliaque" not in text and "Ops-Device" not in text


class AddressMapFront(NginxFront):
    """nginx with the shipped config's map of the logged address alone, reading the address from a header rather
    than the connection's (which is always 127.0.0.1 here), and answering what it would log."""

    def site_config(self) -> str:
        block = re.search(r"map \$remote_addr \$prerender_logged_addr \{.*?\n\}", SHIPPED_CONFIG.read_text(), re.S)
        assert block, "the shipped config maps $remote_addr to $prerender_logged_addr"
        mapped = block.group(0).replace("$remote_addr", "$http_x_test_addr", 1)
        return f"""{mapped}
server {{
    listen 127.0.0.1:{self.port};
    access_log off;
    location / {{ return 200 "$prerender_logged_addr"; }}
}}
"""


@pytest.mark.parametrize(
    ("address", "logged"),
    [
        ("203.0.113.57", "203.0.113.0"),
        ("::ffff:203.0.113.57", "::ffff:203.0.113.0"),
        ("2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3::"),
        ("2001:db8:85a3::7348", "2001:db8:85a3::"),
        ("2001:db8::1234", "2001:db8::"),
        ("2a01::5:6:7:8", "2a01::"),
        ("::1", "::"),
        ("unix:", "-"),
    ],
)
def test_the_logged_address_keeps_a_network_never_a_device(nginx_binary, tmp_path, address, logged):
    with AddressMapFront(nginx_binary, tmp_path) as front:
        answer = requests.get(front.url, headers={"X-Test-Addr": address}, timeout=5)
    assert answer.text == logged


def test_a_clients_own_scheme_headers_are_not_passed_on(nginx_before_gunicorn):
    """gunicorn reads the scheme from X-Forwarded-Ssl and X-Forwarded-Protocol too, and refused a request whose own
    contradicted nginx's X-Forwarded-Proto with a 400."""
    for header in ("X-Forwarded-Ssl", "X-Forwarded-Protocol"):
        value = "on" if header == "X-Forwarded-Ssl" else "https"
        answer = get(nginx_before_gunicorn, "/v1/styles/recipe-card", {**headers(), header: value})
        assert answer.status_code == 200, (header, answer.status_code, answer.text[:200])


# nginx in front of other upstreams: a header echo, and a prerender that can be stopped.


class Echo(BaseHTTPRequestHandler):
    """Answers what it received: the headers nginx sends upstream and the client port of the connection.
    HTTP/1.1 with keep-alive (werkzeug's server closes every connection, so it cannot show reuse)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body = json.dumps(
            {"headers": {k.lower(): v for k, v in self.headers.items()}, "port": self.client_address[1]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_nginx_forwards_host_client_scheme_request_id_and_arrival_on_kept_alive_connections(
    nginx_binary, echo_url, tmp_path
):
    with NginxFront(nginx_binary, tmp_path, echo_url) as front:
        before = time.time()
        first = get(
            front,
            "/echo",
            {"X-Request-Id": "ops-fwd-1", "X-Forwarded-For": "203.0.113.9", "X-Request-Start": "t=1000000000.000"},
        ).json()
        second = get(front, "/echo").json()
        after = time.time()
    sent = first["headers"]
    # nginx's own arrival stamp, the client's replaced (prerender/web/queue_age.py); $msec is nginx's cached time.
    stamps = [float(echoed["headers"]["x-request-start"].removeprefix("t=")) for echoed in (first, second)]
    assert all(before - 0.5 <= stamp <= after for stamp in stamps), (before, stamps, after)
    assert sent["host"] == f"127.0.0.1:{front.port}"
    assert sent["x-forwarded-for"] == "203.0.113.9, 127.0.0.1"
    assert sent["x-forwarded-proto"] == "http"
    assert sent["x-request-id"] == "ops-fwd-1"
    assert re.fullmatch(r"[0-9a-f]{32}", second["headers"]["x-request-id"])
    assert "connection" not in sent  # HTTP/1.1 without `Connection: close`
    assert first["port"] == second["port"]  # the second request came on the same upstream connection


class ShortLived:
    """prerender whose public answers live 2 s instead of 60, so a test sees them expire."""

    MAX_AGE = 2

    def __init__(self, app: Flask) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable):
        def short_lived(status: str, response_headers: list, exc_info=None):
            response_headers = [
                (
                    name,
                    re.sub(r"max-age=\d+", f"max-age={self.MAX_AGE}", value)
                    if name.lower() == "cache-control" and "public" in value
                    else value,
                )
                for name, value in response_headers
            ]
            return start_response(status, response_headers, exc_info)

        return self.app(environ, short_lived)


# nginx counts in whole seconds: an entry of max-age N expires between N and N + 1 s after it was stored.
EXPIRY = ShortLived.MAX_AGE + 1.2


@pytest.fixture
def short_lived_prerender(coreapi_url: str, stack: Stack) -> Iterator[LiveServer]:
    app = prerender.create_app(
        {"UPSTREAM_URL": coreapi_url, "LOG_LEVEL": "WARNING", **TEST_BUDGETS, **stack.cache_config()}
    )
    server = LiveServer(ShortLived(app))  # type: ignore[arg-type]  -- any WSGI callable
    with server:
        yield server
    server.server.server_close()


def wait_for_status(front: NginxFront, path: str, hdrs: dict, wanted: str, seconds: float = 1.5) -> str | None:
    deadline = time.monotonic() + seconds
    while True:
        status = get(front, path, hdrs).headers.get("X-Cache-Status")
        if status == wanted or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def test_stale_public_answers_are_served_while_prerender_is_down(nginx_binary, short_lived_prerender, tmp_path):
    server = short_lived_prerender
    path = PUBLIC["nopers-card"][0]
    hdrs = headers(token=NOPERS)
    with NginxFront(nginx_binary, tmp_path, server.url) as front:
        first = get(front, path, hdrs)
        assert first.status_code == 200 and first.content and first.headers["X-Cache-Status"] == "MISS"
        assert get(front, path, hdrs).headers["X-Cache-Status"] == "HIT"

        # Expired while prerender is up: answered stale once and refreshed in the background (a
        # conditional request: prerender's 304), then fresh again.
        time.sleep(EXPIRY)
        assert get(front, path, hdrs).headers["X-Cache-Status"] == "STALE"
        assert wait_for_status(front, path, hdrs, "HIT") == "HIT"

        # prerender stops (connections refused); once the entry has expired, nginx keeps answering with it.
        server.server.shutdown()
        server.server.server_close()
        time.sleep(EXPIRY)
        for _ in range(3):
            stale = get(front, path, hdrs)
            assert stale.status_code == 200 and stale.headers["X-Cache-Status"] in {"STALE", "UPDATING"}
            assert stale.content == first.content
        # Nothing cached for another URL: the failure shows, in prerender's error shape (never nginx's HTML page,
        # which a customer's server checking only the type could insert).
        failed = get(front, with_marker(path), hdrs)
        assert failed.status_code == 502 and failed.headers["Content-Type"] == "application/problem+json"
        assert failed.json() == {
            "type": "about:blank",
            "title": "Bad Gateway",
            "status": 502,
            "detail": "No prerender node could be reached.",
        }
        assert failed.headers["Retry-After"] == "5" and failed.headers["X-Request-Id"]
        # Its log line names what the client asked for, not nginx's error page.
        line = logged_line(front, failed.headers["X-Request-Id"])
        assert line["status"] == 502 and line["path"] == path.split("?")[0] and "ops=" in line["query"]

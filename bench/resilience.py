"""The busy-day figures of `make bench` (docs/performance.md): a spike at twice the saturating concurrency, one
slow upstream resource, a hung upstream, a node killed, one retailer's upstream calls hung. Fragments are loaded by
wrk (bench/wrk.py); the browser's writes by a Python client that behaves as the SDK does
(prerender/static/sdk/http.js): one Idempotency-Key per write, resent after a network failure or a 502/503/504,
after the answer's Retry-After when it gives one.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import http.client
import json
import os
import statistics
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field

import redis
from bs4 import BeautifulSoup

from . import load, wrk
from .load import Call
from .nginx import NginxFront, find_nginx
from .stack import ROOT, Stack, free_port

# prerender's default upstream budget of a fragment route (UPSTREAM_FRAGMENT_BUDGET, prerender/config.py).
FRAGMENT_BUDGET = 0.8
HUNG_MS = 60_000  # the proxy holds every call this long: an upstream that answers nothing
# The calls of the catalog's pages at the upstream (prerender/gateway/catalog.py): slowed alone in figure 9.
CATALOG_PATHS = ("/api/v1/recipes", "/api/v1/categories", "/api/v1/preferences/options")
SLOW_CATALOG_MS = 2000
SPIKE_MIN_CONNECTIONS = 64
# Figure 11's two retailers of the seed (coreapi/seed/data/suppliers.json): the one whose upstream calls hang
# (supplier 1, the README's personalized retailer) and the other one, measured (supplier 2).
HUNG_RETAILER = "demo-retailer-token"
OTHER_RETAILER = "demo-nopers-token"
TWO_RETAILERS_SECONDS = 8.0
# The other retailer's servers ask as fast as they are served. The hung one's connections each pause 100 ms on
# average between cards (their pace is their shoppers', not the server's), enough of them that while its calls hang
# it wants more than all 16 places of each worker's recipes bulkhead (UPSTREAM_CALLS_IN_FLIGHT), and few enough that
# both retailers' connections together (40 + 8 + 16) never exceed a worker's 64 requests in progress
# (MAX_REQUESTS_IN_PROGRESS): the figure measures the resource's isolation, not admission's (docs/performance.md).
OTHER_CONNECTIONS = 16
HUNG_CONNECTIONS = 40
HUNG_PROBE_CONNECTIONS = 8
HUNG_PAUSE = 0.1
# The SDK's unknown outcomes, resent with the same key.
OUTCOME_UNKNOWN = {0, 502, 503, 504}


@dataclass(frozen=True)
class Row:
    metric: str
    measured: str
    target: str
    met: bool | None


def pair(k: int) -> str:
    return json.dumps([str(100001 + 2 * (k % 160)), str(100002 + 2 * (k % 160))]).replace(" ", "")


def multiple_body(offset: int) -> bytes:
    contexts = [{"productIds": json.loads(pair(offset + k)), "position": k} for k in range(4)]
    return json.dumps({"contexts": contexts, "keyword": None, "categoryId": None, "display_variant": 2}).encode()


def fragment_mix() -> list[Call]:
    """What customers' servers ask on a busy day: the README's logged-in cards, cards by products, a multiple, the
    current-menu page, the catalog home, a publisher's CTA."""
    calls = [Call(f"/v1/recipe-card?recipe_id={r}&store_id=1001") for r in (1, 2, 3, 4, 5)]
    calls += [Call(f"/v1/recipe-card?store_id=1001&surrounding_products_ids={pair(k)}") for k in (3, 9)]
    calls += [
        Call("/v1/recipe-card/multiple?store_id=1001", "POST", multiple_body(7)),
        Call("/v2/planner/current-menu?store_id=1001"),
        Call("/v2/catalog?store_id=1001"),
        Call(
            "/v1/no-supplier-add-to-cart-cta?recipe_id=pub-quiche-lorraine&guests=4",
            headers=(("supplier-token", "demo-publisher-token"),),
        ),
    ]
    return calls


def card_mix() -> list[Call]:
    return [Call(f"/v1/recipe-card?recipe_id={r}&store_id=1001", need_body=True) for r in (1, 2, 3, 4, 5)]


def browser_reads(credential: str) -> list[Call]:
    browser = (("authorization", f"Bearer {credential}"),)
    return [
        Call("/v1/basket?store_id=1001", headers=browser),
        Call("/v1/recipe-details?recipe_id=5&store_id=1001&guests=4", headers=browser),
    ]


def credential_of_url(url: str) -> str:
    """The credential of the bootstrap that `url` answers."""
    request = urllib.request.Request(f"{url}/v2/svc-window-bootstrap", headers=load.HEADERS)
    with urllib.request.urlopen(request, timeout=10) as answer:
        element = BeautifulSoup(answer.read().decode(), "html.parser").find("svc-shopper")
    if element is None:
        raise RuntimeError("the bootstrap carries no credential")
    return str(element["credential"])


@dataclass
class Writes:
    """The outcomes of the browser's basket writes: each write's final status, and every 503's Retry-After."""

    finals: Counter[str] = field(default_factory=Counter)
    refusals_without_retry_after: int = 0
    attempts: int = 0


class BasketWriter(threading.Thread):
    """POST /v1/basket/recipes, one write after the other until stopped (bounded), each with its own key and resent
    as the SDK does (at most 4 attempts)."""

    def __init__(self, base_url: str, credential: str, *, max_seconds: float) -> None:
        super().__init__(daemon=True)
        self.base = urllib.parse.urlsplit(base_url)
        self.headers = {
            "authorization": f"Bearer {credential}",
            "language-id": "fr",
            "session-id": "s-bench",
            "content-type": "application/json",
        }
        self.max_seconds = max_seconds
        self.stop = threading.Event()
        self.writes = Writes()

    def _send(self, conn: http.client.HTTPConnection, body: bytes, key: str) -> tuple[int, str | None]:
        try:
            conn.request("POST", "/v1/basket/recipes", body=body, headers={**self.headers, "idempotency-key": key})
            response = conn.getresponse()
            response.read()
            return response.status, response.getheader("Retry-After")
        except (OSError, http.client.HTTPException):
            conn.close()
            return 0, None

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.base.hostname or "127.0.0.1", self.base.port, timeout=10)
        started = time.monotonic()
        i = 0
        while not self.stop.is_set() and time.monotonic() - started < self.max_seconds and i < 100_000:
            i += 1
            body = json.dumps({"recipe_id": str(1 + i % 20), "store_id": "1001", "guests": 2 + i % 6}).encode()
            key = uuid.uuid4().hex
            status, retry_after = 0, None
            for attempt in range(4):
                status, retry_after = self._send(conn, body, key)
                self.writes.attempts += 1
                if status == 503 and retry_after is None:
                    self.writes.refusals_without_retry_after += 1
                if status not in OUTCOME_UNKNOWN or attempt == 3:
                    break
                time.sleep(min(2.0, float(retry_after)) if retry_after else 0.3)
            if 200 <= status < 300:
                self.writes.finals["done"] += 1
            elif status == 503 and retry_after is not None:
                self.writes.finals["refused (503 + Retry-After)"] += 1
            else:
                self.writes.finals[f"failed ({status})"] += 1


def fragments_failed(result: wrk.WrkResult) -> int:
    return result.statuses["5xx"] + result.socket_errors


def saturating_connections(stack: Stack, calls: list[Call], binary: str) -> tuple[int, dict[int, float]]:
    """The smallest concurrency within 10 % of the best throughput of the fragment mix (3 s per step)."""
    seen: dict[int, float] = {}
    for connections in (2, 4, 8, 16, 32):
        seen[connections] = wrk.run(
            stack.prerender_url, calls, seconds=3, connections=connections, binary=binary
        ).throughput
    best = max(seen.values())
    return min(c for c, rate in seen.items() if rate >= 0.9 * best), seen


def full_service(stack: Stack, credential: str, deadline_seconds: float = 10.0) -> float:
    """Seconds until a card that needs the upstream (a fresh `serves`) renders and the basket answers 200."""
    started = time.monotonic()
    probe = 0
    while time.monotonic() - started < deadline_seconds:
        probe += 1
        card = Call(f"/v1/recipe-card?recipe_id=3&store_id=1001&serves={1 + probe % 50}", need_body=True)
        basket = Call("/v1/basket?store_id=1001", need_body=True, headers=(("authorization", f"Bearer {credential}"),))
        first = load.run(stack.prerender_url, [card], threads=1, max_requests=1, max_seconds=5)
        second = load.run(stack.prerender_url, [basket], threads=1, max_requests=1, max_seconds=5)
        if not first.error_count and not second.error_count:
            return time.monotonic() - started
        time.sleep(0.05)
    return float("inf")


def spike(stack: Stack, seconds: float) -> list[Row]:
    """Twice the concurrency that saturates the server, for `seconds`: fragments (wrk), the browser's reads (wrk)
    and its basket writes (the SDK's way), all at once."""
    binary = wrk.find_wrk()
    metric = "8. spike at 2x the saturating concurrency (64 at least)"
    if binary is None:
        return [Row(metric, "wrk is not installed (Debian's wrk: apt-get install wrk)", "", None)]
    calls = fragment_mix()
    credential = credential_of_url(stack.prerender_url)
    # The unloaded p99: 10 s at one connection (some 600 answers; 3 s gave too few for a steady p99).
    quiet = wrk.run(stack.prerender_url, calls, seconds=10, connections=1, binary=binary)
    saturating, steps = saturating_connections(stack, calls, binary)
    # Twice the saturating concurrency, and 64 connections at least: the upstream is this mix's bottleneck here,
    # so its throughput is flat from a few connections on, and twice "a few" is no spike.
    connections = max(2 * saturating, SPIKE_MIN_CONNECTIONS)
    writer = BasketWriter(stack.prerender_url, credential, max_seconds=seconds + 30)
    browser: dict[str, wrk.WrkResult] = {}

    def browser_load() -> None:
        browser["result"] = wrk.run(
            stack.prerender_url, browser_reads(credential), seconds=seconds, connections=4, binary=binary
        )

    reader = threading.Thread(target=browser_load, daemon=True)
    writer.start()
    reader.start()
    loaded = wrk.run(stack.prerender_url, calls, seconds=seconds, connections=connections, binary=binary)
    reader.join(seconds + 60)
    writer.stop.set()
    writer.join(60)
    recovery = full_service(stack, credential)
    limit = 3 * quiet.p99 + FRAGMENT_BUDGET
    reads = browser.get("result")
    steps_text = ", ".join(f"c{c}: {rate:.0f}/s" for c, rate in steps.items())
    writes = writer.writes
    bad_writes = sum(n for outcome, n in writes.finals.items() if outcome.startswith("failed"))
    return [
        Row(
            f"{metric}: fragment answers >= 500",
            f"{fragments_failed(loaded)} of {loaded.requests} ({loaded.statuses['5xx']} 5xx, {loaded.socket_errors} "
            f"socket errors; {loaded.empty} empty, degraded) at c{connections} for {loaded.seconds:.0f} s "
            f"(saturates at c{saturating}: {steps_text})",
            "0",
            fragments_failed(loaded) == 0,
        ),
        Row(
            "8b. spike: client-side p99 of fragments",
            f"{loaded.p99 * 1000:.0f} ms (p50 {loaded.p50 * 1000:.0f} ms; unloaded p99 {quiet.p99 * 1000:.0f} ms)",
            f"<= 3 x unloaded p99 + budget = {limit * 1000:.0f} ms",
            loaded.p99 <= limit,
        ),
        Row(
            "8c. spike: browser writes (resent with their key)",
            f"{dict(writes.finals)} in {writes.attempts} attempts; {writes.refusals_without_retry_after} 503 without "
            f"Retry-After; reads: {reads.statuses if reads else 'none'}",
            "each done or 503 + Retry-After",
            bad_writes == 0 and writes.refusals_without_retry_after == 0 and bool(writes.finals),
        ),
        Row(
            "8d. spike: full service again after its end",
            f"{recovery:.2f} s",
            "<= 1 s",
            recovery <= 1.0,
        ),
    ]


def slow_resource(stack: Stack, seconds: float) -> list[Row]:
    """The catalog's upstream calls slowed to 2 s while the catalog home, cards and basket writes run: the
    catalog degrades alone; no basket write is refused and the cards answer as before."""
    binary = wrk.find_wrk()
    metric = "9. catalog upstream slowed to 2 s"
    if binary is None:
        return [Row(metric, "wrk is not installed (Debian's wrk: apt-get install wrk)", "", None)]
    credential = credential_of_url(stack.prerender_url)
    cards = card_mix()
    before = wrk.run(stack.prerender_url, cards, seconds=5, connections=4, binary=binary)
    stack.set_delay(SLOW_CATALOG_MS, CATALOG_PATHS)
    catalog: dict[str, wrk.WrkResult] = {}

    def catalog_load() -> None:
        catalog["result"] = wrk.run(
            stack.prerender_url,
            [Call("/v2/catalog?store_id=1001"), Call("/v1/catalog/list?store_id=1001&all_recipes=true")],
            seconds=seconds,
            connections=8,
            binary=binary,
        )

    slow = threading.Thread(target=catalog_load, daemon=True)
    writer = BasketWriter(stack.prerender_url, credential, max_seconds=seconds)
    slow.start()
    writer.start()
    time.sleep(min(3.0, seconds / 4))  # the catalog's calls pile up first
    during = wrk.run(stack.prerender_url, cards, seconds=max(1.0, seconds - 6), connections=4, binary=binary)
    slow.join(seconds + 60)
    writer.stop.set()
    writer.join(60)
    stack.set_delay(0, CATALOG_PATHS)
    writes = writer.writes
    refused = sum(n for outcome, n in writes.finals.items() if not outcome.startswith("done"))
    degraded = catalog.get("result")
    card_failures = fragments_failed(during) + during.empty + during.statuses["4xx"]
    return [
        Row(
            f"{metric}: basket writes refused",
            f"{refused} of {sum(writes.finals.values())} ({dict(writes.finals)}); catalog pages meanwhile: "
            f"{degraded.statuses if degraded else 'none'}, p50 {degraded.p50 * 1000 if degraded else 0:.0f} ms",
            "0",
            refused == 0 and bool(writes.finals),
        ),
        Row(
            "9b. catalog slowed: cards",
            f"p50 {during.p50 * 1000:.1f} / p99 {during.p99 * 1000:.0f} ms, {during.throughput:.0f}/s, {card_failures} "
            f"failed or empty (before: p50 {before.p50 * 1000:.1f} / p99 {before.p99 * 1000:.0f} ms, "
            f"{before.throughput:.0f}/s)",
            "0 failed or empty",
            card_failures == 0,
        ),
    ]


def readiness(stack: Stack) -> int:
    """/readyz's status."""
    try:
        with urllib.request.urlopen(f"{stack.prerender_url}/readyz", timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def upstream_hung(stack: Stack) -> list[Row]:
    """Cards while the upstream answers nothing: each within the budget (+100 ms); once the breakers have opened
    (or the bulkheads shed), a median within 50 ms; /readyz 200 throughout. Fresh cache keys: each card needs the
    upstream (no stale copy), so the documented empty card is the answer."""
    calls = lambda i: Call(f"/v1/recipe-card?recipe_id={1 + i % 40}&store_id=1001&serves={2 + i // 40}")  # noqa: E731
    workers = max(1, len(stack.prerender_workers()))
    # A node that has served before the hang: each worker knows the retailer's token (run alone, on a cold stack,
    # every card would be one no supplier vouches for, mostly shed at the door: docs/decisions.md, "Issue 25: what a
    # twenty-sixth outside check found", Left). Other recipes than the measured ones, so those still need the upstream.
    load.run(
        stack.prerender_url,
        lambda i: Call(f"/v1/recipe-card?recipe_id={41 + i % 4}&store_id=1001"),
        threads=4,
        max_requests=8 * workers,
        max_seconds=30,
    )
    stack.set_delay(HUNG_MS)
    # Enough cards at once that every worker's recipes breaker knows its minimum of calls (20).
    first = load.run(stack.prerender_url, calls, threads=8, max_requests=24 * workers, max_seconds=60)
    ready_during = readiness(stack)
    later = load.run(stack.prerender_url, lambda i: calls(1000 + i), threads=1, max_requests=40, max_seconds=30)
    stack.set_delay(0)
    limit = 1.5 * FRAGMENT_BUDGET
    worst = max([*first.latencies, *later.latencies], default=0.0)
    fast = later.latencies[len(later.latencies) // 2 :]  # one thread: in time order; the breakers are open by then
    middle = statistics.median(fast) if fast else float("inf")
    return [
        Row(
            "4. card latency, upstream hung: worst",
            f"max {worst * 1000:.0f} ms over {first.count + later.count} cards",
            f"<= {limit * 1000:.0f} ms",
            worst <= limit,
        ),
        Row(
            "4b. upstream hung, once open or shed: median",
            f"{middle * 1000:.1f} ms over the last {len(fast)} cards (max {max(fast, default=0) * 1000:.0f} ms); "
            f"/readyz {ready_during}",
            "<= 50 ms, /readyz 200",
            middle <= 0.05 and ready_during == 200,
        ),
    ]


class SharedRedis:
    """A key prefix of this run on the test Redis (PRERENDER_TEST_REDIS_URL, else 127.0.0.1:6379/15) for the nodes
    of figure 10, its keys deleted at the end; `environ` is empty when no Redis answers (each node its own cache)."""

    def __init__(self) -> None:
        self.url = os.environ.get("PRERENDER_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
        self.prefix = f"prerender-bench-{uuid.uuid4().hex[:8]}:"
        self.client: redis.Redis | None = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        try:
            self.client.ping()
        except redis.RedisError:
            self.client = None

    @property
    def environ(self) -> dict[str, str]:
        if self.client is None:
            return {}
        return {"PRERENDER_CACHE_REDIS_URL": self.url, "PRERENDER_CACHE_KEY_PREFIX": self.prefix}

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(redis.RedisError):
                for key in self.client.scan_iter(match=f"{self.prefix}*", count=1000):
                    self.client.delete(key)


def node_killed(stack: Stack, seconds: float) -> list[Row]:
    """Two prerender nodes behind nginx with deploy/nginx/prerender.conf, sharing Redis when one answers: GETs
    (logged-in cards, the shopper's basket) through nginx by wrk, and one node SIGKILLed a third of the way in."""
    metric = "10. two nodes behind nginx, one killed under load: failed GETs"
    binary, nginx = wrk.find_wrk(), find_nginx()
    if binary is None or nginx is None:
        return [Row(metric, "needs Debian's wrk and nginx (apt-get install wrk nginx)", "0", None)]
    shared = SharedRedis()
    try:
        second = stack.start_prerender("prerender-b", free_port(), shared.environ)
        prefix = stack.tmp / "nginx-nodes"
        prefix.mkdir()
        with NginxFront(nginx, prefix, stack.prerender_url, second) as front:
            credential = credential_of_url(front.url)
            calls = [
                *card_mix(),
                Call("/v1/basket?store_id=1001", headers=(("authorization", f"Bearer {credential}"),)),
            ]
            wrk.run(front.url, calls, seconds=2, connections=8, binary=binary)
            outcome: dict[str, wrk.WrkResult] = {}
            loader = threading.Thread(
                target=lambda: outcome.setdefault(
                    "result", wrk.run(front.url, calls, seconds=seconds, connections=16, binary=binary)
                ),
                daemon=True,
            )
            loader.start()
            time.sleep(seconds / 3)
            stack.kill("prerender-b")
            loader.join(seconds + 60)
    finally:
        shared.close()
    result = outcome["result"]
    failed = result.socket_errors + result.statuses["4xx"] + result.statuses["5xx"]
    cache = "sharing Redis" if shared.environ else "each its own cache (no Redis answered)"
    return [
        Row(
            metric,
            f"{failed} of {result.requests} in {result.seconds:.0f} s ({result.statuses}, {result.socket_errors} "
            f"socket errors; {cache})",
            "0",
            failed == 0,
        )
    ]


Card = tuple[str, str, str]  # a recipe, a store, a language


def displayable(stack: Stack, token: str) -> list[Card]:
    """Every seeded recipe at both seeded stores in both languages whose card `token`'s retailer gets whole (some
    recipes are not sold at store 1002: their card is rightly empty, and a degraded one must not hide among them),
    each asked once (without `serves`, a key the figure's cards do not share): this also makes every worker see the
    retailer."""
    recipes = [str(recipe["id"]) for recipe in json.loads((ROOT / "coreapi/seed/data/recipes.json").read_text())]
    cards = [(recipe, store, language) for language in ("fr", "en") for store in ("1001", "1002") for recipe in recipes]

    def whole(card: Card) -> bool:
        recipe, store, language = card
        headers = {**load.HEADERS, "supplier-token": token, "language-id": language}
        url = f"{stack.prerender_url}/v1/recipe-card?recipe_id={recipe}&store_id={store}"
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as answer:
            return bool(answer.read().strip()) and answer.headers.get("X-Degraded") is None

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return [card for card, ok in zip(cards, pool.map(whole, cards), strict=True) if ok]


def fresh_cards(token: str, cards: list[Card], serves: range) -> list[Call]:
    """`token`'s retailer's `cards`, for each of `serves`: each one a recipe read that no cache holds yet (the recipe
    cache keys on the supplier, the recipe, the store, `serves` and the language), so each one needs a place in the
    recipes bulkhead."""
    return [
        Call(
            f"/v1/recipe-card?recipe_id={recipe}&store_id={store}&serves={guests}",
            need_body=True,
            headers=(("supplier-token", token), ("language-id", language)),
        )
        for guests in serves
        for recipe, store, language in cards
    ]


def two_retailers(stack: Stack, seconds: float = TWO_RETAILERS_SECONDS) -> list[Row]:
    """Two retailers' servers ask cards of one deployment at once, each card a recipe read no cache holds. The hung
    retailer (HUNG_RETAILER) on HUNG_CONNECTIONS throughout; the other one (OTHER_RETAILER, measured) on
    OTHER_CONNECTIONS for `seconds` with no fault, then for `seconds` with every upstream call made for the hung
    retailer held by the proxy (HUNG_MS), while HUNG_PROBE_CONNECTIONS more of the hung retailer's measure its own
    cards. The other retailer's throughput and p99 against its own without the fault, its cards failed, empty or
    degraded, and the hung retailer's own cards (bounded by the budget, degraded)."""
    metric = "11. two retailers, one's upstream calls hung: the other's cards / no fault"
    binary = wrk.find_wrk()
    if binary is None:
        return [Row(metric, "wrk is not installed (Debian's wrk: apt-get install wrk)", "", None)]
    # A node that has served both: each worker knows both tokens (as figure 4's warm-up) and both retailers have
    # asked for places (the bulkheads see two tenants, as they do on a deployment of two busy retailers).
    cards = displayable(stack, OTHER_RETAILER)
    displayable(stack, HUNG_RETAILER)
    results: dict[str, wrk.WrkResult] = {}

    def load_in_background(name: str, calls: list[Call], duration: float, connections: int) -> threading.Thread:
        def run() -> None:
            results[name] = wrk.run(
                stack.prerender_url,
                calls,
                seconds=duration,
                connections=connections,
                threads=1,
                pause=HUNG_PAUSE,
                binary=binary,
            )

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def other_retailer(serves: range) -> wrk.WrkResult:
        """The other retailer's cards for `seconds` (one wrk thread: each card of the list once, in order)."""
        return wrk.run(
            stack.prerender_url,
            fresh_cards(OTHER_RETAILER, cards, serves),
            seconds=seconds,
            connections=OTHER_CONNECTIONS,
            threads=1,
            binary=binary,
        )

    # The hung retailer's servers are busy before the fault and through it, on the same connections: each worker's
    # breaker for that retailer starts the fault with a window of its successes (a hang that starts under traffic).
    # Each phase has its own half of the `serves`: no card of the second is in a cache after the first.
    busy = load_in_background(
        "busy", fresh_cards(HUNG_RETAILER, cards, range(1, 26)), 2 * seconds + 2, HUNG_CONNECTIONS
    )
    time.sleep(1)
    before = other_retailer(range(1, 26))
    stack.set_delay(HUNG_MS, supplier_token=HUNG_RETAILER)
    try:
        probe = load_in_background(
            "probe", fresh_cards(HUNG_RETAILER, cards, range(26, 51)), seconds, HUNG_PROBE_CONNECTIONS
        )
        during = other_retailer(range(26, 51))
        probe.join(seconds + 60)
    finally:
        stack.set_delay(0, supplier_token=HUNG_RETAILER)
    busy.join(seconds + 60)
    hung = results["probe"]
    ratio = during.throughput / before.throughput if before.throughput else 0.0
    p99_ratio = during.p99 / before.p99 if before.p99 else float("inf")
    failed = during.socket_errors + during.statuses["4xx"] + during.statuses["5xx"]
    unserved = during.requests - during.whole + during.socket_errors  # failed, empty or degraded
    hung_failed = hung.socket_errors + hung.statuses["4xx"] + hung.statuses["5xx"]
    limit = 1.5 * FRAGMENT_BUDGET
    return [
        Row(
            metric,
            f"throughput {ratio:.2f} ({during.throughput:.0f} vs {before.throughput:.0f}/s), p99 {p99_ratio:.2f} "
            f"({during.p99 * 1000:.0f} vs {before.p99 * 1000:.0f} ms; p50 {during.p50 * 1000:.0f} vs "
            f"{before.p50 * 1000:.0f} ms); {during.requests} and {before.requests} cards of {25 * len(cards)} "
            f"fresh ones each; the hung retailer's servers {results['busy'].throughput:.0f}/s over both",
            ">= 0.80, p99 <= 1.5x",
            ratio >= 0.8 and p99_ratio <= 1.5,
        ),
        Row(
            "11b. one retailer's calls hung: the other's cards failed, empty or degraded",
            f"{unserved} of {during.requests} ({failed} failed, {during.empty} empty, {during.degraded} X-Degraded; "
            f"without the fault {before.requests - before.whole + before.socket_errors} of {before.requests})",
            "0",
            unserved == 0,
        ),
        Row(
            "11c. one retailer's calls hung: its own cards",
            f"worst {hung.worst * 1000:.0f} ms, p99 {hung.p99 * 1000:.0f} ms, p50 {hung.p50 * 1000:.0f} ms; "
            f"{hung.degraded} of {hung.requests} X-Degraded ({hung.empty} empty), {hung_failed} failed",
            f"<= {limit * 1000:.0f} ms, each degraded",
            hung.worst <= limit and hung.degraded == hung.requests and hung.requests > 0 and hung_failed == 0,
        ),
    ]

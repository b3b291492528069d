"""`python -m bench`: start a private stack, measure the figures of docs/performance.md, print a table.

BENCH_SECONDS (default 60) is the mixed load's duration; BENCH_THREADS (default 8) the load's threads;
BENCH_FIGURES (e.g. "1,4") measures only those figures; BENCH_PROCESSES (default 4) the load processes of the
throughput figures (1), each with BENCH_THREADS threads.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from types import FrameType

from bs4 import BeautifulSoup

from . import load, resilience, wrk
from .load import Call
from .nginx import NginxFront, find_nginx, free_port
from .resilience import Row
from .stack import Stack, rss_mb

# The README's first case: the card of a logged-in user at a personalized retailer (`demo-retailer-token`,
# load.HEADERS). Its HTML does not depend on who the user is beyond connected (the browser fills in the hearts),
# so it comes from the fragment memo; each answer ends with its shopper's credential. The public card: a fixed
# recipe of a supplier with personalization disabled, the same for every user (cacheable by a shared cache).
CARD = Call(
    "/v1/recipe-card?recipe_id=1&store_id=1001", need_body=True, headers=(("supplier-token", "demo-nopers-token"),)
)
LOGGED_IN_CARD = Call("/v1/recipe-card?recipe_id=1&store_id=1001", need_body=True)
HELLO = Call("/healthz")
# wrk's connections for the throughput figures: enough to keep both workers busy on a 2-CPU machine.
WRK_CONNECTIONS = 16
CONNECT_TIMEOUT = 0.5
# The current-menu page's upstream calls (prerender/rendering/current_menu.py): menu, panel, prices.
PAGE_CALLS = 3
DELAY_MS = 20


def pair(k: int) -> list[str]:
    return [str(100001 + 2 * (k % 160)), str(100002 + 2 * (k % 160))]


def single(k: int, serves: int) -> Call:
    ids = json.dumps(pair(k)).replace(" ", "")
    return Call(f"/v1/recipe-card?store_id=1001&serves={serves}&surrounding_products_ids={ids}")


def multiple(contexts: int, serves: int, offset: int = 0) -> Call:
    body = {
        "contexts": [{"productIds": pair(offset + k), "position": k} for k in range(contexts)],
        "keyword": None,
        "categoryId": None,
        "display_variant": 2,
    }
    return Call(f"/v1/recipe-card/multiple?store_id=1001&serves={serves}", "POST", json.dumps(body).encode())


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def many_users(i: int) -> Call:
    """The logged-in card for a stream of different users (each card its own credential element)."""
    return Call(LOGGED_IN_CARD.path, need_body=True, headers=(("authorization", f"user_id bench-user-{i % 5000}"),))


def many_users_template() -> Call:
    """The logged-in card for a stream of 5000 different users, as a wrk request template ({n}: bench/wrk.py)."""
    return Call(LOGGED_IN_CARD.path, need_body=True, headers=(("authorization", "user_id bench-user-{n}"),))


def throughput_ratio(stack: Stack, threads: int, processes: int, rounds: int = 5, seconds: float = 2.0) -> list[Row]:
    """Hello-world and the cards in alternation, `rounds` times, each loaded by wrk (-t2 -c16) for `seconds`: a
    2-CPU machine drifts (its other processes) more than the figure being measured, so each round's ratio
    compares neighbours, and the median of the rounds is reported with their range. The headline is the
    README's first case, a logged-in user at a personalized retailer; the same card for many users and the
    public card of a supplier without personalization follow. Without wrk, bench/load.py's Python generator
    (BENCH_PROCESSES processes of BENCH_THREADS threads), which cannot saturate /healthz and flatters the ratios:
    the table says which one measured."""
    binary = wrk.find_wrk()
    cards: dict[str, Call | Callable[[int], Call]] = {
        "logged-in": LOGGED_IN_CARD,
        "users": many_users_template() if binary else many_users,
        "public": CARD,
    }

    def measure(call: Call | Callable[[int], Call], seconds: float) -> tuple[float, int]:
        """Requests per second, and the failures (status >= 400, an empty card, socket errors)."""
        if binary is not None and isinstance(call, Call):
            result = wrk.run(stack.prerender_url, [call], seconds=seconds, connections=WRK_CONNECTIONS, binary=binary)
            failures = result.socket_errors + sum(result.statuses[c] for c in ("4xx", "5xx"))
            return result.throughput, failures + (result.empty if call.need_body else 0)
        calls = call if callable(call) else [call]
        run = load.run_processes(stack.prerender_url, calls, processes=processes, threads=threads, max_seconds=seconds)
        return run.throughput, run.error_count

    for call in cards.values():  # long enough for every worker to get (and cache) each card
        measure(call, 2)
    ratios: dict[str, list[float]] = {name: [] for name in cards}
    last: dict[str, float] = {}
    errors = 0
    hello = 0.0
    for _ in range(rounds):
        hello, failed = measure(HELLO, seconds)
        errors += failed
        for name, call in cards.items():
            throughput, failed = measure(call, seconds)
            ratios[name].append(throughput / hello)
            last[name] = throughput
            errors += failed
    last["hello"] = hello
    generator = f"wrk -t2 -c{WRK_CONNECTIONS}" if binary else f"Python, {processes}x{threads} (no wrk: flatters)"

    def measured(name: str) -> str:
        values = ratios[name]
        return (
            f"{median(values):.2f} (median of {rounds} rounds, {min(values):.2f} to {max(values):.2f}; last round "
            f"{last[name]:.0f} vs {last['hello']:.0f} req/s; {generator})"
        )

    return [
        Row(
            "1. logged-in card, personalized retailer / hello-world throughput",
            f"{measured('logged-in')}; {errors} errors",
            ">= 0.70",
            median(ratios["logged-in"]) >= 0.7 and not errors,
        ),
        Row(
            "1b. the same card for a stream of different users / hello-world",
            measured("users"),
            ">= 0.60",
            median(ratios["users"]) >= 0.6 and not errors,
        ),
        Row("1c. public card (no personalization) / hello-world", measured("public"), "(info)", None),
    ]


def fan_out_ratio(stack: Stack) -> Row:
    stack.set_delay(DELAY_MS)
    singles: list[float] = []
    multiples: list[float] = []
    errors = 0
    for i in range(8):  # a fresh `serves` each round: the recipe cache never answers
        for calls, out in (([single(i, 2 + i)], singles), ([multiple(24, 20 + i, i)], multiples)):
            result = load.run(stack.prerender_url, calls, threads=1, max_requests=1, max_seconds=30)
            out.extend(result.latencies)
            errors += result.error_count
    stack.set_delay(0)
    ratio = median(multiples) / median(singles)
    measured = (
        f"{ratio:.2f} ({median(multiples) * 1000:.0f} vs {median(singles) * 1000:.0f} ms median, {errors} errors)"
    )
    return Row(
        f"2. 24-context multiple / single card latency, +{DELAY_MS} ms upstream",
        measured,
        "<= 1.50",
        ratio <= 1.5 and not errors,
    )


def shopper_credential(prerender_url: str) -> str:
    """The credential of the bench's shopper, as a browser gets it: from the bootstrap's `<svc-shopper>`."""
    return resilience.credential_of_url(prerender_url)


def menu_of(stack: Stack, user: str, recipes: int) -> None:
    """A logged-in user's menu of `recipes` recipes at store 1001, built as the page's module does."""
    headers = {**load.HEADERS, "authorization": f"user_id {user}"}
    url = f"{stack.prerender_url}/v2/planner/current-menu?store_id=1001&mode=custom"
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:
        element = BeautifulSoup(answer.read().decode(), "html.parser").find("svc-shopper")
    if element is None:
        raise RuntimeError("the current-menu page carries no credential")
    browser = {"authorization": f"Bearer {element['credential']}", "language-id": "fr", "session-id": "s-123"}
    added, candidate = 0, 1
    while added < recipes and candidate <= 60:
        body = json.dumps({"recipe_id": str(candidate)}).encode()
        request = urllib.request.Request(
            f"{stack.prerender_url}/v2/menu/current/recipes",
            data=body,
            method="POST",
            headers={**browser, "content-type": "application/json", "idempotency-key": f"{user}-{candidate}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30):
                added += 1
        except urllib.error.HTTPError as error:  # 409: not available at the store; try the next recipe
            if error.code != 409:
                raise
        candidate += 1
    if added < recipes:
        raise RuntimeError(f"only {added} recipes could join the bench's menu")


def planner_page(stack: Stack) -> Row:
    """The current-menu page of a logged-in user (the README's first case: a personalized retailer) costs a
    bounded number of upstream calls whatever its menu holds (the menu, the panel's recipes, their prices,
    which are often cached): 1 recipe against 12, with +20 ms per upstream call."""
    run = f"{time.time_ns()}"
    small, large = f"bench-planner-1-{run}", f"bench-planner-12-{run}"
    menu_of(stack, small, 1)
    menu_of(stack, large, 12)
    stack.set_delay(DELAY_MS)
    calls: dict[str, list[int]] = {small: [], large: []}
    latencies: dict[str, list[float]] = {small: [], large: []}
    errors = 0
    for _ in range(5):
        for user in (small, large):
            call = Call(
                "/v2/planner/current-menu?store_id=1001",
                need_body=True,
                headers=(("authorization", f"user_id {user}"),),
            )
            before = stack.forwarded()
            result = load.run(stack.prerender_url, [call], threads=1, max_requests=1, max_seconds=30)
            calls[user].append(stack.forwarded() - before)
            latencies[user].extend(result.latencies)
            errors += result.error_count
    stack.set_delay(0)
    few, many = max(calls[small]), max(calls[large])
    ratio = median(latencies[large]) / median(latencies[small])
    measured = (
        f"at most {many} vs {few} upstream calls, latency ratio {ratio:.2f} "
        f"({median(latencies[large]) * 1000:.0f} vs {median(latencies[small]) * 1000:.0f} ms median, {errors} errors)"
    )
    return Row(
        f"6. current-menu page, 12-recipe / 1-recipe menu, +{DELAY_MS} ms upstream",
        measured,
        f"<= {PAGE_CALLS} calls each, ratio <= 1.50",
        max(many, few) <= PAGE_CALLS and ratio <= 1.5 and not errors,
    )


def mixed_load(stack: Stack, seconds: float, threads: int) -> Row:
    # The browser routes take the shopper's credential, not the fragments' headers (docs/security.md).
    browser = (("authorization", f"Bearer {shopper_credential(stack.prerender_url)}"),)
    calls = [Call(f"/v1/recipe-card?recipe_id={r}&store_id=1001", need_body=True) for r in (1, 2, 3, 4, 5)]
    calls += [
        multiple(4, 4, 7),
        Call("/v1/styles/recipe-card", need_body=True),
        Call("/v1/recipe-details?recipe_id=5&store_id=1001&guests=4", need_body=True, headers=browser),
        Call("/v1/basket?store_id=1001", need_body=True, headers=browser),
        single(3, 4),
        # The logged-in user's current-menu page (its menu made by the first call) and a publisher's CTA.
        Call("/v2/planner/current-menu?store_id=1001", need_body=True),
        Call(
            "/v1/no-supplier-add-to-cart-cta?recipe_id=pub-quiche-lorraine&guests=4",
            need_body=True,
            headers=(("supplier-token", "demo-publisher-token"),),
        ),
    ]
    result = load.run(stack.prerender_url, calls, threads=threads, max_requests=10_000_000, max_seconds=seconds)
    detail = "; ".join(f"{k}: {v}" for k, v in sorted(result.errors.items())[:4])
    measured = (
        f"p50 {result.percentile(0.5) * 1000:.1f} ms, p99 {result.percentile(0.99) * 1000:.1f} ms, "
        f"{result.count} requests in {result.elapsed:.0f} s, {result.error_count} errors"
        + (f" ({detail})" if detail else "")
    )
    return Row("3. mixed load errors (p50/p99)", measured, "0 errors", result.error_count == 0)


def memory(stack: Stack) -> Row:
    sizes = [rss_mb(pid) for pid in stack.prerender_workers()]
    worst = max(sizes, default=0.0)
    measured = f"{worst:.0f} MB max ({', '.join(f'{s:.0f}' for s in sizes)} MB, {len(sizes)} workers)"
    return Row("5. RSS per prerender worker after load", measured, "< 100 MB", bool(sizes) and worst < 100)


def upstream_down(stack: Stack) -> Row:
    stack.stop("coreapi")
    stack.stop("proxy")  # the upstream address now refuses connections, as a stopped coreapi does
    latencies: list[float] = []
    errors = 0
    for i in range(20):  # fresh cache keys: each card needs the upstream
        call = Call(f"/v1/recipe-card?recipe_id=1&store_id=1001&serves={30 + i}") if i % 2 else single(i, 30 + i)
        result = load.run(stack.prerender_url, [call], threads=1, max_requests=1, max_seconds=30)
        latencies.extend(result.latencies)
        errors += result.error_count
    worst = max(latencies)
    limit = CONNECT_TIMEOUT + 0.05
    measured = f"max {worst * 1000:.0f} ms, median {median(latencies) * 1000:.0f} ms, {errors} non-2xx"
    return Row("4. card latency, upstream down", measured, f"<= {limit * 1000:.0f} ms", worst <= limit)


def table(rows: list[Row]) -> str:
    header = ("metric", "measured", "target", "result")
    verdicts = {True: "met", False: "MISSED", None: "-"}
    lines = [header] + [(r.metric, r.measured, r.target, verdicts[r.met]) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    out = [" | ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)


def on_term(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def cache_in_front(stack: Stack, threads: int, rounds: int = 5, seconds: float = 2.0) -> Row:
    """The public card served from the cache of nginx with the shipped config, against a static file of the same
    size from the same nginx (another server block), in alternating rounds: what the cache in front costs."""
    metric = "7. public card from nginx's cache / same-size static file"
    binary = find_nginx()
    if binary is None:
        return Row(metric, "nginx is not installed (Debian's nginx: apt-get install nginx)", ">= 0.50", None)
    prefix, static = stack.tmp / "nginx", stack.tmp / "static"
    prefix.mkdir()
    static.mkdir()
    static_port = free_port()
    server = f"server {{ listen 127.0.0.1:{static_port}; root {static}; default_type text/html; }}"
    with NginxFront(binary, prefix, stack.prerender_url, extra_http=server) as front:
        headers = {**load.HEADERS, **dict(CARD.headers)}
        body, status = b"", ""
        for _ in range(20):  # until nginx answers from its cache
            request = urllib.request.Request(front.url + CARD.path, headers=headers)
            with urllib.request.urlopen(request, timeout=10) as answer:
                body, status = answer.read(), answer.headers.get("X-Cache-Status", "")
            if status == "HIT":
                break
            time.sleep(0.2)
        if status != "HIT" or not body:
            return Row(metric, f"the card never came from the cache (X-Cache-Status {status!r})", ">= 0.50", False)
        (static / "card.html").write_bytes(body)
        static_url, file = f"http://127.0.0.1:{static_port}", Call("/card.html", need_body=True)
        ratios: list[float] = []
        errors = 0
        for _ in range(rounds):
            plain = load.run(static_url, [file], threads=threads, max_requests=10**6, max_seconds=seconds)
            cached = load.run(front.url, [CARD], threads=threads, max_requests=10**6, max_seconds=seconds)
            ratios.append(cached.throughput / plain.throughput)
            errors += plain.error_count + cached.error_count
    ratio = median(ratios)
    measured = (
        f"{ratio:.2f} (median of {rounds} rounds, {min(ratios):.2f} to {max(ratios):.2f}; last round "
        f"{cached.throughput:.0f} vs {plain.throughput:.0f} req/s, {len(body)} bytes; {errors} errors)"
    )
    return Row(metric, measured, ">= 0.50", ratio >= 0.5 and not errors)


def private_cards_through_nginx(stack: Stack, rounds: int = 3, seconds: float = 3.0) -> Row:
    """The README's first case for many users at once (one URL, another user on each request: private answers
    nginx neither stores nor shares) through nginx with the shipped config, against prerender directly, in
    alternating rounds: the cache in front must not queue shoppers behind each other's answers."""
    metric = "7b. logged-in cards of many users through nginx / directly"
    binary, wrk_binary = find_nginx(), wrk.find_wrk()
    if binary is None or wrk_binary is None:
        return Row(metric, "needs nginx and wrk (Debian's nginx and wrk packages)", ">= 0.50, p99 <= 2x + 50 ms", None)
    prefix = stack.tmp / "nginx-private"
    prefix.mkdir()
    call = many_users_template()
    ratios: list[float] = []
    errors = 0
    with NginxFront(binary, prefix, stack.prerender_url) as front:
        for _ in range(rounds):
            direct = wrk.run(
                stack.prerender_url, [call], seconds=seconds, connections=WRK_CONNECTIONS, binary=wrk_binary
            )
            fronted = wrk.run(front.url, [call], seconds=seconds, connections=WRK_CONNECTIONS, binary=wrk_binary)
            ratios.append(fronted.throughput / direct.throughput)
            for result in (direct, fronted):
                errors += result.socket_errors + result.statuses["4xx"] + result.statuses["5xx"] + result.empty
    ratio = median(ratios)
    measured = (
        f"{ratio:.2f} (median of {rounds} rounds, {min(ratios):.2f} to {max(ratios):.2f}; last round "
        f"{fronted.throughput:.0f} vs {direct.throughput:.0f} req/s, p99 {fronted.p99 * 1000:.0f} ms vs "
        f"{direct.p99 * 1000:.0f} ms, worst {fronted.worst * 1000:.0f} ms vs {direct.worst * 1000:.0f} ms; "
        f"{errors} errors; wrk -t2 -c{WRK_CONNECTIONS})"
    )
    held = fronted.p99 <= 2 * direct.p99 + 0.05
    return Row(metric, measured, ">= 0.50, p99 <= 2x + 50 ms", ratio >= 0.5 and held and not errors)


# The figures `make bench` measures, in order; BENCH_FIGURES (e.g. "1,4") runs some of them alone.
FIGURES = ("1", "7", "2", "6", "3", "5", "9", "8", "10", "11", "4")


def selected_figures() -> tuple[str, ...]:
    wanted = {part.strip() for part in os.environ.get("BENCH_FIGURES", "").split(",") if part.strip()}
    unknown = wanted - set(FIGURES)
    if unknown:
        known = ", ".join(sorted(FIGURES))
        raise SystemExit(f"BENCH_FIGURES: no figure {', '.join(sorted(unknown))} (figures: {known})")
    return tuple(figure for figure in FIGURES if not wanted or figure in wanted)


def figure_order(row: Row) -> tuple[int, str]:
    """Figure 2 before figure 10: by number, then by the rest of the name."""
    number = row.metric.split(".", 1)[0]
    digits = number.rstrip("abcdefgh")
    return int(digits) if digits.isdigit() else 0, row.metric


def reproduce(rows: list[Row]) -> str:
    """The command that measures each figure of the table again, alone."""
    figures = sorted({row.metric.split(".", 1)[0].rstrip("abcdefgh") for row in rows}, key=lambda f: (len(f), f))
    lines = [f"  figure {f}: BENCH_FIGURES={f} make bench" for f in figures]
    return "reproduce a figure alone (BENCH_SECONDS, BENCH_THREADS apply to figure 3):\n" + "\n".join(lines)


def main() -> int:
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    seconds = float(os.environ.get("BENCH_SECONDS", "60"))
    threads = int(os.environ.get("BENCH_THREADS", "8"))
    processes = int(os.environ.get("BENCH_PROCESSES", "4"))
    spike_seconds = float(os.environ.get("BENCH_SPIKE_SECONDS", "30"))
    figures = selected_figures()
    started = time.monotonic()
    with Stack() as stack:
        print(
            f"stack up: prerender {stack.prerender_url}, proxy {stack.proxy_url}, coreapi {stack.coreapi_url}"
            f" (logs in {stack.tmp})",
            flush=True,
        )
        measures = {
            "1": lambda: throughput_ratio(stack, threads, processes),
            "7": lambda: [cache_in_front(stack, threads), private_cards_through_nginx(stack)],
            "2": lambda: [fan_out_ratio(stack)],
            "6": lambda: [planner_page(stack)],
            "3": lambda: [mixed_load(stack, seconds, threads)],
            "5": lambda: [memory(stack)],
            "9": lambda: resilience.slow_resource(stack, spike_seconds),
            "8": lambda: resilience.spike(stack, spike_seconds),
            "10": lambda: resilience.node_killed(stack, 15),
            "11": lambda: resilience.two_retailers(stack),
            "4": lambda: [*resilience.upstream_hung(stack), upstream_down(stack)],
        }
        rows: list[Row] = []
        for figure in figures:
            measured = measures[figure]()
            rows.extend(measured)
            for row in measured:
                print(f"measured {row.metric}: {row.measured}", flush=True)
    rows.sort(key=figure_order)
    print(f"\n{table(rows)}\n\n{reproduce(rows)}")
    print(
        f"\n{os.cpu_count()} CPUs, {threads} load threads ({processes} processes for figure 1), "
        f"{time.monotonic() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

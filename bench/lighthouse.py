"""`python -m bench.lighthouse [SHOP_URL] [BLOG_URL]`: the shopper's side of the demo sites under `make run`.

Runs Lighthouse (npm's `lighthouse`, fetched by npx into its cache on first use, pinned below) on each page that
carries prerender's fragments, in the system Chromium, with Lighthouse's mobile profile and its default
simulated throttling, and prints one row a page: the performance score, LCP, TBT, CLS, the requests, the
JavaScript files and bytes served by prerender, and every byte transferred. Each page is measured RUNS times
and the median run (by score) is printed, as Lighthouse's own guidance asks for a noisy machine.

The score depends on the host's CPU: the simulated 4x slowdown multiplies this machine's own times. So each row
also prints the page's main-thread work (Lighthouse's "mainthread-work-breakdown", in simulated milliseconds),
which shows what a change saves even where TBT is already near 0, and the last line prints Lighthouse's
benchmark index of the host (higher is faster), which a figure must be quoted with. LIGHTHOUSE_CPU_SLOWDOWN
(default: Lighthouse's own, 4) stands in for a slower host: Lighthouse's guidance scales the multiplier with the
benchmark index, so a host of a third of this one's index is measured here with 12.

Lighthouse 13 asks for Node.js 22 and warns on the machine's Node.js 20 (npm's EBADENGINE), then runs.
The shop and the blog must be running (`make run`; SHOP_URL and BLOG_URL default to its addresses), with the
seed's demo store chosen where a page needs one (the planner's URL carries it).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

LIGHTHOUSE = "lighthouse@13"
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
RUNS = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
CPU_SLOWDOWN = os.environ.get("LIGHTHOUSE_CPU_SLOWDOWN")  # None: Lighthouse's mobile default (4)
TIMEOUT_SECONDS = 180
# The printed columns and their widths: JS files and KB are prerender's scripts; KB alone is every transfer.
COLUMNS = (
    ("score", 5),
    ("LCP s", 6),
    ("TBT ms", 7),
    ("main ms", 7),
    ("CLS", 6),
    ("req", 4),
    ("JS files", 8),
    ("JS KB", 6),
    ("KB", 6),
)


def pages(shop: str, blog: str) -> dict[str, str]:
    """The pages of issue 24's table: each carries fragments of prerender, but the blog's category page."""
    return {
        "shop home (cards between products)": f"{shop}/",
        "shop planner (current menu)": f"{shop}/planner/current-menu?store_id=1001",
        "shop recipe catalog": f"{shop}/idees",
        "shop injection page": f"{shop}/injection",
        "blog recipe page (CTA)": f"{blog}/recettes/pub-salade-nicoise",
        "blog category page": f"{blog}/recettes?categorie=plats",
    }


@dataclass(frozen=True)
class Run:
    score: int
    lcp_ms: float
    tbt_ms: float
    main_thread_ms: float
    cls: float
    requests: int
    prerender_js_files: int
    prerender_js_bytes: int
    transfer_bytes: int
    benchmark_index: float


def measure(url: str, prerender_origin: str | None) -> Run:
    """One Lighthouse run of `url` (mobile, simulated throttling), read from its JSON report."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            [
                "npx",
                "--yes",
                LIGHTHOUSE,
                url,
                "--only-categories=performance",
                "--output=json",
                f"--output-path={report}",
                "--quiet",
                "--chrome-flags=--headless=new --no-sandbox",
                *([f"--throttling.cpuSlowdownMultiplier={CPU_SLOWDOWN}"] if CPU_SLOWDOWN else []),
            ],
            env={**os.environ, "CHROME_PATH": CHROMIUM},
            check=True,
            timeout=TIMEOUT_SECONDS,
        )
        return read_report(json.loads(report.read_text()), prerender_origin)


def read_report(lhr: dict[str, Any], prerender_origin: str | None) -> Run:
    audits = lhr["audits"]
    requests: list[dict[str, Any]] = audits["network-requests"]["details"]["items"]
    scripts = [
        item
        for item in requests
        if item.get("resourceType") == "Script"
        and (prerender_origin is None or item["url"].startswith(prerender_origin))
    ]
    return Run(
        score=round(100 * (lhr["categories"]["performance"]["score"] or 0)),
        lcp_ms=audits["largest-contentful-paint"]["numericValue"],
        tbt_ms=audits["total-blocking-time"]["numericValue"],
        main_thread_ms=audits["mainthread-work-breakdown"]["numericValue"],
        cls=audits["cumulative-layout-shift"]["numericValue"],
        requests=len(requests),
        prerender_js_files=len(scripts),
        prerender_js_bytes=sum(int(item.get("transferSize") or 0) for item in scripts),
        transfer_bytes=sum(int(item.get("transferSize") or 0) for item in requests),
        benchmark_index=float(lhr["environment"]["benchmarkIndex"]),
    )


def prerender_origin_of(shop: str) -> str:
    """prerender's origin as `make run` starts it (PRERENDER_PORT, 8000), on the shop's host."""
    host = urlsplit(shop).hostname or "127.0.0.1"
    return f"http://{host}:{os.environ.get('PRERENDER_PORT', '8000')}"


def main(argv: list[str]) -> int:
    shop = argv[1] if len(argv) > 1 else f"http://127.0.0.1:{os.environ.get('SHOP_PORT', '8080')}"
    blog = argv[2] if len(argv) > 2 else f"http://127.0.0.1:{os.environ.get('PUBLISHER_PORT', '8090')}"
    origin = prerender_origin_of(shop)
    slowdown = f"CPU slowdown {CPU_SLOWDOWN or 4}"
    print(f"Lighthouse ({LIGHTHOUSE}, mobile, simulated throttling, {slowdown}), median of {RUNS} runs")
    print(f"prerender at {origin}")
    print(f"{'page':<38} " + " ".join(f"{name:>{width}}" for name, width in COLUMNS))
    benchmark_indexes: list[float] = []
    for name, url in pages(shop, blog).items():
        runs = sorted((measure(url, origin) for _ in range(RUNS)), key=lambda run: run.score)
        benchmark_indexes += [run.benchmark_index for run in runs]
        run = runs[(len(runs) - 1) // 2]  # the median run, the lower one of an even count
        print(
            f"{name:<38} {run.score:>5} {run.lcp_ms / 1000:>6.1f} {run.tbt_ms:>7.0f} {run.main_thread_ms:>7.0f} "
            f"{run.cls:>6.3f} "
            f"{run.requests:>4} {run.prerender_js_files:>8} {run.prerender_js_bytes / 1024:>6.0f} "
            f"{run.transfer_bytes / 1024:>6.0f}",
            flush=True,
        )
    index = statistics.median(benchmark_indexes)
    print(f"benchmark index of this host (Lighthouse's, higher is faster): median {index:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

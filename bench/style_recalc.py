"""`python -m bench.style_recalc [SHOP_URL]`: what base.css's shield against host CSS costs the browser.

The first rules of `prerender/static/css/base.css` take back the browser's styles on every element inside a
component (`all: revert`, docs/styles.md). This loads the demo shop's catalog home (`/idees`, about 1 500 elements
inside components) in the system Chromium, in alternating rounds with the sheet as served and with those rules cut
out of it, and prints Chromium's own counters (CDP `Performance.getMetrics`): the time spent recalculating styles
and in layout during the load, medians of ROUNDS rounds and their range. The shop must be running (`make run`).
"""

from __future__ import annotations

import re
import statistics
import sys

from playwright.sync_api import Route, sync_playwright

ROUNDS = 10
CHROMIUM = "/usr/bin/chromium"
# The readable tree's section, and the release tree's minified rules (tools/build_static.mjs).
SECTION = re.compile(r"/\* -+ host rules taken back \*/.*?(?=/\* -+ typography helpers \*/)", re.DOTALL)
# Every rule starts from `:root` (docs/styles.md); the toaster's own revert, between the two, stays.
MINIFIED = re.compile(
    r":root \.svc-ds-scope :where\(:not\(svg,svg \*,img\)\)\{all:revert\}"
    r"(?P<toaster>:root \.svc-toaster\{all:revert\})?"
    r":root \.svc-ds-scope :where\(img\)\{[^}]*\}"
)


def without_the_shield(route: Route) -> None:
    response = route.fetch()
    body, readable = SECTION.subn("", response.text())
    body, minified = MINIFIED.subn(lambda match: match.group("toaster") or "", body)
    if readable + minified != 1:  # the sheet changed: the comparison would measure nothing
        raise SystemExit(f"bench.style_recalc: found the shield {readable + minified} times in base.css")
    route.fulfill(response=response, body=body)


def main() -> int:
    shop = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
    measured: dict[str, list[tuple[float, float]]] = {"as served": [], "without the shield": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for _ in range(ROUNDS):
            for mode, rows in measured.items():
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                if mode == "without the shield":
                    page.route(re.compile(r".*/css/base\.css"), without_the_shield)
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                page.goto(f"{shop}/idees", wait_until="networkidle")
                metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                rows.append((metrics["RecalcStyleDuration"] * 1000, metrics["LayoutDuration"] * 1000))
                page.close()
        browser.close()
    for mode, rows in measured.items():
        styles, layout = [r[0] for r in rows], [r[1] for r in rows]
        print(
            f"{mode:20} style recalculation {statistics.median(styles):5.1f} ms ({min(styles):.0f} to "
            f"{max(styles):.0f}), layout {statistics.median(layout):5.1f} ms, {ROUNDS} loads of {shop}/idees"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m bench.shifts URL [WIDTHxHEIGHT ...]`: where a page that arrives in two parts moves on screen.

Chromium may paint an HTML page before all of it has arrived. What it painted then moves when the rest comes if a
later element takes room above an earlier one, or if a box was painted before its contents (a layout shift, what
CLS counts). This loads URL whole, then through a forwarder (bench/split_delivery.py) that holds the page back
right before its Nth start tag inside `<body>`, for each N in turn, at each viewport size given (default
1280x900, 1920x1080 and 375x740), in Chromium. It prints every load after which Chromium reported a shift: the tag
cut before (none for the whole load: what moves then is no cut's doing), what moved (`tag.class`, or UNNAMED for
a `::before` box), and from where to where. A page whose `<link rel="expect" blocking="render">` names the element
after its first screen on each of those screens prints none (README.md, "Have your first screen painted whole").
Exits 1 when a load moved something, 2 when the page was never cut (a redirect away from the forwarder, an answer
that is not HTML).

The site must be running (`make run`). SHIFTS_EVERY=K tries every Kth tag only (default 1); SHIFTS_PAUSE the
seconds the page is held back (default 0.5); SHIFTS_COOKIES="name=value; ..." sends cookies (a demo shop's
`dm_store=1001`, its shopper's session: the same page for each load); CHROME_PATH the browser (default
/usr/bin/chromium).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, sync_playwright

from .split_delivery import Cut, split_forwarder

SIZES = ["1280x900", "1920x1080", "375x740"]
# A start tag, or text that holds no markup (a comment, the body of a script, a style, a textarea or a title),
# skipped whole: a `<` in it is no tag to cut before.
MARKUP = re.compile(rb"<!--.*?-->|<(script|style|textarea|title)\b.*?</\1\s*>|<[a-zA-Z]", re.DOTALL | re.IGNORECASE)
BODY = re.compile(rb"<body[\s>]", re.IGNORECASE)

# The Layout Instability API's shifts without a recent input (what CLS counts), each with what moved (text is named
# by its block), from where to where (x,y,width,height in CSS pixels, clipped to the viewport) and when (ms since the
# navigation). Chromium names no node for a `::before` or `::after` box, nor for a node the page has removed since:
# UNNAMED. An init script (Playwright's `add_init_script`); read `window.__shifts` two animation frames on, a shift
# being reported after the frame that painted it. The browser tests record with it too (tests/browser/helpers.py).
UNNAMED = "(unnamed)"
RECORD_LAYOUT_SHIFTS = (
    f"const UNNAMED = {json.dumps(UNNAMED)};\n"
    + """window.__shifts = [];
const named = (node) =>
  node instanceof Element ? [node.localName, ...node.classList].join(".") : (node?.nodeName ?? UNNAMED);
const box = (rect) => [rect.x, rect.y, rect.width, rect.height].map(Math.round).join(",");
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    const moved = entry.sources.map((source) => named(source.node));
    const rects = entry.sources.map((source) => `${box(source.previousRect)} -> ${box(source.currentRect)}`);
    const at = Math.round(entry.startTime);
    window.__shifts.push({ value: entry.value, moved, rects, at, scrollY: window.scrollY });
  }
}).observe({ type: "layout-shift", buffered: true });"""
)
READ_SHIFTS = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(window.__shifts))))"""


def start_tags(body: bytes) -> list[int]:
    """The offsets of the start tags inside `<body>` (the page's head is never painted)."""
    body_at = BODY.search(body)
    matches = MARKUP.finditer(body, body_at.end() if body_at else 0)
    return [match.start() for match in matches if not match.group(0).startswith(b"<!--")]


@dataclass(frozen=True)
class Moved:
    """A cut after which the page moved: the size, the cut's number, the tag cut before, the shifts."""

    size: str
    n: int
    tag: str
    shifts: list[dict[str, Any]]

    def __str__(self) -> str:
        lines = [f"{self.size}  cut {self.n} before {self.tag}"]
        for shift in self.shifts:
            for name, rects in zip(shift["moved"], shift["rects"], strict=True):
                lines.append(f"    {shift['value']:.7f} at {shift['at']} ms  {name}  {rects}")
        return "\n".join(lines)


def cookie_pairs(setting: str) -> list[tuple[str, str]]:
    """SHIFTS_COOKIES's names and values."""
    pairs = [pair.split("=", 1) for pair in setting.split(";") if "=" in pair]
    return [(name.strip(), value.strip()) for name, value in pairs]


def before_nth_tag(path: str, n: int, seen: dict[str, str]) -> Cut:
    """Cuts the page at `path` before its nth start tag inside `<body>` (none past its last one), the tag noted in
    `seen["tag"]`."""

    def cut(forwarded: str, body: bytes) -> int:
        tags = start_tags(body) if forwarded == path else []
        if len(tags) < n:
            return -1
        at = tags[n - 1]
        seen["tag"] = body[at : body.find(b">", at) + 1][:80].decode(errors="replace")
        return at

    return cut


def never(_path: str, _body: bytes) -> int:
    """No cut: the page comes whole."""
    return -1


@dataclass(frozen=True)
class Target:
    """The page swept, where it is served, and what its loads carry."""

    site: str
    path: str
    cookies: list[tuple[str, str]]
    pause: float

    @classmethod
    def of(cls, url: str, *, cookies: list[tuple[str, str]], pause: float) -> Target:
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(f"{parts.scheme}://{parts.netloc}", path, cookies, pause)

    def load(self, browser: Browser, size: str, cut: Cut) -> tuple[list[dict[str, Any]], bool]:
        """The shifts of one load at `size` through a forwarder cutting the page where `cut` says, and whether
        it did cut it."""
        width, height = (int(n) for n in size.split("x"))
        with split_forwarder(self.site, cut=cut, pause=self.pause) as (forwarder, cuts):
            context = browser.new_context(viewport={"width": width, "height": height})
            context.add_cookies([{"name": name, "value": value, "url": forwarder} for name, value in self.cookies])
            page = context.new_page()
            page.add_init_script(RECORD_LAYOUT_SHIFTS)
            page.goto(forwarder + self.path, wait_until="load")
            shifts = page.evaluate(READ_SHIFTS)
            context.close()
        return shifts, bool(cuts)


def sweep(browser: Browser, target: Target, size: str, *, every: int) -> tuple[int, list[Moved]]:
    """Loads the page whole, then cut before each (every `every`th) start tag, at `size`: how many cuts were
    tried, and the loads after which something moved (the whole one first, as cut 0: what moves then is no cut's
    doing)."""
    moved: list[Moved] = []
    shifts, _ = target.load(browser, size, never)
    if shifts:
        moved.append(Moved(size, 0, "(none: the page whole)", shifts))
        print(moved[-1], flush=True)
    tried = 0
    while True:
        n = (tried + 1) * every
        seen: dict[str, str] = {}
        shifts, cut = target.load(browser, size, before_nth_tag(target.path, n, seen))
        if not cut:
            return tried, moved
        tried += 1
        if shifts:
            moved.append(Moved(size, n, seen["tag"], shifts))
            print(moved[-1], flush=True)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    url, sizes = sys.argv[1], sys.argv[2:] or SIZES
    every = int(os.environ.get("SHIFTS_EVERY", "1"))
    target = Target.of(
        url,
        cookies=cookie_pairs(os.environ.get("SHIFTS_COOKIES", "")),
        pause=float(os.environ.get("SHIFTS_PAUSE", "0.5")),
    )
    found: list[Moved] = []
    with sync_playwright() as playwright:
        chromium = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for size in sizes:
            tried, moved = sweep(browser, target, size, every=every)
            print(f"{size}: {tried} cuts of {url}, {len(moved)} loads moved something", flush=True)
            if not tried:  # a redirect away from the forwarder, or no HTML page at that path: nothing was tested
                print(f"bench.shifts: {url} was never cut (a redirect? not an HTML page?)", file=sys.stderr)
                return 2
            found += moved
        browser.close()
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

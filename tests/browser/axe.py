"""axe-core in the browser tests: the product's own markup passes the WCAG 2.0 / 2.1 A and AA rules and axe's
best practices with no violation.

axe-core is an exact-pinned devDependency of package.json, installed by `npm ci` into node_modules/: it is
read from there and injected into the page (never fetched from a CDN). Without it the checks fail, they do
not skip: a missing install must not pass for an accessible product.

Only the product is scanned: the `svc-*` elements prerender renders (cards, the drawer and its dialog, the
SDK's live region), never the demo shop's own page around them, which is the customer's markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest
from playwright.sync_api import Page

REPOSITORY = Path(__file__).resolve().parents[2]
AXE_PACKAGE = REPOSITORY / "node_modules" / "axe-core"
AXE_SCRIPT = AXE_PACKAGE / "axe.min.js"
LOCK = REPOSITORY / "package-lock.json"

# WCAG 2.0 and 2.1, levels A and AA, and axe's best practices (rules not tied to a success criterion).
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice")

# What prerender puts on a shopper's page (ELEMENT_PREFIX "svc", prerender/config.py): the cards, the
# details fragment, the drawer (its dialog) and the live region of the SDK's notices (prerender/static/sdk/
# notices.js). Those absent from the page are left out.
PRODUCT = ("svc-recipe-card", "svc-recipe-details", "svc-drawer[open]", "[data-svc-toaster]")

# Whether CSS transitions or animations are still running (the drawer slides in, the backdrop fades in):
# colours are measured on the final look. Endless ones (a loading spinner) are not waited for.
MOVING = """() => document.getAnimations().some((a) => a.playState === "running"
    && a.effect?.getComputedTiming().endTime !== Infinity)"""
SETTLE_SECONDS = 5.0

RUN = """async ([include, exclude, tags]) => {
    const result = await window.axe.run({ include, exclude }, {
        runOnly: { type: "tag", values: tags },
        resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, summary: n.failureSummary })),
    }));
}"""


@cache
def installed_axe() -> Path:
    """node_modules/axe-core/axe.min.js at the version package-lock.json pins; fails (never skips) otherwise."""
    pinned = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]["node_modules/axe-core"]["version"]
    if not AXE_SCRIPT.is_file():
        pytest.fail(
            f"axe-core is not installed ({AXE_SCRIPT.relative_to(REPOSITORY)} is missing): run `npm ci` at "
            f"the repository root (package-lock.json pins axe-core {pinned}), then the browser tests again",
            pytrace=False,
        )
    installed = json.loads((AXE_PACKAGE / "package.json").read_text(encoding="utf-8"))["version"]
    if installed != pinned:
        pytest.fail(
            f"node_modules has axe-core {installed}, package-lock.json pins {pinned}: run `npm ci` at the "
            "repository root, then the browser tests again",
            pytrace=False,
        )
    return AXE_SCRIPT


def inject_axe(page: Page) -> None:
    """Loads axe-core from node_modules into the page (once per document)."""
    if not page.evaluate("() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.add_script_tag(path=str(installed_axe()))


def settle(page: Page) -> None:
    """Returns once the page's finite animations have ended (polled in real time: page.clock may be paused)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while page.evaluate(MOVING) and time.monotonic() < deadline:
        page.wait_for_timeout(50)


def axe_violations(page: Page, include: Sequence[str] | None = None, exclude: Sequence[str] = ()) -> list[dict]:
    """axe's violations in the `include` selectors (default: every product element on the page)."""
    if include is None:
        include = [s for s in PRODUCT if page.locator(s).count()]
        assert include, f"none of the product's elements ({', '.join(PRODUCT)}) is on the page"
    else:
        missing = [s for s in include if not page.locator(s).count()]
        assert not missing, f"nothing to check: no element matches {missing}"
    inject_axe(page)
    settle(page)
    return page.evaluate(RUN, [[[s] for s in include], [[s] for s in exclude], list(TAGS)])


def describe(violations: list[dict]) -> str:
    """One paragraph per rule: its id, impact, help and page, then each element with its HTML and the fix."""
    lines = []
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}): {v['help']} <{v['helpUrl']}>")
        for node in v["nodes"]:
            html = node["html"] if len(node["html"]) <= 300 else node["html"][:297] + "..."
            lines.append(f"    at {json.dumps(node['target'])}: {html}")
            lines.extend(f"      {line}" for line in node["summary"].splitlines() if line.strip())
    return "\n".join(lines)


def assert_no_axe_violations(
    page: Page, include: Sequence[str] | None = None, exclude: Sequence[str] = (), *, what: str = ""
) -> None:
    """Fails listing every violation: rule, impact, help, the elements' selectors and HTML, what to fix."""
    violations = axe_violations(page, include, exclude)
    assert not violations, (
        f"axe-core found {len(violations)} rule(s) violated{f' in {what}' if what else ''}:\n" + describe(violations)
    )

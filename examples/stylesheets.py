"""prerender's stylesheet links as the demo sites put them in `<head>`: the sheets of what the first paint shows
stay render-blocking (the fragment is styled from its first frame, nothing shifts); the sheets of what only opens
later, on a click (the drawer and the recipe details in it, the catalog's preferences dialog), are fetched
without blocking the first paint and applied once loaded. The planner's onboarding modal is not among them: it
opens by itself on a first visit to the planner, as soon as its module runs.

Such a link is `media="print"` until its `load` event sets `media="all"`: a sheet for another medium does not
block rendering. A `<link rel="preload" as="style">` of the same address before it has the browser fetch it at
once, at a high priority, rather than at the lowest one a print sheet gets, so that it has applied before the
shopper can click (the components that open need their modules first, fetched after). The link keeps its place
among the others, so the cascade's order (docs/styles.md, section 1) is the same once it applies. Without
JavaScript the sheet is never applied, and the component it styles never opens either.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from html.parser import HTMLParser

from markupsafe import escape

# The sheets of components that open on a click only (docs/styles.md, section 1): the drawer and its recipe
# details, the catalog's preferences dialog.
OPENED_LATER = frozenset({"drawer", "recipe-details", "preferences"})
# A sheet's name in prerender's address: `.../css/<name>.css`.
_SHEET_NAME = re.compile(r"/css/([a-z0-9-]+)\.css(?:\?.*)?$")


class _Links(HTMLParser):
    """The tags of a run of `<link>` tags, in order: (the tag as written, its attributes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((self.get_starttag_text() or "", {name: value or "" for name, value in attrs}))


def sheet_name(href: str) -> str | None:
    """The name of one of prerender's sheets (`drawer` for `.../css/drawer.css`), None for any other address."""
    match = _SHEET_NAME.search(href)
    return match.group(1) if match else None


def later_link(href: str) -> str:
    """A stylesheet link that does not block the first paint, fetched at once and applied once loaded."""
    address = escape(href)
    return (
        f'<link rel="preload" as="style" href="{address}">'
        f'<link rel="stylesheet" href="{address}" media="print" onload="this.media=\'all\'">'
    )


def defer_sheets(links_html: str, later: Collection[str] = OPENED_LATER) -> str:
    """prerender's `<link>` tags (its styles routes' `html`) with the sheets named in `later` made non-blocking
    (`later_link`); every other tag as it came, in the same order."""
    parser = _Links()
    parser.feed(links_html)
    parser.close()
    out = []
    for text, attrs in parser.tags:
        href = attrs.get("href", "")
        is_sheet = "stylesheet" in attrs.get("rel", "").lower().split() and "media" not in attrs
        out.append(later_link(href) if is_sheet and sheet_name(href) in later else text)
    return "".join(out)

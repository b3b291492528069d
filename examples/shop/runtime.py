"""What a page of the shop gives the browser runtime of prerender (`window.svc`, docs/sdk.md).

The SDK acts for the shopper of the credential prerender gave the shop's server for this page: the hidden
`<svc-shopper>` element that private fragments and the bootstrap carry, put in the page as received. The page
also says which identity, language, session and store the server used (`<script type="application/json"
id="shop-context">`, read by `static/svc-setup.js`). The supplier token is never in a page: it stays on the
shop's server, which sends it to prerender only.
"""

from __future__ import annotations

import re
from concurrent.futures import Executor
from typing import Any

from flask import current_app, url_for

from . import page_budget
from .fragments import STYLE_COMPONENTS
from .prerender_client import PrerenderClient
from .visitor import Visitor

_SDK_SRC = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*["']([^"']+/sdk/svc\.js(?:\?[^"']*)?)["']""", re.IGNORECASE)
# The visitor's credential element of the bootstrap (`<svc-shopper hidden credential="..." ...></svc-shopper>`;
# its prefix is prerender's element prefix).
_SHOPPER = re.compile(r"<([a-z][a-z0-9]*)-shopper\b[^>]*>\s*</\1-shopper>", re.IGNORECASE)


def shop_context(visitor: Visitor) -> dict[str, Any]:
    """The identity, store and cart settings of the page, as svc-setup.js expects them."""
    config = current_app.config
    return {
        "language": visitor.language,
        "storeId": visitor.store_id,
        "user": (
            {"kind": "user", "id": visitor.user_id}
            if visitor.user_id is not None
            else {"kind": "authless", "id": visitor.authless_id}
        ),
        "sessionId": visitor.session_id,
        # Where the page's script moves the visitor to another store (the store picker's form, answering JSON).
        "preferencesUrl": url_for("shop.preferences"),
        "cart": {
            "linesUrl": url_for("cart.lines"),
            "pageUrl": url_for("cart.page"),
            "reportsPushes": bool(config["CART_REPORTS_PUSHES"]),
        },
    }


def module_tags(bootstrap_html: str) -> str:
    """The module scripts a card fragment ends with (SDK, then the card element), from the bootstrap's SDK
    tag: the same build, the same query (docs/sdk.md, "Fragments inserted at runtime"), after the bootstrap's
    credential element as received (the SDK acts for its shopper). "" without SDK."""
    match = _SDK_SRC.search(bootstrap_html)
    if not match:
        return ""
    sdk = match.group(1)
    card = sdk.replace("/sdk/svc.js", "/components/recipe-card.js", 1)
    credential = "".join(element.group(0) for element in _SHOPPER.finditer(bootstrap_html))
    return f'{credential}<script type="module" src="{sdk}"></script>\n<script type="module" src="{card}"></script>'


def sdk_and_styles(
    prerender: PrerenderClient, pool: Executor, visitor: Visitor, *, request_id: str | None = None
) -> tuple[str, str]:
    """(the bootstrap: the visitor's credential element and the SDK tag; the stylesheet links) for a page
    without server-rendered fragments. Either is "" when prerender fails: the page then works without the
    runtime."""
    bootstrap = pool.submit(prerender.window_bootstrap, visitor, request_id=request_id)
    styles = [pool.submit(prerender.styles, visitor, name, request_id=request_id) for name in STYLE_COMPONENTS]
    try:
        sdk = bootstrap.result(timeout=page_budget.remaining())
        # Without the bootstrap (prerender failed or is late), no stylesheet either: links kept from an earlier
        # page would hold the first paint until a prerender that may not answer now serves them.
        return (sdk, "".join(f.result(timeout=page_budget.remaining()) for f in styles)) if sdk else ("", "")
    except TimeoutError:
        return "", ""

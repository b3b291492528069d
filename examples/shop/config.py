"""Configuration of the demo shop: defaults, then `SHOP_*` environment variables, then the test mapping.

Read by the application factory only (nothing at import time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from examples.identity_cookies import require_secret_key


class DefaultConfig:
    """One machine: prerender and coreapi on loopback (tools/devstack.py sets the URLs)."""

    # The vendor's fragment service and the retailer's own catalog (coreapi plays both catalog and upstream).
    PRERENDER_URL = "http://127.0.0.1:8000"
    PRERENDER_API_VERSION = "v1"
    COREAPI_URL = "http://127.0.0.1:8001"
    # The token the vendor gave this retailer (sent as `supplier-token` on every prerender call). A secret of
    # the shop's server: it never goes into a page or a browser's request (browsers act with the credential
    # prerender puts in fragments and the bootstrap).
    SUPPLIER_TOKEN = "demo-retailer-token"
    # Who the "Log in" button logs in (no password: it is a demo).
    DEMO_USER_ID = "demo-user"
    # Seconds. Short on purpose: a slow vendor must never make the shelf slow (no card instead).
    PRERENDER_CONNECT_TIMEOUT = 0.5
    PRERENDER_READ_TIMEOUT = 3.0
    COREAPI_CONNECT_TIMEOUT = 0.5
    COREAPI_READ_TIMEOUT = 3.0
    # Threads fetching the fragments of a page concurrently (shared by the requests of one process).
    PRERENDER_POOL_SIZE = 16
    # Whole-page budget for prerender, from the request's start (examples/shop/page_budget.py): a new visitor's
    # authless id and the fragments share it, and a fragment not back by then is left out.
    PRERENDER_PAGE_BUDGET = 4.0
    # How long the stylesheet links of prerender are kept in this process.
    STYLES_CACHE_SECONDS = 60.0
    # Products on the shelf.
    SHELF_SIZE = 24
    # Recipes on "Nos fiches maison" (/idees/fiches, the shop's own cards) and in the injection page's picker.
    IDEAS_SIZE = 12
    # The cart reports itself to prerender's basket after applying a push (docs/sdk.md, basketSync). False
    # only to demonstrate (and test) the rollback of a change the cart did not confirm within 5 seconds.
    CART_REPORTS_PUSHES = True
    # Cookies of the visitor (identity, store, language, browsing session).
    COOKIE_SECURE = False
    # Signs the identity cookies (examples/identity_cookies.py): the same in every process of the shop and
    # across restarts, or its visitors lose who they are (tools/devstack.py keeps one in the instance folder).
    SECRET_KEY: str | None = None


def load_config(app: Flask, test_config: Mapping[str, Any] | None) -> None:
    app.config.from_object(DefaultConfig)
    app.config.from_prefixed_env("SHOP")
    if test_config is not None:
        app.config.from_mapping(test_config)
    require_secret_key(app, variable="SHOP_SECRET_KEY", kept_in="instance/shop-secret-key")
    for key in ("PRERENDER_URL", "COREAPI_URL"):
        app.config[key] = str(app.config[key]).rstrip("/")

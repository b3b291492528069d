"""Configuration of the demo recipe blog: defaults, then `PUBLISHER_*` environment variables, then the test
mapping.

Read by the application factory only (nothing at import time).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask


class DefaultConfig:
    """One machine: prerender on loopback (tools/devstack.py sets its URL)."""

    # The vendor's fragment service.
    PRERENDER_URL = "http://127.0.0.1:8000"
    PRERENDER_API_VERSION = "v1"
    # The token the vendor gave this publisher (sent as `supplier-token` on every prerender call). A secret of
    # the blog's server: never in a page or a browser's request.
    SUPPLIER_TOKEN = "demo-publisher-token"
    # The language of the blog and of the fragments it asks for (`language-id`).
    LANGUAGE = "fr"
    # Seconds. Short on purpose: a slow vendor must never make a recipe page slow (no button instead).
    PRERENDER_CONNECT_TIMEOUT = 0.5
    PRERENDER_READ_TIMEOUT = 3.0
    # Threads fetching the fragments of a page concurrently (shared by the requests of one process).
    PRERENDER_POOL_SIZE = 8
    # Whole-page budget for prerender (the reader's identity, then the button and its stylesheets): what is
    # not back by then is left out.
    PRERENDER_PAGE_BUDGET = 4.0
    # How long the stylesheet links of prerender are kept in this process.
    STYLES_CACHE_SECONDS = 60.0
    # Cookies of the reader (authless identity, browsing session).
    COOKIE_SECURE = False
    # Signs the identity cookie (examples/identity_cookies.py): the same in every process of the blog and across
    # restarts, or its readers lose who they are (tools/devstack.py keeps one in the instance folder).
    SECRET_KEY: str | None = None


def load_config(app: Flask, test_config: Mapping[str, Any] | None) -> None:
    app.config.from_object(DefaultConfig)
    app.config.from_prefixed_env("PUBLISHER")
    if test_config is not None:
        app.config.from_mapping(test_config)
    if not app.config["SECRET_KEY"]:
        # As the shop's (examples/shop/config.py): one key for every process, said at start when missing.
        if not app.testing:
            raise RuntimeError(
                "PUBLISHER_SECRET_KEY is not set: the blog signs its readers' identity cookie with it, the same key"
                " in every process and across restarts (`make run` keeps one in instance/publisher-secret-key)"
            )
        app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.config["PRERENDER_URL"] = str(app.config["PRERENDER_URL"]).rstrip("/")

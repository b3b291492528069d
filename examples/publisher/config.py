"""Configuration of the demo recipe blog: defaults, then `PUBLISHER_*` environment variables, then the test
mapping.

Read by the application factory only (nothing at import time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from examples.identity_cookies import require_secret_key


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
    require_secret_key(app, variable="PUBLISHER_SECRET_KEY", kept_in="instance/publisher-secret-key")
    app.config["PRERENDER_URL"] = str(app.config["PRERENDER_URL"]).rstrip("/")

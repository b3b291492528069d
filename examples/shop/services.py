"""The shop's clients and thread pool, built once per application from its configuration."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from .catalog_client import CatalogClient
from .page_budget import PagePool
from .prerender_client import PrerenderClient

EXTENSION = "demo_shop"


@dataclass(frozen=True)
class Services:
    catalog: CatalogClient
    prerender: PrerenderClient
    # Fetches the fragments of a page concurrently, within the page's budget (examples/shop/page_budget.py). Its
    # threads start on first use (after a fork).
    pool: PagePool


def init_services(app: Flask) -> None:
    config = app.config
    app.extensions[EXTENSION] = Services(
        catalog=CatalogClient(
            config["COREAPI_URL"],
            connect_timeout=config["COREAPI_CONNECT_TIMEOUT"],
            read_timeout=config["COREAPI_READ_TIMEOUT"],
        ),
        prerender=PrerenderClient(
            config["PRERENDER_URL"],
            config["SUPPLIER_TOKEN"],
            api_version=config["PRERENDER_API_VERSION"],
            connect_timeout=config["PRERENDER_CONNECT_TIMEOUT"],
            read_timeout=config["PRERENDER_READ_TIMEOUT"],
            styles_ttl=config["STYLES_CACHE_SECONDS"],
            pool_size=config["PRERENDER_POOL_SIZE"],
        ),
        pool=PagePool(max_workers=config["PRERENDER_POOL_SIZE"], thread_name_prefix="shop-fragments"),
    )


def get_services() -> Services:
    return current_app.extensions[EXTENSION]

"""The shop's own catalog (products, stores), read from coreapi: the retailer's back office in this demo.

Unlike prerender, the catalog is essential: when it fails the shelf cannot be shown (CatalogUnavailable).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

import requests

from .sessions import ThreadLocalSessions, pooled_session

log = logging.getLogger(__name__)


class CatalogUnavailable(Exception):
    """coreapi is down, late, or answered something unusable."""


class UnknownStore(Exception):
    """coreapi does not know the store (a stale cookie)."""


@dataclass(frozen=True)
class Store:
    id: str
    name: str
    city: str


@dataclass(frozen=True)
class RecipeSummary:
    id: str
    title: str
    description: str
    picture_url: str | None
    type: str
    difficulty: int | None
    total_time: int | None
    guests: int | None


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    brand: str
    size: str
    picture_url: str | None
    price: Decimal | None
    available: bool | None
    promoted: bool


def _safe_url(value: Any) -> str | None:
    """Only absolute http(s) URLs go into src attributes."""
    if not isinstance(value, str):
        return None
    parts = urlsplit(value.strip())
    return value.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def _price(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value)).quantize(Decimal("0.01"))
    except InvalidOperation:
        return None


def _product(item: dict[str, Any]) -> Product:
    return Product(
        id=str(item["id"]),
        name=str(item["name"]),
        brand=str(item.get("brand") or ""),
        size=str(item.get("size") or ""),
        picture_url=_safe_url(item.get("picture_url")),
        price=_price(item.get("price")),
        available=item.get("available"),
        promoted=bool(item.get("promoted")),
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _recipe(item: dict[str, Any]) -> RecipeSummary:
    return RecipeSummary(
        id=str(item["id"]),
        title=str(item["title"]),
        description=str(item.get("description") or ""),
        picture_url=_safe_url(item.get("picture_url")),
        type=str(item.get("type") or ""),
        difficulty=_int(item.get("difficulty")),
        total_time=_int(item.get("total_time")),
        guests=_int(item.get("guests")),
    )


class CatalogClient:
    """GET /api/v1/stores, /api/v1/products and /api/v1/recipes. Thread-safe (one Session per thread)."""

    def __init__(self, base_url: str, *, connect_timeout: float = 0.5, read_timeout: float = 3.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = (connect_timeout, read_timeout)
        self._sessions = ThreadLocalSessions(factory=lambda: pooled_session(pool_size=4))

    @property
    def session(self) -> requests.Session:
        """This thread's session, created on first use (so never shared across a fork either)."""
        return self._sessions.get()

    def _get(
        self, path: str, *, language: str, params: dict[str, Any] | None = None, request_id: str | None = None
    ) -> requests.Response:
        headers = {"Language-Id": language}
        if request_id:
            headers["X-Request-Id"] = request_id
        try:
            response = self.session.get(
                f"{self.base_url}/api/v1{path}", params=params, headers=headers, timeout=self.timeout
            )
        except requests.RequestException as error:
            log.error("coreapi GET %s failed (request %s): %s", path, request_id, error)
            raise CatalogUnavailable(str(error)) from error
        return response

    def stores(self, *, language: str, request_id: str | None = None) -> list[Store]:
        response = self._get("/stores", language=language, request_id=request_id)
        try:
            response.raise_for_status()
            return [
                Store(id=str(s["id"]), name=str(s["name"]), city=str(s.get("city") or ""))
                for s in response.json()["data"]
            ]
        except (requests.HTTPError, ValueError, KeyError, TypeError) as error:
            log.error(
                "coreapi GET /stores: unusable answer %s (request %s): %s", response.status_code, request_id, error
            )
            raise CatalogUnavailable(str(error)) from error

    def products(
        self,
        *,
        store_id: str | None,
        language: str,
        per_page: int = 24,
        ids: list[str] | None = None,
        request_id: str | None = None,
    ) -> list[Product]:
        params: dict[str, Any] = {"per_page": per_page}
        if ids:
            params["ids"] = ",".join(ids)
        if store_id:
            params["store_id"] = store_id
        response = self._get("/products", language=language, params=params, request_id=request_id)
        if response.status_code == 400 and store_id:
            raise UnknownStore(store_id)
        try:
            response.raise_for_status()
            return [_product(item) for item in response.json()["data"]]
        except (requests.HTTPError, ValueError, KeyError, TypeError) as error:
            log.error(
                "coreapi GET /products: unusable answer %s (request %s): %s", response.status_code, request_id, error
            )
            raise CatalogUnavailable(str(error)) from error

    def recipes(
        self, *, store_id: str | None, language: str, per_page: int = 12, request_id: str | None = None
    ) -> list[RecipeSummary]:
        """The recipe library (the shop's own recipe pages); the completion filter applies with a store."""
        params: dict[str, Any] = {"per_page": per_page}
        if store_id:
            params["store_id"] = store_id
        response = self._get("/recipes", language=language, params=params, request_id=request_id)
        if response.status_code == 400 and store_id:
            raise UnknownStore(store_id)
        try:
            response.raise_for_status()
            return [_recipe(item) for item in response.json()["data"]]
        except (requests.HTTPError, ValueError, KeyError, TypeError) as error:
            log.error(
                "coreapi GET /recipes: unusable answer %s (request %s): %s", response.status_code, request_id, error
            )
            raise CatalogUnavailable(str(error)) from error

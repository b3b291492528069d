"""prerender against the real coreapi on a loopback port (tests/live.py), on both stacks: coreapi on
SQLite with prerender's default in-process cache, and coreapi on PostgreSQL with every prerender cache in Redis."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from prerender import create_app
from tests.conftest import TEST_SECRET_KEY
from tests.live import Stack

RETAILER = "demo-retailer-token"


@pytest.fixture
def app_config(coreapi_url: str, stack: Stack) -> dict:
    """A test's prerender on the live coreapi, with a new, empty cache of the stack's kind."""
    return {"TESTING": True, "UPSTREAM_URL": coreapi_url, "SECRET_KEYS": [TEST_SECRET_KEY], **stack.cache_config()}


@pytest.fixture
def app(app_config: dict) -> Flask:
    return create_app(app_config)


def headers(
    *,
    user: str | None = "it-user",
    token: str | None = RETAILER,
    language: str = "fr",
    session: str = "it-session",
    **extra: str,
) -> dict[str, str]:
    """The mandatory headers (README.md), for a connected user unless user is None."""
    result = {"language-id": language, "session-id": session, **extra}
    if user:
        result["authorization"] = f"user_id {user}"
    else:
        result["authless-id"] = "it-anonymous"
    if token:
        result["supplier-token"] = token
    return result


class Upstream:
    """Reads coreapi directly, to compute what prerender should show."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def get(self, path: str, *, user: str | None = None, **params: Any) -> Any:
        auth = {"Authorization": f"user_id {user}"} if user else {}
        response = requests.get(f"{self.base_url}/api/v1{path}", params=params, timeout=5, headers=auth)
        response.raise_for_status()
        return response.json()

    def recipe(self, recipe_id: str, **params: Any) -> dict:
        return self.get(f"/recipes/{recipe_id}", **params)

    def like(self, user: str, recipe_id: str) -> None:
        response = requests.put(
            f"{self.base_url}/api/v1/likes/{recipe_id}",
            timeout=5,
            headers={"Authorization": f"user_id {user}", "Supplier-Token": RETAILER},
        )
        assert response.status_code == 204

    def all_recipes(self) -> list[dict]:
        return self.get("/recipes", per_page=100)["data"]


@pytest.fixture(scope="session")
def upstream(coreapi_url: str) -> Upstream:
    return Upstream(coreapi_url)


def get_card(client: FlaskClient, version: str = "v1", hdrs: dict | None = None, **query: Any):
    return client.get(f"/{version}/recipe-card", query_string=query, headers=hdrs or headers())


def record_upstream_calls(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict]]:
    """Record the upstream calls the gateway makes (they still go to coreapi): (method, path, params)."""
    calls: list[tuple[str, str, dict]] = []
    http = app.extensions["prerender.gateway"].http
    real = http.request

    def recording(method, path, **kwargs):
        calls.append((method, path, dict(kwargs.get("params") or {})))
        return real(method, path, **kwargs)

    monkeypatch.setattr(http, "request", recording)
    return calls

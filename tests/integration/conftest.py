"""prerender against the real coreapi on a loopback port (tests/live.py), on both stacks: coreapi on
SQLite with prerender's default in-process cache, and coreapi on PostgreSQL with every prerender cache in Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

from prerender import create_app
from tests.conftest import TEST_SECRET_KEY
from tests.faulty_upstream import FaultyUpstream
from tests.live import TEST_BUDGETS, Stack, use_live_servers

RETAILER = "demo-retailer-token"
NOPERS = "demo-nopers-token"


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


@pytest.fixture
def app_config(coreapi_url: str, stack: Stack) -> dict:
    """A test's prerender on the live coreapi, with a new, empty cache of the stack's kind."""
    return {
        "TESTING": True,
        "UPSTREAM_URL": coreapi_url,
        "SECRET_KEYS": [TEST_SECRET_KEY],
        **TEST_BUDGETS,
        **stack.cache_config(),
    }


@pytest.fixture
def app(app_config: dict) -> Flask:
    return create_app(app_config)


@pytest.fixture
def proxy(coreapi_url: str) -> Iterator[FaultyUpstream]:
    """A fault-injecting proxy in front of the live coreapi (tests/faulty_upstream.py): point a test's prerender
    at `proxy.url`, then make paths fail with `proxy.faults`."""
    with FaultyUpstream(coreapi_url) as faulty:
        yield faulty


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


def fragment_headers(user: str | None, token: str, authless: str) -> dict[str, str]:
    """The headers a customer's server asks for its shopper's fragments with."""
    hdrs = headers(user=user, token=token)
    if user is None:
        hdrs["authless-id"] = authless
    return hdrs


def credential_in(html: str) -> str:
    """The credential of a fragment's `<svc-shopper>` element (docs/security.md)."""
    element = BeautifulSoup(html, "html.parser").find("svc-shopper")
    assert element is not None, "the fragment carries no credential"
    return str(element["credential"])


def as_browser(credential: str, language: str, session: str, extra: dict[str, str]) -> dict[str, str]:
    """The headers the browser SDK sends on the browser routes: the credential, language, session."""
    return {"authorization": f"Bearer {credential}", "language-id": language, "session-id": session, **extra}


def shopper_credential(
    client: FlaskClient, *, user: str | None = "it-user", token: str = RETAILER, authless: str = "it-anonymous"
) -> str:
    """The credential a customer's server gets for its shopper, as a browser gets it: from the `<svc-shopper>`
    element of the bootstrap the server asked for with its supplier-token (docs/security.md)."""
    answer = client.get("/v2/svc-window-bootstrap", headers=fragment_headers(user, token, authless))
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return credential_in(answer.get_data(as_text=True))


def browser_headers(
    client: FlaskClient,
    *,
    user: str | None = "it-user",
    token: str = RETAILER,
    authless: str = "it-anonymous",
    language: str = "fr",
    session: str = "it-session",
    **extra: str,
) -> dict[str, str]:
    """The headers the browser SDK sends, with a credential of the app behind `client`."""
    return as_browser(shopper_credential(client, user=user, token=token, authless=authless), language, session, extra)


def live_shopper_credential(
    base_url: str, *, user: str | None = "it-user", token: str = RETAILER, authless: str = "it-anonymous"
) -> str:
    """shopper_credential for a prerender served on `base_url` (a live server, gunicorn): its own credential,
    since a credential is only valid for the server whose key signed it."""
    answer = requests.get(
        f"{base_url}/v2/svc-window-bootstrap", headers=fragment_headers(user, token, authless), timeout=10
    )
    assert answer.status_code == 200, answer.text
    return credential_in(answer.text)


def live_browser_headers(
    base_url: str,
    *,
    user: str | None = "it-user",
    token: str = RETAILER,
    authless: str = "it-anonymous",
    language: str = "fr",
    session: str = "it-session",
    **extra: str,
) -> dict[str, str]:
    """browser_headers for a prerender served on `base_url`, with a credential of that server."""
    credential = live_shopper_credential(base_url, user=user, token=token, authless=authless)
    return as_browser(credential, language, session, extra)


# How long the tests' own reads of coreapi wait: they compute what prerender should show, so a machine busy with
# the whole suite (2 CPUs, two workers and Chromium) must not fail them; prerender's own timeouts are what is tested.
UPSTREAM_READ_TIMEOUT = 30


class Upstream:
    """Reads coreapi directly, to compute what prerender should show."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def get(self, path: str, *, user: str | None = None, **params: Any) -> Any:
        auth = {"Authorization": f"user_id {user}"} if user else {}
        response = requests.get(
            f"{self.base_url}/api/v1{path}", params=params, timeout=UPSTREAM_READ_TIMEOUT, headers=auth
        )
        response.raise_for_status()
        return response.json()

    def recipe(self, recipe_id: str, **params: Any) -> dict:
        return self.get(f"/recipes/{recipe_id}", **params)

    def like(self, user: str, recipe_id: str) -> None:
        response = requests.put(
            f"{self.base_url}/api/v1/likes/{recipe_id}",
            timeout=UPSTREAM_READ_TIMEOUT,
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
    http = app.extensions["prerender.upstream"].http
    real = http.request

    def recording(method, path, **kwargs):
        calls.append((method, path, dict(kwargs.get("params") or {})))
        return real(method, path, **kwargs)

    monkeypatch.setattr(http, "request", recording)
    return calls

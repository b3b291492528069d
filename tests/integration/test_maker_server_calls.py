"""The maker's documented server-side calls, made as its web SSR documentation spells them (docs/sdk.md,
section 6): a retailer's server code written for the maker runs unchanged against prerender.

- `GET /{v}/generate-authless-token` with the documented headers and no identity -> `{"authless_id"}`;
- that id as `Authless-id` identifies the logged-out visitor (here, through the basket they build);
- at login, `GET /{v}/basket/merge-authless-basket?authless_id=&store_id=` with `Authorization: user_id <id>`
  moves that basket to the user."""

from __future__ import annotations

import itertools

import pytest

from .conftest import RETAILER, browser_headers

_users = itertools.count()


def documented(**identity: str) -> dict[str, str]:
    """The headers as the maker's documentation writes them (header names are case-insensitive)."""
    return {
        "Supplier-token": RETAILER,
        "Language-id": "fr",
        "Session-id": "maker-session",
        "profiling": "true",
        **identity,
    }


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_authless_token_then_merge_at_login_as_the_maker_documents_them(client, version: str) -> None:
    token = client.get(f"/{version}/generate-authless-token", headers=documented())
    assert token.status_code == 200 and set(token.get_json()) == {"authless_id"}
    authless_id = token.get_json()["authless_id"]

    # The visitor's fragments are asked with that id; their basket is built from the page (the browser's route).
    card = client.get("/v1/recipe-card?recipe_id=7&store_id=1001", headers=documented(**{"Authless-id": authless_id}))
    assert card.status_code == 200
    visitor = browser_headers(client, user=None, authless=authless_id)
    added = client.post("/v1/basket/recipes", json={"recipe_id": "7", "guests": 4, "store_id": "1001"}, headers=visitor)
    assert added.status_code == 200

    user_id = f"maker-user-{version}-{next(_users)}"
    merged = client.get(
        f"/{version}/basket/merge-authless-basket",
        headers=documented(Authorization=f"user_id {user_id}"),
        query_string={"authless_id": authless_id, "store_id": "1001"},
    )
    assert merged.status_code == 200, merged.get_json()
    assert [entry["recipe_id"] for entry in merged.get_json()["basket"]["recipes"]] == ["7"]
    user = browser_headers(client, user=user_id)
    assert client.get("/v1/basket?store_id=1001", headers=user).get_json()["recipe_count"] == 1
    assert client.get("/v1/basket?store_id=1001", headers=visitor).get_json()["recipe_count"] == 0

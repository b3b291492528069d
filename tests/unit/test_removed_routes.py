"""The routes the specification removed answer 410 Gone as a problem, with or without a version prefix and before
any header check (prerender/blueprints/removed.py; README.md, "Headers"); what was never a route stays a 404."""

from __future__ import annotations

import pytest

from tests.conftest import HEADERS

GONE = [
    "/planner-card-link",
    "/planner-banner-link",
    "/v1/planner-card-link",
    "/v1/planner-banner-link",
    "/v1/planner/dashboard",
    "/v2/planner-card-link",
    "/v2/planner-banner-link",
    "/v2/planner/dashboard",
    "/v2/catalog/favorites",
]


@pytest.mark.parametrize("path", GONE)
@pytest.mark.parametrize("sent", [HEADERS, {}], ids=["headers", "no-headers"])
def test_a_removed_route_is_gone(client, path: str, sent: dict[str, str]) -> None:
    response = client.get(path, headers=sent)
    assert response.status_code == 410 and response.mimetype == "application/problem+json"
    assert response.get_json()["detail"] == "This route was removed from the service."
    for method in ("HEAD", "POST", "PUT", "PATCH", "DELETE"):  # a 405 would say another method could work
        assert client.open(path, method=method, headers=sent).status_code == 410, method


@pytest.mark.parametrize("path", ["/planner-card-link/x", "/planner-links", "/planner/dashboard", "/catalog/favorites"])
def test_what_was_never_a_route_is_not_found(client, path: str) -> None:
    assert client.get(path, headers=HEADERS).status_code == 404

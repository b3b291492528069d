"""A server's call to a route that needs its supplier, while the supplier-token cannot be checked (the recipe service
does not answer): the service's 503 with Retry-After, never the 401 or 403 of a bad token, which would send the
customer to check a token that is fine."""

from __future__ import annotations

import pytest

from prerender import create_app
from tests.conftest import closed_port

from .conftest import headers

# Routes a customer's server calls (with its supplier-token) that act only for a known supplier's shopper.
ROUTES = [
    ("GET", "/v1/basket/merge-authless-basket?authless_id=visitor-1&store_id=1001", None),
    ("GET", "/v2/menu/merge-authless-menu?authless_id=visitor-1", None),
    ("GET", "/v1/favorite-items", None),
    ("PUT", "/v1/favorite-items", {"product_ids": ["100001"]}),
    ("GET", "/v1/preferences", None),
    ("DELETE", "/v1/preferences", None),
    ("POST", "/v1/baskets/handle-payment", {"store_id": "1001", "totalPrice": 1, "products": []}),
    ("GET", "/v1/generate-authless-token", None),
    ("POST", "/v1/generate-authless-token", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p.split('?')[0]}" for m, p, _ in ROUTES])
def test_an_unanswered_token_check_is_the_services_503_not_the_callers_401(app_config, method, path, body):
    client = create_app({**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}"}).test_client()
    answer = client.open(path, method=method, json=body, headers=headers(user="unchecked-user"))
    assert answer.status_code == 503, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json" and answer.headers["Retry-After"] == "1"
    assert "could not be checked" in answer.get_json()["detail"]

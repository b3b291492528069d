"""URL and header size limits (prerender/web/request_limits.py): a clear 414/431 problem, never the value."""

from __future__ import annotations

import pytest

from prerender import create_app
from tests.conftest import HEADERS

PROBLEM = "application/problem+json"


def test_an_ordinary_request_passes(client):
    assert client.get("/healthz", headers=HEADERS).status_code == 200


def test_a_long_url_is_a_414(client):
    response = client.get("/v1/recipe-card?recipe_id=1&pad=" + "x" * 8100, headers=HEADERS)
    assert response.status_code == 414 and response.mimetype == PROBLEM
    assert response.get_json()["title"] == "URI Too Long"  # RFC 9110's phrase, as gunicorn's and nginx's own 414
    assert "8000 bytes" in response.get_json()["detail"]


def test_a_long_header_is_a_431_that_names_it_but_not_its_value(client):
    secret = "s3cr3t" * 1500
    response = client.get(
        "/v1/recipe-card?recipe_id=1", headers={**HEADERS, "X-Padding": secret, "X-Request-Id": "limits-1"}
    )
    assert response.status_code == 431 and response.mimetype == PROBLEM
    body = response.get_json()
    assert "'x-padding'" in body["detail"] and "s3cr3t" not in response.get_data(as_text=True)
    assert response.headers["X-Request-Id"] == "limits-1"


def test_too_many_headers_is_a_431(client):
    many = {f"X-Extra-{i}": "1" for i in range(101)}
    response = client.get("/healthz", headers=many)
    assert response.status_code == 431 and "More than 100 headers" in response.get_json()["detail"]


def test_headers_too_large_in_all_is_a_431(client):
    large = {f"X-Extra-{i}": "v" * 8000 for i in range(5)}
    response = client.get("/healthz", headers=large)
    assert response.status_code == 431 and "in all" in response.get_json()["detail"]


@pytest.mark.parametrize(
    ("setting", "value", "status"),
    [
        ("MAX_URL_BYTES", 64, 414),
        ("MAX_HEADER_FIELD_BYTES", 32, 431),
        ("MAX_HEADER_FIELDS", 2, 431),
        ("MAX_HEADER_BYTES", 64, 431),
    ],
)
def test_limits_are_configurable(app_config, setting, value, status):
    client = create_app({**app_config, setting: value}).test_client()
    response = client.get("/healthz?" + "q" * 70, headers={**HEADERS, "X-Long": "l" * 40})
    assert response.status_code == status

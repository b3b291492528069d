"""A value followed by a newline is malformed, wherever it is sent: a 400 problem naming it, never read as the
value without its newline. Python's `$` matches before a final newline and marshmallow's Regexp uses
`re.match`, so every pattern is matched whole (`FullMatch`, prerender/schemas/fields.py), and header values
lose only their surrounding spaces and tabs (`OWS`, prerender/schemas/headers.py).

HTTP clients refuse to put a newline in a header, and gunicorn refuses one on the wire; a header's newline
reaches the app through a beacon's body (prerender/web/context.py), or from a server in front that passes
it on (here: the WSGI environ)."""

from __future__ import annotations

import importlib
import json
import pkgutil

import pytest
from marshmallow import Schema, fields, validate

import prerender.schemas
from prerender.schemas.fields import FullMatch
from tests.conftest import HEADERS

PROBLEM = "application/problem+json"


def field_errors(response, location: str) -> dict:
    assert response.status_code == 400 and response.mimetype == PROBLEM, response.get_data(as_text=True)[:300]
    return response.get_json()["errors"][location]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("recipe_id=5%0A&store_id=1001", "recipe_id"),
        ("recipe_id=5&store_id=1001%0A", "store_id"),
        ('surrounding_products_ids=["100001\\n"]&store_id=1001', "surrounding_products_ids"),
    ],
)
def test_a_query_id_with_a_trailing_newline_is_a_400(client, query: str, field: str) -> None:
    assert field in field_errors(client.get(f"/v1/recipe-card?{query}", headers=HEADERS), "query")


@pytest.mark.parametrize(("method", "path"), [("PUT", "/v1/likes/5%0A"), ("DELETE", "/v1/likes/5%0A")])
def test_a_recipe_id_in_a_path_with_a_trailing_newline_is_a_400(client, shopper_headers, method: str, path: str):
    response = client.open(path, method=method, headers=shopper_headers)
    assert "recipe_id" in field_errors(response, "path")


def test_an_id_in_a_json_body_with_a_trailing_newline_is_a_400(client, shopper_headers) -> None:
    body = {"recipe_id": "5\n", "guests": 4, "store_id": "1001"}
    response = client.post("/v1/basket/recipes", json=body, headers=shopper_headers)
    assert "recipe_id" in field_errors(response, "json")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HTTP_SESSION_ID", "session-1\n"),
        ("HTTP_AUTHORIZATION", "user_id u-1\n"),
        ("HTTP_AUTHLESS_ID", "visitor-1\n"),
        ("HTTP_LANGUAGE_ID", "fr\n"),
    ],
)
def test_a_header_with_a_trailing_newline_is_a_400(client, name: str, value: str) -> None:
    base = {key: value for key, value in HEADERS.items() if not (name == "HTTP_AUTHLESS_ID" and key == "authorization")}
    response = client.get("/v1/styles/base", headers=base, environ_overrides={name: value})
    header = name.removeprefix("HTTP_").lower().replace("_", "-")
    assert header in field_errors(response, "headers")


def test_surrounding_spaces_and_tabs_are_still_not_part_of_a_header_value(client) -> None:
    response = client.get("/v1/styles/base", headers=HEADERS, environ_overrides={"HTTP_SESSION_ID": " \tsession-1 "})
    assert response.status_code == 200


def test_a_beacons_session_id_with_a_trailing_newline_is_a_400(client, shopper_headers) -> None:
    """navigator.sendBeacon cannot set headers: the SDK puts them in the body, where a newline is one byte."""
    beacon = {
        "headers": {**shopper_headers, "session-id": "session-1\n"},
        "events": [{"name": "recipe.show", "path": "/"}],
    }
    response = client.post("/v1/events", data=json.dumps(beacon), content_type="text/plain;charset=UTF-8")
    assert "session-id" in field_errors(response, "headers")


def test_a_beacons_credential_with_a_trailing_newline_is_no_credential(client, shopper_headers) -> None:
    beacon = {
        "headers": {**shopper_headers, "authorization": shopper_headers["authorization"] + "\n"},
        "events": [{"name": "recipe.show", "path": "/"}],
    }
    response = client.post("/v1/events", data=json.dumps(beacon), content_type="text/plain;charset=UTF-8")
    assert response.status_code == 401 and response.mimetype == PROBLEM


def test_a_request_id_with_a_trailing_newline_is_replaced(client) -> None:
    response = client.get("/healthz", environ_overrides={"HTTP_X_REQUEST_ID": "abc-123\n"})
    assert response.status_code == 200 and response.headers["X-Request-Id"] != "abc-123"
    assert len(response.headers["X-Request-Id"]) == 32


def every_schema_field() -> list[tuple[str, fields.Field]]:
    """Every field of every schema of prerender/schemas, nested lists' items included."""
    found: list[tuple[str, fields.Field]] = []
    for module in pkgutil.iter_modules(prerender.schemas.__path__):
        namespace = vars(importlib.import_module(f"prerender.schemas.{module.name}"))
        for name, value in namespace.items():
            if isinstance(value, type) and issubclass(value, Schema) and value.__module__.startswith("prerender."):
                for field_name, field in value().fields.items():
                    inner = getattr(field, "inner", None)
                    found += [(f"{name}.{field_name}", field), *([(f"{name}.{field_name}[]", inner)] if inner else [])]
    return found


def test_every_pattern_of_every_schema_is_matched_whole() -> None:
    """A plain validate.Regexp anywhere in prerender's schemas would let a final newline through again."""
    regexps = [
        (name, validator)
        for name, field in every_schema_field()
        for validator in field.validators
        if isinstance(validator, validate.Regexp)
    ]
    assert len(regexps) > 10  # the walk found the schemas
    assert [name for name, validator in regexps if not isinstance(validator, FullMatch)] == []

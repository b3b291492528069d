"""Integer fields: a JSON body takes JSON integers only (never truncated: `2.9`, `"2"`, `true` are 400s naming
the field); a query string, whose values are strings, takes decimal digits only (prerender/schemas/fields.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from marshmallow import Schema, fields
from werkzeug.exceptions import HTTPException

from prerender.schemas.fields import Integer
from prerender.web.contract import contract_of
from tests.conftest import HEADERS
from tests.problems import names

NOT_INTEGERS = [2.9, 2.0, "2", "2.9", True, False, [2], {"value": 2}]
CONTEXT = {"productIds": ["1", "2"], "position": 1}


def errors_of(response: Any, location: str) -> dict[str, Any]:
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    return response.get_json()["errors"][location]


# --------------------------------------------------------------------------------- the multiple route's body


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("name", ["display_variant", "serves"])
@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
def test_multiple_body_options_take_json_integers_only(client, version, name, value):
    response = client.post(
        f"/{version}/recipe-card/multiple", json={"contexts": [CONTEXT], name: value}, headers=HEADERS
    )
    assert names(errors_of(response, "json"), name)


@pytest.mark.parametrize("value", [*NOT_INTEGERS, None], ids=repr)
def test_multiple_body_positions_take_json_integers_only(client, value):
    body = {"contexts": [{**CONTEXT, "position": value}]}
    response = client.post("/v1/recipe-card/multiple", json=body, headers=HEADERS)
    assert "contexts.0.position" in errors_of(response, "json")


def test_multiple_body_integers_still_load(client):
    body = {"contexts": [CONTEXT], "display_variant": 2, "serves": 4}
    assert client.post("/v2/recipe-card/multiple", json=body, headers=HEADERS).status_code == 200


def test_multiple_options_in_the_query_still_load_from_strings(client):
    response = client.post(
        "/v2/recipe-card/multiple",
        json={"contexts": [CONTEXT]},
        query_string={"display_variant": "4", "serves": "3"},
        headers=HEADERS,
    )
    assert response.status_code == 200


# ------------------------------------------------------------------------------------ the query strings

QUERY_NOT_INTEGERS = ["2.9", "2.0", "1e0", "two", "2_0", " 2", "2 ", "+2", "\u0662", "0x2", "true"]


@pytest.mark.parametrize("name", ["display_variant", "serves"])
@pytest.mark.parametrize("value", QUERY_NOT_INTEGERS, ids=repr)
def test_card_query_integers_are_decimal_digits_only(client, name, value):
    query = {"recipe_id": "1", name: value}
    response = client.get("/v1/recipe-card", query_string=query, headers=HEADERS)
    assert name in errors_of(response, "query")


@pytest.mark.parametrize("value", QUERY_NOT_INTEGERS, ids=repr)
def test_multiple_query_integers_are_decimal_digits_only(client, value):
    response = client.post(
        "/v1/recipe-card/multiple", json={"contexts": [CONTEXT]}, query_string={"serves": value}, headers=HEADERS
    )
    assert "serves" in errors_of(response, "query")


@pytest.mark.parametrize("value", ["2", "02", "50"])
def test_card_query_integers_load_from_digits(client, value):
    query = {"recipe_id": "1", "serves": value}
    assert client.get("/v1/recipe-card", query_string=query, headers=HEADERS).status_code == 200


# --------------------------------------------------------------------------------- the browser's bodies

BASKET_BODIES = [
    ("/v1/basket/recipes", {"recipe_id": "1", "guests": 2, "store_id": "1001"}, ("guests",), "post"),
    ("/v1/basket/recipes/1", {"guests": 2, "store_id": "1001"}, ("guests",), "patch"),
    (
        "/v1/basket/recipes/1/ingredients/2",
        {"product_id": "3", "quantity": 1, "store_id": "1001"},
        ("quantity",),
        "put",
    ),
    (
        "/v1/basket/reconcile",
        {"store_id": "1001", "cart": [{"id": "3", "quantity": 1}]},
        ("cart", "0", "quantity"),
        "post",
    ),
]


def routes_with(app: Flask, path: str, method: str) -> bool:
    adapter = app.url_map.bind("localhost")
    try:
        adapter.match(path, method=method.upper())
    except HTTPException:
        return False
    return True


@pytest.mark.parametrize(("path", "body", "where", "method"), BASKET_BODIES, ids=[b[0] for b in BASKET_BODIES])
@pytest.mark.parametrize("value", [2.9, "2", True], ids=repr)
def test_basket_bodies_take_json_integers_only(app, client, shopper_headers, path, body, where, method, value):
    assert routes_with(app, path, method), f"{method.upper()} {path} is not a route"
    bad = json.loads(json.dumps(body))
    target = bad
    for key in where[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[where[-1]] = value
    response = client.open(path, method=method.upper(), json=bad, headers=shopper_headers)
    assert errors_of(response, "json")[".".join(where)]  # the field by its dotted path: cart.0.quantity


# -------------------------------------------------------------------------- every body, present and future


def integer_fields(schema: Schema, where: str) -> Iterator[tuple[str, fields.Integer]]:
    """Every Integer field of a schema, nested ones included, with its path."""

    def walk(field: fields.Field[Any], path: str) -> Iterator[tuple[str, fields.Integer]]:
        if isinstance(field, fields.Integer):
            yield path, field
        elif isinstance(field, fields.Nested):
            yield from integer_fields(field.schema, path)
        elif isinstance(field, fields.List):
            yield from walk(field.inner, f"{path}[]")
        elif isinstance(field, fields.Dict) and field.value_field is not None:
            yield from walk(field.value_field, f"{path}{{}}")

    for name, field in schema.fields.items():
        yield from walk(field, f"{where}.{name}")


def declared_schemas(app: Flask, part: str) -> Iterator[tuple[str, Schema]]:
    for endpoint, view in app.view_functions.items():
        contract = contract_of(view)
        choice = getattr(contract, part, None) if contract is not None else None
        if choice is None:
            continue
        for version, schema in [(None, choice)] if isinstance(choice, Schema) else choice.items():
            yield f"{endpoint}({version or '-'})", schema


def test_every_body_integer_is_strict_and_every_query_integer_is_not(app):
    body_integers = [pair for where, schema in declared_schemas(app, "body") for pair in integer_fields(schema, where)]
    query_integers = [
        pair
        for part in ("query", "path")
        for where, schema in declared_schemas(app, part)
        for pair in integer_fields(schema, where)
    ]
    assert len(body_integers) >= 8 and len(query_integers) >= 6  # the walk sees the fields
    assert not [where for where, field in body_integers if not (isinstance(field, Integer) and field.strict)]
    assert not [where for where, field in query_integers if not (isinstance(field, Integer) and not field.strict)]


@pytest.mark.parametrize("value", [2**63, -(2**63), 0, -1])
def test_the_strict_field_loads_any_json_integer(value):
    assert Integer(strict=True).deserialize(value) == value
    assert Integer(strict=False).deserialize(str(value)) == value

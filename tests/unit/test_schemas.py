"""Query and body validation of the card routes: every bad parameter is a 400 naming it."""

from __future__ import annotations

import gzip
import json

import pytest
from flask import g
from marshmallow import Schema, ValidationError

from prerender.schemas.actions import EventsBody
from prerender.schemas.catalog import CATEGORY_QUERIES, LIST_QUERIES, BasketPreviewQuery
from prerender.schemas.cta import CtaQuery
from prerender.schemas.limits import MAX_CONTEXTS
from prerender.schemas.menus import PlannerRecipesQuery
from prerender.schemas.recipe_card import MultipleBodyV2
from prerender.web.context import RequestContext
from tests.conftest import HEADERS
from tests.problems import names


def field_errors(response, location: str) -> dict:
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    return response.get_json()["errors"][location]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_card_without_selector_is_400_naming_both(client, version, caplog):
    response = client.get(f"/{version}/recipe-card", headers=HEADERS)
    errors = field_errors(response, "query")
    assert set(errors) == {"recipe_id", "surrounding_products_ids"}
    assert "surrounding_products_ids" in caplog.text  # the missing parameter is logged (README.md)


@pytest.mark.parametrize(
    "value",
    [
        "[1,2",
        '{"a":1}',
        '"x"',
        "[]",
        json.dumps([str(i) for i in range(11)]),
        "[true]",
        '["a b"]',
        json.dumps(["x" * 65]),
        "[" + "1" * 4301 + "]",  # more digits than Python converts: a ValueError of its own, not a 500
        "[" * 100_000,  # nested deeper than the decoder recurses
    ],
    ids=lambda value: value if len(value) < 40 else f"{value[:10]}...({len(value)} characters)",
)
def test_surrounding_ids_must_be_a_json_array_of_ids(client, value):
    response = client.get("/v1/recipe-card", query_string={"surrounding_products_ids": value}, headers=HEADERS)
    assert "surrounding_products_ids" in field_errors(response, "query")


@pytest.mark.parametrize("item", ["true", "1.5", "null", '{"id": "1"}'])
def test_an_id_that_is_neither_text_nor_a_whole_number_is_named_as_such(client, item):
    """Whole numbers are taken as their digits (`[100001, 100002]`), so the message says so rather than
    'must be a string' of a value the route would have taken."""
    response = client.get(
        "/v1/recipe-card", query_string={"surrounding_products_ids": f'["100001", {item}]'}, headers=HEADERS
    )
    assert field_errors(response, "query")["surrounding_products_ids"] == [
        "Every id must be a string (or a whole number, read as its digits)."
    ]


@pytest.mark.parametrize(
    "version,variant,ok",
    [
        ("v1", "1", True),
        ("v1", "3", True),
        ("v1", "4", False),
        ("v1", "0", False),
        ("v1", "x", False),
        ("v2", "4", True),
        ("v2", "5", False),
    ],
)
def test_display_variant_allowed_values_per_version(client, version, variant, ok):
    response = client.get(
        f"/{version}/recipe-card", headers=HEADERS, query_string={"recipe_id": "1", "display_variant": variant}
    )
    if ok:
        assert response.status_code == 200  # upstream is down here: the empty answer, not a 400
    else:
        assert "display_variant" in field_errors(response, "query")


@pytest.mark.parametrize(
    "name,value",
    [
        ("orientation", "diagonal"),
        ("serves", "0"),
        ("serves", "51"),
        ("serves", "two"),
        ("store_id", "a/b"),
        ("recipe_id", "<x>"),
        ("recipe_id", "."),
        ("recipe_id", ".."),
        ("store_id", "-1"),
        ("surrounding_products_ids", "[" * 5000),
    ],
)
def test_bad_card_parameters(client, name, value):
    query = {"recipe_id": "1", name: value}
    response = client.get("/v1/recipe-card", headers=HEADERS, query_string=query)
    assert name in field_errors(response, "query")


def test_removed_profiling_query_parameter_is_ignored(app, client):
    seen: list[RequestContext] = []
    app.before_request_funcs.setdefault("v1", []).append(lambda: seen.append(g.ctx))
    response = client.get("/v1/recipe-card", headers=HEADERS, query_string={"recipe_id": "1", "profiling": "false"})
    assert response.status_code == 200
    assert seen[0].profiling is True  # only the header turns profiling off


def multiple(client, body, *, version="v1", query=None, content_type="application/json"):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(
        f"/{version}/recipe-card/multiple",
        data=data,
        headers=HEADERS,
        content_type=content_type,
        query_string=query or {},
    )


def test_multiple_requires_json(client):
    response = multiple(client, "contexts=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("coding", ["gzip", "br", "deflate, gzip", "x-custom"])
def test_multiple_refuses_a_content_coded_body(client, coding):
    """The body is read as it is: a compressed one would be misread (a 400 about JSON at best, or a body read as
    another), so a content coding is refused with what to do instead."""
    body = json.dumps({"contexts": [{"productIds": ["100001", "100002"], "position": 1}]}).encode()
    response = client.post(
        "/v1/recipe-card/multiple",
        data=gzip.compress(body) if coding == "gzip" else body,
        headers={**HEADERS, "Content-Encoding": coding},
        content_type="application/json",
    )
    assert response.status_code == 415 and response.mimetype == "application/problem+json"
    assert "Content-Encoding" in response.get_json()["detail"] and coding not in response.get_json()["detail"]


def test_multiple_rejects_malformed_json(client):
    response = multiple(client, '{"contexts": [')
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "body,field",
    [
        ({}, "contexts"),
        ({"contexts": []}, "contexts"),
        ({"contexts": [{"productIds": ["1"], "position": 1}]}, "contexts"),
        ({"contexts": [{"productIds": ["1", "2", "3"], "position": 1}]}, "contexts"),
        ({"contexts": [{"productIds": ["1", "2"], "position": "first"}]}, "contexts"),
        ({"contexts": [{"productIds": ["1", "2"], "position": 1.5}]}, "contexts"),
        (
            {"contexts": [{"productIds": ["1", "2"], "position": 1}, {"productIds": ["3", "4"], "position": 1}]},
            "contexts",
        ),
        ({"contexts": [{"productIds": ["1", "2"], "position": p} for p in range(MAX_CONTEXTS + 1)]}, "contexts"),
        ({"contexts": [{"productIds": ["1", "2"], "position": 1}], "keyword": "x" * 101}, "keyword"),
        ({"contexts": [{"productIds": ["1", "2"], "position": 1}], "display_variant": 4}, "display_variant"),
        ({"contexts": [{"productIds": ["1", "2"], "position": 2**53}]}, "contexts"),
        ({"contexts": [{"productIds": ["1", "2"], "position": 1, "extra": True}]}, "contexts"),
        # A whole number is read as its digits; nothing else but a string is an id.
        ({"contexts": [{"productIds": [True, "2"], "position": 1}]}, "contexts"),
        ({"contexts": [{"productIds": [1.5, "2"], "position": 1}]}, "contexts"),
        ({"contexts": [{"productIds": [None, "2"], "position": 1}]}, "contexts"),
        ({"contexts": [{"productIds": [-1, "2"], "position": 1}]}, "contexts"),
    ],
)
def test_multiple_body_validation(client, body, field):
    assert names(field_errors(multiple(client, body), "json"), field)


def test_multiple_option_in_query_and_body_must_agree(client):
    body = {"contexts": [{"productIds": ["1", "2"], "position": 1}], "store_id": "1001"}
    response = multiple(client, body, query={"store_id": "1002"})
    errors = response.get_json()["errors"]
    assert "store_id" in errors["json"] and "store_id" in errors["query"]


def test_deeply_nested_json_body_is_a_400(client):
    response = multiple(client, "[" * 20_000 + "]" * 20_000)  # under the size limit, over the parser's depth
    assert response.status_code == 400 and response.mimetype == "application/problem+json"


def test_multiple_body_too_large_is_413(client):
    body = {"contexts": [{"productIds": ["1", "2"], "position": 1}], "keyword": "x" * 70_000}
    response = multiple(client, body)
    assert response.status_code == 413
    assert response.mimetype == "application/problem+json"


def test_multiple_with_upstream_down_keeps_every_position_with_empty_html(client):
    body = {"contexts": [{"productIds": ["1", "2"], "position": 7}, {"productIds": ["3", "4"], "position": 2}]}
    response = multiple(client, body)
    assert response.status_code == 200
    assert response.get_json() == {"data": [{"html": "", "position": 2}, {"html": "", "position": 7}]}


# Every free text a request may carry: the schema, the field, and what else makes the value valid.
FREE_TEXTS = [
    (CtaQuery(), "recipe_id", {}),
    (BasketPreviewQuery(), "title", {}),
    (LIST_QUERIES["v2"], "search", {}),
    (CATEGORY_QUERIES["v2"], "search", {"category_id": "10"}),
    (PlannerRecipesQuery(), "search", {}),
    (MultipleBodyV2(), "keyword", {"contexts": [{"productIds": ["100001", "100002"], "position": 1}]}),
]


@pytest.mark.parametrize(
    ("schema", "field", "others"), FREE_TEXTS, ids=lambda v: type(v).__name__ if isinstance(v, Schema) else None
)
@pytest.mark.parametrize("character", ["\x00", "\x07", "\t", "\x1f", "\x7f", "\x85", "\x9f"], ids=ascii)
def test_no_free_text_takes_a_control_character(schema, field, others, character):
    """C0, DEL and C1 (Unicode's Cc) are refused with one message; any other text, accents and emoji included, is
    taken (HTML may not carry control characters as text, and no one types them)."""
    assert schema.load({**others, field: "Crème brûlée 🍮 « été »"})[field] == "Crème brûlée 🍮 « été »"
    with pytest.raises(ValidationError) as refused:
        schema.load({**others, field: f"a{character}b"})
    assert refused.value.messages == {field: ["Must not contain control characters."]}


def test_an_event_path_takes_no_control_character():
    events = EventsBody()
    assert events.load({"events": [{"name": "recipe.show", "path": "/idées"}]})["events"][0]["path"] == "/idées"
    with pytest.raises(ValidationError) as refused:
        events.load({"events": [{"name": "recipe.show", "path": "/a\x85b"}]})
    assert refused.value.messages == {"events": {0: {"path": ["Must not contain control characters."]}}}

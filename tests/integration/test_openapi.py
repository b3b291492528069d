"""The OpenAPI document (prerender/web/openapi.py, GET /openapi.json): valid, complete, and true of the live
service (schemathesis against `prerender_url`, with the demo headers, or on browser routes a shopper's
credential of that server, so requests pass the guard)."""

from __future__ import annotations

import re
import zlib
from typing import Any

import pytest
import requests
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, Phase, given, seed, settings
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from prerender import create_app
from prerender.rendering.stylesheets import STYLE_BUNDLES
from prerender.web.contract import Callers, contract_of
from prerender.web.openapi import build_spec

from .conftest import browser_headers, live_browser_headers

DEMO_HEADERS = {
    "authorization": "user_id openapi-user",
    "language-id": "fr",
    "session-id": "openapi-session",
    "supplier-token": "demo-retailer-token",
}
# The headers of the specification a browser route takes none of (docs/security.md): the supplier's token a
# parameter, the shopper a server claims as security schemes (OpenAPI tools ignore a parameter named Authorization).
CLAIMS = {"#/components/parameters/SupplierToken"}
CLAIMED_IDENTITY = [{"userClaim": []}, {"authlessId": []}]
BROWSER_SECURITY = [{"shopperCredential": []}]
EXAMPLES_PER_OPERATION = 25
SEED = 20260101


@pytest.fixture
def document(client) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    return response.get_json()


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"].startswith("3.")


def test_the_document_lists_every_rule_but_static_and_itself(app: Flask, document: dict[str, Any]) -> None:
    expected = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/static/") or rule.rule == "/openapi.json":
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        # A segment that may hold a `/` (`<path:component>`) is spelled out, one path per value.
        paths = [path.replace("{component}", name) for name in STYLE_BUNDLES] if "<path:" in rule.rule else [path]
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            expected.update((each, method.lower()) for each in paths)
    listed = {
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    }
    assert listed == expected
    assert "/healthz" in document["paths"] and "/v2/svc-window-bootstrap" in document["paths"]
    assert "/v1/svc-window-bootstrap" not in document["paths"]
    assert not any(path.startswith("/static") or path == "/openapi.json" for path in document["paths"])


def test_versioned_operations_carry_the_headers_and_problem_errors(document: dict[str, Any]) -> None:
    card = document["paths"]["/v1/recipe-card"]["get"]
    refs = {p.get("$ref") for p in card["parameters"]}
    assert "#/components/parameters/LanguageId" in refs and "#/components/parameters/SessionId" in refs
    assert {p["name"] for p in card["parameters"] if "name" in p} >= {
        "recipe_id",
        "surrounding_products_ids",
        "store_id",
        "display_variant",
    }
    assert "text/html" in card["responses"]["200"]["content"]
    assert "application/problem+json" in card["responses"]["400"]["content"]
    assert (
        "$ref"
        in document["paths"]["/v2/recipe-card/multiple"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    )
    v1_variant = next(p for p in card["parameters"] if p.get("name") == "display_variant")
    v2_card = document["paths"]["/v2/recipe-card"]["get"]
    v2_variant = next(p for p in v2_card["parameters"] if p.get("name") == "display_variant")
    assert v1_variant["schema"]["enum"] == [1, 2, 3] and v2_variant["schema"]["enum"] == [1, 2, 3, 4]
    assert "parameters" not in document["paths"]["/healthz"]["get"]
    # A removed route is gone, after the limits every request meets (a fuzzer met its 414 and 431 undocumented).
    assert set(document["paths"]["/v2/catalog/favorites"]["get"]["responses"]) == {"410", "413", "414", "431", "500"}
    # The size limit reads a body whether the route takes one or not.
    assert all("413" in operation["responses"] for item in document["paths"].values() for operation in item.values())


def operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`METHOD /path` -> operation, for every versioned operation."""
    return {
        f"{method.upper()} {path}": operation
        for path, item in document["paths"].items()
        if path.startswith(("/v1/", "/v2/"))
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    }


def declared_operations(app: Flask, callers: Callers) -> set[str]:
    """`METHOD /path` of every versioned route of the app whose declaration (`@declare(callers=...)`,
    prerender/web/contract.py) names these callers: read from the routes themselves, so a new route needs no line
    here."""
    found = set()
    for rule in app.url_map.iter_rules():
        contract = contract_of(app.view_functions[rule.endpoint])
        if contract is None or contract.callers is not callers or not rule.rule.startswith(("/v1/", "/v2/")):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        found |= {f"{method} {path}" for method in rule.methods - {"HEAD", "OPTIONS"}}
    return found


def secured_with(document: dict[str, Any], security: list[dict[str, Any]]) -> set[str]:
    """The document's versioned operations that list exactly this security."""
    return {label for label, operation in operations(document).items() if operation.get("security") == security}


# Routes whose callers are known here, whatever the declarations say: the basket, the likes, the events, the menu's
# writes and the current-menu page's catalog panel are the browser's; the drawer's details, the merges and the
# payment either's; the card a customer server's only.
SOME_BROWSER_OPERATIONS = {
    "GET /v1/basket",
    "POST /v2/basket/recipes",
    "PUT /v2/likes/{recipe_id}",
    "POST /v1/events",
    "POST /v2/menu/current/finalize",
    "GET /v2/planner/recipes",
}
SOME_SERVER_OR_BROWSER_OPERATIONS = {
    "GET /v1/recipe-details",
    "GET /v2/basket/merge-authless-basket",
    "GET /v2/menu/merge-authless-menu",
    "GET /v2/catalog/my-space",
    "POST /v1/baskets/handle-payment",
}
SOME_SERVER_OPERATIONS = {"GET /v1/recipe-card", "POST /v2/recipe-card/multiple", "GET /v2/svc-window-bootstrap"}


def test_the_routes_callers_are_the_documented_ones(app: Flask, document: dict[str, Any]) -> None:
    """The routes declared for the browser are exactly the document's operations with the shopper's credential as
    their only security, and those declared for either exactly the operations that take it or nothing."""
    browser = declared_operations(app, Callers.BROWSER)
    either = declared_operations(app, Callers.SERVER_OR_BROWSER)
    assert browser == secured_with(document, BROWSER_SECURITY)
    assert either == secured_with(document, [*CLAIMED_IDENTITY, *BROWSER_SECURITY])
    assert browser >= SOME_BROWSER_OPERATIONS
    assert either >= SOME_SERVER_OR_BROWSER_OPERATIONS
    assert declared_operations(app, Callers.SERVER) >= SOME_SERVER_OPERATIONS


def test_a_browser_route_refuses_the_server_s_headers(app: Flask) -> None:
    """A route declared for the browser takes no claimed identity: with the customer server's headers (a valid
    supplier token, a user's claim) and no credential, it is a 401 before anything else."""
    client = app.test_client()
    for label in sorted(declared_operations(app, Callers.BROWSER)):
        method, path = label.split(" ", 1)
        answer = client.open(re.sub(r"{[^}]+}", "1", path), method=method, headers=DEMO_HEADERS, json={})
        assert answer.status_code == 401, label
        assert answer.mimetype == "application/problem+json", label


def test_the_credential_is_an_http_bearer_scheme(document: dict[str, Any]) -> None:
    scheme = document["components"]["securitySchemes"]["shopperCredential"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"


def test_browser_routes_take_the_credential_and_no_claimed_identity(app: Flask, document: dict[str, Any]) -> None:
    listed = operations(document)
    browser = declared_operations(app, Callers.BROWSER)
    for label in browser:
        operation = listed[label]
        assert operation["security"] == BROWSER_SECURITY, label
        refs = {p["$ref"] for p in operation["parameters"] if "$ref" in p} - {"#/components/parameters/If-None-Match"}
        assert refs == {
            "#/components/parameters/LanguageId",
            "#/components/parameters/SessionId",
            "#/components/parameters/Profiling",
            "#/components/parameters/RequestId",
        }, label
        assert "application/problem+json" in operation["responses"]["401"]["content"], label
    browser_or_server = browser | declared_operations(app, Callers.SERVER_OR_BROWSER)
    for label, operation in listed.items():  # nobody else takes a credential; fragments keep their headers
        if label not in browser_or_server:
            assert operation.get("security", CLAIMED_IDENTITY) == CLAIMED_IDENTITY, label


def test_a_server_names_its_shopper_by_security_schemes_which_tools_keep(app: Flask, document: dict[str, Any]) -> None:
    """`authorization: user_id <ID>` or `authless-id`, one of them: as apiKey schemes (a header parameter named
    Authorization is ignored by OpenAPI tools, and two optional parameters cannot say "one of"); none of the
    document's parameters is named Authorization; the route issuing identities takes none."""
    schemes = document["components"]["securitySchemes"]
    assert schemes["userClaim"] == {**schemes["userClaim"], "type": "apiKey", "in": "header", "name": "authorization"}
    assert schemes["authlessId"] == {**schemes["authlessId"], "type": "apiKey", "in": "header", "name": "authless-id"}
    for label, operation in operations(document).items():
        names = {p.get("name", p.get("$ref", "")).rsplit("/", 1)[-1].lower() for p in operation.get("parameters", [])}
        assert not names & {"authorization", "authlessid", "authless-id"}, label
    listed = operations(document)
    for label in SOME_SERVER_OPERATIONS:
        assert listed[label]["security"] == CLAIMED_IDENTITY, label
    assert "security" not in listed["GET /v1/generate-authless-token"]


def test_server_or_browser_routes_take_either(app: Flask, document: dict[str, Any]) -> None:
    listed = operations(document)
    for label in declared_operations(app, Callers.SERVER_OR_BROWSER):
        operation = listed[label]
        assert operation["security"] == [*CLAIMED_IDENTITY, *BROWSER_SECURITY], label
        assert {p.get("$ref") for p in operation["parameters"]} >= CLAIMS, label  # the server's way
        assert "401" in operation["responses"], label
    merge = listed["GET /v1/basket/merge-authless-basket"]
    assert "authless-credential" in {p.get("name") for p in merge["parameters"]}


def test_a_refusals_own_members_are_in_the_documented_problem(client, document: dict[str, Any]) -> None:
    """A 409 the client is told to branch on by its `reason` (a retailer's shopper has no affiliated retailer
    to hand a basket over to) validates against the document, and its `reason` is a documented member."""
    answer = client.get("/v1/basket/transfers/stores", headers=browser_headers(client))
    assert answer.status_code == 409 and answer.get_json()["reason"] == "no-affiliate"
    documented = document["paths"]["/v1/basket/transfers/stores"]["get"]["responses"]["409"]
    schema = documented["content"]["application/problem+json"]["schema"]
    Draft202012Validator({**document, **schema}).validate(answer.get_json())
    assert "reason" in document["components"]["schemas"]["Problem"]["properties"]


def test_answers_document_the_headers_a_client_acts_on(document: dict[str, Any]) -> None:
    """Retry-After (503, 409), WWW-Authenticate (401), X-Degraded (fragments), ETag and If-None-Match (where a 304
    is documented), X-Request-Id (every answer), X-Has-More (the planner's panel): in the document, not only in
    the prose."""
    headers = document["components"]["headers"]
    assert headers["X-Degraded"]["schema"]["enum"] == ["upstream", "stale", "shed"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            for status, response in responses.items():
                names = set(response["headers"])
                assert "X-Request-Id" in names, (path, method, status)
                expected = {"401": "WWW-Authenticate", "409": "Retry-After", "503": "Retry-After"}.get(status)
                assert expected is None or expected in names, (path, method, status)
            if "304" in responses:
                assert "ETag" in responses["200"]["headers"] and "ETag" in responses["304"]["headers"], path
                refs = {parameter.get("$ref") for parameter in operation["parameters"]}
                assert "#/components/parameters/If-None-Match" in refs, (path, method)
            elif "200" in responses:  # an answer no one revalidates (no-store, a POST) names no ETag
                assert "ETag" not in responses["200"]["headers"], (path, method)
    card = document["paths"]["/v1/recipe-card"]["get"]["responses"]["200"]["headers"]
    assert card["X-Degraded"] == {"$ref": "#/components/headers/X-Degraded"}
    panel = document["paths"]["/v2/planner/recipes"]["get"]["responses"]["200"]["headers"]
    assert "X-Has-More" in panel


def test_no_path_parameter_may_hold_a_slash(document: dict[str, Any], prerender_url: str) -> None:
    """OpenAPI's path templates take one segment: `/v1/styles/catalog/catalog-home` is a path of its own, which a
    generated client requests as it is (not `catalog%2Fcatalog-home`, which some proxies refuse)."""
    for path, item in document["paths"].items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path":
                    assert not any("/" in str(v) for v in parameter["schema"].get("enum", [])), (path, parameter)
    operation = document["paths"]["/v2/styles/catalog/catalog-home"]["get"]
    assert operation["operationId"] == "v2_styles_component_styles_get_catalog_catalog_home"
    assert "/v2/styles/{component}" not in document["paths"]
    answer = requests.get(f"{prerender_url}/v2/styles/catalog/catalog-home", headers=DEMO_HEADERS, timeout=10)
    assert answer.status_code == 200 and answer.json()["links"]


def test_enums_of_parameters_hold_no_null(document: dict[str, Any]) -> None:
    """An optional query value is absent, never JSON null: `null` in a string enum is a type mismatch."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                assert None not in parameter.get("schema", {}).get("enum", []), (path, method, parameter["name"])


def test_the_document_needs_no_headers(client) -> None:
    assert client.get("/openapi.json").status_code == 200


# --------------------------------------------------------------------------------------- schemathesis
# The document of a test app (the same url_map and schemas as the live one); requests go to prerender_url.
# The Python API rather than schemathesis' pytest plugin, whose lazy fixtures do not run under pytest 9.
LIVE_SCHEMA = schemathesis.openapi.from_dict(build_spec(create_app({"TESTING": True}), version="test"))
OPERATIONS = {operation.label: operation for operation in (result.ok() for result in LIVE_SCHEMA.get_all_operations())}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
# Valid requests for every operation; invalid ones where there is something to get wrong.
RUNS = [
    (label, mode)
    for label in sorted(OPERATIONS)
    for mode in GenerationMode
    if mode is GenerationMode.POSITIVE
    or OPERATIONS[label].definition.raw.get("parameters")
    or OPERATIONS[label].definition.raw.get("requestBody")
]


@pytest.mark.parametrize(("label", "mode"), RUNS, ids=[f"{label}-{mode.value}" for label, mode in RUNS])
def test_the_live_service_keeps_to_the_document(label: str, mode: GenerationMode, prerender_url: str) -> None:
    """No 5xx; every status code, content type, JSON body and header is one the document lists (with the demo
    headers, or on a browser route a shopper's credential from the live server's bootstrap, so requests get past
    the guard; generated header values, a generated Bearer credential included, would only test the guard)."""
    browser = OPERATIONS[label].definition.raw.get("security") == BROWSER_SECURITY
    hdrs = (
        live_browser_headers(prerender_url, user="openapi-user", session="openapi-session") if browser else DEMO_HEADERS
    )
    if not browser and zlib.crc32(label.encode()) % 2:  # half the operations as a logged-out visitor (authlessId)
        hdrs = {**{k: v for k, v in hdrs.items() if k != "authorization"}, "authless-id": "openapi-visitor"}

    @seed(SEED)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    @given(case=OPERATIONS[label].as_strategy(generation_mode=mode))
    def check(case) -> None:
        case.headers = {
            name: value
            for name, value in (case.headers or {}).items()
            if name.lower() not in {"authless-id", *DEMO_HEADERS}
        }
        response = case.call(base_url=prerender_url, headers=hdrs, timeout=10)
        case.validate_response(response, checks=CHECKS)

    check()

"""The OpenAPI 3.1 document of every route, generated from the routes' own declarations.

`build_spec(app, version=...)` walks `app.url_map`; each rule's view carries its declaration
(prerender/web/contract.py): path, query and body schemas, and answers. Versioned routes take the headers of
prerender/schemas/headers.py, published once as `components.parameters`; every route's generic failures
(a guard's 400, 413/415 for bodies, 414, 431, 500) are added by the rules below. `/static` and the
document itself are left out.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask import Flask
from marshmallow import Schema, fields
from webargs.fields import DelimitedList
from werkzeug.routing import Rule

from prerender.schemas.fields import ID_PATTERN, JsonIdList
from prerender.schemas.headers import CorrelationHeaders, RequestHeaders
from prerender.web.contract import Answer, Callers, RouteContract, contract_of, problem
from prerender.web.versions import API_VERSIONS

OPENAPI_VERSION = "3.1.0"
TITLE = "prerender"
# Rules that are not part of the described API.
EXCLUDED_PREFIXES = ("/static/",)
EXCLUDED_PATHS = ("/openapi.json",)
DOCUMENTED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
BODY_LOCATIONS = ("json", "beacon")

# Examples from the demo catalog (README.md), by field name: explicit examples lead tools past "unknown store".
EXAMPLES: dict[str, Any] = {
    "store_id": "1001",
    "recipe_id": "5",
    "product_id": "100001",
    "ingredient_id": "1",
    "guests": 4,
    "serves": 4,
    "authless_id": "anon-1",
    "recipe_ids": ["5", "12"],  # an array, sent `recipe_ids=5,12` (style form, not exploded)
    "surrounding_products_ids": '["100001","100002"]',
    "current_products_ids": '["100010"]',
    "productIds": ["100001", "100002"],
    "position": 1,
}
# The response headers answers carry by their status (DocumentBuilder.answer_headers).
RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-Id": {
        "description": "The request's id: the caller's valid X-Request-Id, else one made. The logs have the "
        "request under it (docs/operations.md).",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before trying again. On a 409, present: a write still in progress or a row "
        "another write holds (nothing applied: send it again with the same Idempotency-Key); absent: final "
        "(docs/browser-api.md).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "WWW-Authenticate": {"description": "What the route needs to identify its caller.", "schema": {"type": "string"}},
    "ETag": {
        "description": "A strong validator of a cacheable answer (not of one marked no-store): send it back as "
        "If-None-Match for a 304.",
        "schema": {"type": "string"},
    },
    "X-Degraded": {
        "description": "An answer an upstream failure or an overload shaped, kept by no cache (Cache-Control: private, "
        "no-store): `upstream` (empty, or without some part), `stale` (made with a last good copy up to a day old), "
        "`shed` (from the cache, else empty, while the service was too busy). Absent on a complete answer.",
        "schema": {"type": "string", "enum": ["upstream", "stale", "shed"]},
    },
}
IF_NONE_MATCH = {
    "description": "The ETag of a copy the caller holds: 304 without a body when it is still the answer.",
    "required": False,
    "schema": {"type": "string"},
}
CREDENTIAL_SCHEME = "shopperCredential"
CREDENTIAL_SECURITY = {
    "type": "http",
    "scheme": "bearer",
    "description": "The shopper's credential prerender put in a private fragment or the bootstrap "
    "(docs/security.md): browser routes act for its shopper only.",
}
# The identity a customer's server claims, with its supplier-token (docs/security.md): security schemes, since
# OpenAPI tools ignore a header parameter named Authorization (OpenAPI 3.1, "Parameter Object"); and alternatives,
# one of which a request needs, which two optional parameters could not say.
USER_CLAIM_SCHEME = "userClaim"
AUTHLESS_SCHEME = "authlessId"
CLAIM_SCHEMES: dict[str, dict[str, Any]] = {
    USER_CLAIM_SCHEME: {
        "type": "apiKey",
        "in": "header",
        "name": "authorization",
        "description": "`user_id <USER_ID>`: the logged-in user your server vouches for (1 to 128 printable ASCII "
        "characters, no space, after `user_id `). Sent with `authless-id` too, the user wins.",
    },
    AUTHLESS_SCHEME: {
        "type": "apiKey",
        "in": "header",
        "name": "authless-id",
        "description": "The id of a logged-out visitor (1 to 128 printable ASCII characters, no space), as your server "
        "keeps it (`generate-authless-token` issues one).",
    },
}
CLAIMED_IDENTITY: list[dict[str, list[str]]] = [{USER_CLAIM_SCHEME: []}, {AUTHLESS_SCHEME: []}]
# Header fields the schemes above describe, left out of the parameters.
CLAIM_FIELDS = ("authorization", "authless_id")
CREDENTIAL_REFUSED = problem("No valid shopper's credential (`Authorization: Bearer <credential>`).")
# The versioned routes' header fields a browser route takes (prerender/schemas/headers.py, BrowserHeaders).
BROWSER_HEADER_FIELDS = ("language_id", "session_id", "profiling", "request_id")
GUARD_ERROR = problem("Invalid parameters or missing or malformed headers (`errors` names each field).")
# prerender/web/request_limits.py measures a request's body on every route, whether it takes one or not.
BODY_TOO_LARGE = problem("The body is larger than the limit (64 KiB).")
GENERIC_ANSWERS: Mapping[int, Answer] = {
    413: BODY_TOO_LARGE,
    414: problem("The URL is longer than the limit (prerender/web/request_limits.py)."),
    431: problem("A header, the number of headers or their total size is over the limit."),
    500: problem("The service failed to answer this request."),
}
BODY_ANSWERS: Mapping[int, Answer] = {
    413: BODY_TOO_LARGE,
    415: problem("The body's Content-Type, or a Content-Encoding, is not accepted."),
}


def openapi_path(rule: Rule) -> str:
    """`/v1/likes/<recipe_id>` -> `/v1/likes/{recipe_id}`."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)


def documented_rules(app: Flask) -> list[Rule]:
    """Every rule of the described API: all but /static and the document itself."""
    return [
        rule
        for rule in app.url_map.iter_rules()
        if not rule.rule.startswith(EXCLUDED_PREFIXES) and rule.rule not in EXCLUDED_PATHS
    ]


def version_of(rule: Rule) -> str | None:
    """The API version of a versioned rule (its first path segment), None for the others."""
    first = rule.rule.strip("/").split("/")[0]
    return first if first in API_VERSIONS else None


def component_name(attribute: str) -> str:
    """`language_id` -> `LanguageId`: the name of a header field's reusable parameter."""
    return "".join(part.capitalize() for part in attribute.split("_"))


def schema_name(schema: Any) -> str | None:
    """A component name for a schema class (`CardsSchema` -> `Cards`); None inlines webargs' generated ones."""
    cls = schema if isinstance(schema, type) else type(schema)
    name = cls.__name__.lstrip("_")
    if name in ("GeneratedSchema", "Schema"):
        return None
    return name[:-6] if name.endswith("Schema") and len(name) > 6 else name


class DocumentBuilder:
    """Builds the document of one app from its rules and their declarations."""

    def __init__(self, app: Flask, *, version: str) -> None:
        self.app = app
        # apispec inlines a schema whose resolved name is None (webargs' generated ones); its annotation says str.
        self.plugin = MarshmallowPlugin(schema_name_resolver=schema_name)  # type: ignore[arg-type]  # None inlines
        self.spec = APISpec(
            title=TITLE,
            version=version,
            openapi_version=OPENAPI_VERSION,
            plugins=[self.plugin],
            info={
                "description": "Pre-rendered HTML fragments of shoppable-recipe components "
                "(README.md, docs/browser-api.md)."
            },
        )
        self.converter.add_attribute_function(json_id_list_property)
        self.headers = self.header_parameters()
        # A browser route's headers besides its credential: the shopper is the credential's.
        self.browser_headers = [component_name(name) for name in BROWSER_HEADER_FIELDS]
        self.spec.components.security_scheme(CREDENTIAL_SCHEME, CREDENTIAL_SECURITY)
        for scheme, definition in CLAIM_SCHEMES.items():
            self.spec.components.security_scheme(scheme, definition)
        for name, header in RESPONSE_HEADERS.items():
            self.spec.components.header(name, header)
        self.spec.components.parameter("If-None-Match", "header", IF_NONE_MATCH)

    @staticmethod
    def answer_headers(status: int, answer: Answer, *, etag: bool) -> dict[str, Any]:
        """The headers an answer of `status` carries (those every such answer has, then the route's own); `etag`:
        the route revalidates (it documents a 304)."""
        names = ["X-Request-Id"]
        if status == 401:
            names.append("WWW-Authenticate")
        if status in (409, 503):
            names.append("Retry-After")
        if etag and status in (200, 304):
            names.append("ETag")
        if answer.media_type == "text/html" and status == 200:
            names.append("X-Degraded")
        headers: dict[str, Any] = {name: name for name in names}  # component names: apispec makes them $refs
        for name, description in answer.headers.items():
            headers[name] = {"description": description, "schema": {"type": "string"}}
        return headers

    @property
    def converter(self) -> OpenAPIConverter:
        converter = self.plugin.converter
        if converter is None:
            raise RuntimeError("the marshmallow plugin is initialised by APISpec")
        return converter

    def header_parameters(self) -> list[str]:
        """Register the versioned routes' headers as reusable parameters (`language-id`, field `language_id`:
        `#/components/parameters/LanguageId`); their component names."""
        names = []
        for schema in (RequestHeaders(), CorrelationHeaders()):
            attribute = {field.data_key or name: name for name, field in schema.fields.items()}
            for parameter in self.converter.schema2parameters(schema, location="header"):
                if attribute[parameter["name"]] in CLAIM_FIELDS:
                    continue  # security schemes (CLAIM_SCHEMES)
                name = component_name(attribute[parameter["name"]])
                self.spec.components.parameter(name, parameter.pop("in"), parameter)
                names.append(name)
        return names

    def build(self) -> dict[str, Any]:
        """The whole document, as plain JSON values."""
        by_path: dict[str, list[Rule]] = {}
        for rule in documented_rules(self.app):
            by_path.setdefault(openapi_path(rule), []).append(rule)
        for path, rules in by_path.items():
            operations: dict[str, Any] = {}
            for rule in rules:
                for method in sorted(set(rule.methods or ()) & set(DOCUMENTED_METHODS)):
                    operations[method.lower()] = self.operation(rule, method)
            for literal, expanded in spelled_out(path, operations).items():
                self.spec.path(path=literal, operations=expanded)
        document = self.spec.to_dict()
        for schema in document["components"]["schemas"].values():
            add_examples(schema)
        plain: dict[str, Any] = plain_json(document)
        return plain

    def operation(self, rule: Rule, method: str) -> dict[str, Any]:
        """One operation of a rule, from its view's declaration."""
        view = self.app.view_functions[rule.endpoint]
        contract = contract_of(view)
        if contract is None:
            raise LookupError(f"{rule.rule} ({rule.endpoint}) has no declaration: add @declare to its view")
        version = version_of(rule) if rule.endpoint.split(".")[0] in API_VERSIONS else None
        operation_id = re.sub(r"[^A-Za-z0-9_]+", "_", f"{rule.endpoint}_{method}").strip("_").lower()
        parameters = self.parameters(contract, version, rule)
        answers = dict(contract.answers)
        if version:
            answers.setdefault(400, GUARD_ERROR)
        if contract.callers is not Callers.SERVER:
            answers.setdefault(401, CREDENTIAL_REFUSED)
        if contract.path is not None or contract.query is not None:
            answers.setdefault(400, problem("Invalid parameters (`errors` names each field)."))
        if contract.body is not None:
            answers.update({status: answer for status, answer in BODY_ANSWERS.items() if status not in answers})
            answers.setdefault(400, problem("Invalid body (`errors` names each field)."))
        # Every route, a removed one too (its 410 comes after the request's limits), may answer these.
        answers.update({status: answer for status, answer in GENERIC_ANSWERS.items() if status not in answers})
        result: dict[str, Any] = {
            "operationId": operation_id,
            "tags": [version_of(rule) or "service"],
            "summary": contract.summary,
            "responses": {
                str(status): self.answer(status, answer, etag=304 in answers)
                for status, answer in sorted(answers.items())
            },
        }
        description = inspect.getdoc(inspect.unwrap(view))
        if description:
            result["description"] = description
        if contract.deprecated:
            result["deprecated"] = True
        if parameters:
            result["parameters"] = parameters
        if 304 in answers:
            result.setdefault("parameters", []).append("If-None-Match")  # apispec turns the name into a $ref
        if contract.body is not None:
            result["requestBody"] = self.request_body(contract, version)
        if contract.callers is Callers.BROWSER:
            result["security"] = [{CREDENTIAL_SCHEME: []}]
        elif contract.callers is Callers.SERVER_OR_BROWSER:  # the specification's headers, or a credential
            result["security"] = [*CLAIMED_IDENTITY, {CREDENTIAL_SCHEME: []}]
        elif version and contract.identity:  # a customer's server names its shopper
            result["security"] = CLAIMED_IDENTITY
        return result

    def parameters(self, contract: RouteContract, version: str | None, rule: Rule) -> list[Any]:
        """Path and query parameters, then the headers' components for a versioned route."""
        parameters: list[Any] = []
        if contract.path is not None:
            parameters += self.schema_parameters(contract.path, "path")
        undeclared = set(rule.arguments) - {p["name"] for p in parameters}
        if undeclared:
            raise LookupError(f"{rule.rule}: path segments {sorted(undeclared)} are not declared")
        if contract.query is not None:
            parameters += self.schema_parameters(RouteContract.for_version(contract.query, version), "query")
        if contract.headers is not None:
            parameters += self.schema_parameters(contract.headers, "header")
        if version:  # apispec turns component names into $refs
            parameters += self.browser_headers if contract.callers is Callers.BROWSER else self.headers
        return parameters

    def request_body(self, contract: RouteContract, version: str | None) -> dict[str, Any]:
        """The JSON body (and, for a beacon route, the same as text/plain)."""
        assert contract.body is not None
        schema = RouteContract.for_version(contract.body, version)
        content: dict[str, Any] = {"application/json": {"schema": self.converter.resolve_nested_schema(schema)}}
        if contract.body_example is not None:
            content["application/json"]["example"] = dict(contract.body_example)
        if contract.beacon:
            content["text/plain"] = {
                "schema": {
                    "type": "string",
                    "description": "The same JSON object, as navigator.sendBeacon sends it; it may "
                    "carry the mandatory headers in `headers`.",
                }
            }
        return {"required": True, "content": content}

    def answer(self, status: int, answer: Answer, *, etag: bool) -> dict[str, Any]:
        """A response object; apispec turns a schema class into a $ref to its component."""
        result: dict[str, Any] = {
            "description": answer.description,
            "headers": self.answer_headers(status, answer, etag=etag),
        }
        if answer.media_type is not None:
            body: Any = (
                answer.schema
                if answer.schema is not None
                else ({"type": "string"} if answer.media_type.startswith("text/") else {})
            )
            result["content"] = {answer.media_type: {"schema": body}}
        return result

    def schema_parameters(self, schema: Schema, location: str) -> list[dict[str, Any]]:
        """The parameters of a path or query schema, with demo examples and plain (non-null) types."""
        parameters: list[dict[str, Any]] = self.converter.schema2parameters(schema, location=location)
        fields_by_name = {field.data_key or name: field for name, field in schema.fields.items()}
        for parameter in parameters:
            field = fields_by_name.get(parameter["name"])
            if isinstance(field, DelimitedList):
                # `?recipe_ids=12,13`: one comma-separated value, not a repeated parameter.
                parameter.update(style="form", explode=False)
            if location == "path":
                parameter["required"] = True
            if parameter["name"] in EXAMPLES:
                parameter["example"] = EXAMPLES[parameter["name"]]
            body = parameter.get("schema", {})
            if isinstance(body.get("type"), list):
                # A query or path value is never JSON null: an absent parameter is what load_default covers.
                kinds = [kind for kind in body["type"] if kind != "null"]
                body["type"] = kinds[0] if len(kinds) == 1 else kinds
                if body.get("default", ...) is None:
                    del body["default"]
                if None in body.get("enum", ()):
                    body["enum"] = [value for value in body["enum"] if value is not None]
        return parameters


def spelled_out(path: str, operations: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The path's operations, or, for a path segment whose values may hold a `/` (a `<path:...>` rule, such as
    `/v1/styles/catalog/catalog-home`), one literal path per value of its enum: OpenAPI's templates take no `/`, and a
    client would send it encoded (`%2F`), which some proxies refuse."""
    slashed = next(
        (
            parameter
            for operation in operations.values()
            for parameter in operation.get("parameters", [])
            if isinstance(parameter, dict)  # not a component's name
            and parameter.get("in") == "path"
            and any("/" in str(value) for value in parameter.get("schema", {}).get("enum", []))
        ),
        None,
    )
    if slashed is None:
        return {path: operations}
    return {
        path.replace(f"{{{slashed['name']}}}", str(value)): {
            method: {
                **operation,
                "operationId": f"{operation['operationId']}_{re.sub(r'[^A-Za-z0-9]+', '_', str(value))}",
                "parameters": [kept for kept in operation.get("parameters", []) if kept != slashed],
            }
            for method, operation in operations.items()
        }
        for value in slashed["schema"]["enum"]
    }


def json_id_list_property(self: Any, field: fields.Field[Any], **_: Any) -> dict[str, Any]:
    """A JsonIdList is one query value holding a JSON array of ids: `["100001","100002"]`."""
    if not isinstance(field, JsonIdList):
        return {}
    return {
        "type": "string",
        "contentMediaType": "application/json",
        "description": f'A JSON array of {field.min_items} to {field.max_items} ids, e.g. ["100001","100002"].',
        "contentSchema": {
            "type": "array",
            "minItems": field.min_items,
            "maxItems": field.max_items,
            "items": {"type": "string", "pattern": ID_PATTERN.pattern},
        },
    }


def add_examples(schema: dict[str, Any]) -> None:
    """Attach EXAMPLES to the matching properties of a component schema (in place)."""
    for name, prop in schema.get("properties", {}).items():
        if name in EXAMPLES and "examples" not in prop and "$ref" not in prop:
            prop["examples"] = [EXAMPLES[name]]


def plain_json(value: Any) -> Any:
    """Decimal bounds (fields.Decimal's Range) as JSON numbers: jsonify would write them as strings."""
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(item) for item in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def build_spec(app: Flask, *, version: str) -> dict[str, Any]:
    """The OpenAPI document of the app's routes; `version` is the release that serves them (`info.version`)."""
    return DocumentBuilder(app, version=version).build()

"""The OpenAPI 3.1 document of every route, generated from the application itself.

`build_spec(app)` walks `app.url_map`: each rule's view function gives its request schemas (the marshmallow
schemas of its webargs decorators, read from the decorators' closures; the few views that call the parser
themselves are listed in `MANUAL_ARGS`), and `RESPONSES` says what each view answers. Versioned routes carry
the mandatory headers of the guard (prerender/web/context.py) as reusable `components.parameters`; every error
is an `application/problem+json` `Problem`. `/static` and the document itself are left out.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, g, request
from marshmallow import Schema, fields
from webargs.fields import DelimitedList
from werkzeug.routing import Rule

from prerender.web.versions import API_VERSIONS
from prerender.web.errors import PROBLEM_MIMETYPE
from prerender.schemas.actions import EventsBody
from prerender.schemas.fields import ID_PATTERN, IDENTITY_PATTERN, JsonIdList
from prerender.schemas.recipe_card import multiple_body, multiple_query
from prerender.rendering.stylesheets import STYLE_BUNDLES

OPENAPI_VERSION = "3.1.0"
TITLE = "prerender"
# Rules that are not part of the described API.
EXCLUDED_PREFIXES = ("/static/",)
EXCLUDED_PATHS = ("/openapi.json",)
DOCUMENTED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# webargs location -> OpenAPI parameter location ("json"/"beacon" are request bodies).
PARAMETER_LOCATIONS = {"query": "query", "querystring": "query", "view_args": "path", "path": "path",
                       "headers": "header"}


# ---------------------------------------------------------------------------------------------------- schemas
class ProblemSchema(Schema):
    """RFC 9457 problem details: the body of every 4xx and 5xx."""

    type = fields.String(required=True, metadata={"example": "about:blank"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.Raw(),
                         metadata={"description": "The bad fields, keyed by where they were: headers, query, json."})


class CardHtmlSchema(Schema):
    html = fields.String(required=True, metadata={"description": "The card fragment, or \"\" where no recipe fits."})
    position = fields.Integer(required=True)


class CardsSchema(Schema):
    data = fields.List(fields.Nested(CardHtmlSchema), required=True)


class StylesSchema(Schema):
    links = fields.List(fields.String(), required=True)
    html = fields.String(required=True, metadata={"description": "The <link rel=stylesheet> tags."})


class BasketSchema(Schema):
    """The upstream basket (docs/upstream.md)."""

    store_id = fields.String(allow_none=True)
    recipes = fields.List(fields.Dict())
    products = fields.List(fields.Dict())
    recipe_count = fields.Integer()
    total = fields.Float()
    currency = fields.String()


class CartChangeSchema(Schema):
    id = fields.String(required=True)
    quantity = fields.Integer(required=True, metadata={"description": "Negative to remove."})


class BasketChangeSchema(Schema):
    basket = fields.Nested(BasketSchema, required=True)
    changes = fields.List(fields.Nested(CartChangeSchema), required=True)


class LikedSchema(Schema):
    data = fields.List(fields.String(), required=True)


class StoredSchema(Schema):
    stored = fields.Integer(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)
    checks = fields.Dict(keys=fields.String(), values=fields.String())


RESPONSE_SCHEMAS: dict[str, type[Schema]] = {
    # Nested schemas before the schemas holding them (apispec registers nested ones as it meets them).
    "Problem": ProblemSchema, "CardHtml": CardHtmlSchema, "Cards": CardsSchema, "Styles": StylesSchema,
    "Basket": BasketSchema, "CartChange": CartChangeSchema, "BasketChange": BasketChangeSchema,
    "Liked": LikedSchema, "Stored": StoredSchema, "Health": HealthSchema,
}


# -------------------------------------------------------------------------------------------------- responses
def problem(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {PROBLEM_MIMETYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}}


def json_answer(schema: str | None, description: str = "OK") -> dict[str, Any]:
    body: dict[str, Any] = {"$ref": f"#/components/schemas/{schema}"} if schema else {}
    return {"description": description, "content": {"application/json": {"schema": body}}}


def html_answer(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


NO_CONTENT = {"description": "Done."}
NOT_MODIFIED = {"description": "Not modified (If-None-Match matched the ETag)."}
UPSTREAM_FAILURES = {
    "502": problem("The recipe service failed or answered something malformed."),
    "503": problem("The recipe service is unreachable."),
    "504": problem("The recipe service did not answer in time."),
}
# Upstream 4xx a browser can act on are passed through (prerender/web/errors.py).
PASSED_THROUGH = {
    "403": problem("Refused by the recipe service."),
    "404": problem("Unknown recipe, ingredient or product."),
    "409": problem("Conflict (e.g. an order confirmed twice)."),
    "422": problem("Refused by the recipe service."),
}
ACTION = {"200": json_answer("BasketChange", "The basket and what the retailer cart must do."),
          **PASSED_THROUGH, **UPSTREAM_FAILURES}

# Blueprint-local endpoint -> (summary, responses besides the common ones).
RESPONSES: dict[str, tuple[str, dict[str, Any]]] = {
    "recipe_card.get_card": ("One recipe card", {
        "200": html_answer("The card fragment; an empty body when no recipe fits or the upstream failed."),
        "304": NOT_MODIFIED}),
    "multiple.post_multiple": ("Many recipe cards in one call", {
        "200": json_answer("Cards", "One card per context, sorted by position.")}),
    "styles.all_styles": ("Every stylesheet", {"200": json_answer("Styles"), "304": NOT_MODIFIED}),
    "styles.component_styles": ("The stylesheets of one component", {
        "200": json_answer("Styles"), "304": NOT_MODIFIED, "404": problem("No such component.")}),
    "recipe_details.get_details": ("The recipe drawer's content", {
        "200": html_answer("The <svc-recipe-details> fragment."), "304": NOT_MODIFIED,
        "404": problem("Unknown recipe."), **UPSTREAM_FAILURES}),
    "basket.get_basket": ("The user's basket at a store", {
        "200": json_answer("Basket"), "304": NOT_MODIFIED, **UPSTREAM_FAILURES}),
    "basket.add_recipe": ("Add a recipe to the basket", ACTION),
    "basket.rescale_recipe": ("Re-scale a recipe of the basket", ACTION),
    "basket.remove_recipe": ("Remove a recipe from the basket", ACTION),
    "basket.set_ingredient": ("Set the product of one ingredient", ACTION),
    "basket.reconcile": ("Follow the retailer cart", ACTION),
    "basket.confirm": ("Confirm the basket after payment", {
        "200": json_answer(None, "The confirmation."), **PASSED_THROUGH, **UPSTREAM_FAILURES}),
    "basket.merge_authless_basket": ("Merge the logged-out basket into the user's", {
        **ACTION, "403": problem("Not a connected user, or refused by the recipe service.")}),
    "likes.liked": ("Which of these recipes the user likes", {
        "200": json_answer("Liked"), "304": NOT_MODIFIED, **UPSTREAM_FAILURES}),
    "likes.like": ("Like a recipe", {"204": NO_CONTENT, **PASSED_THROUGH, **UPSTREAM_FAILURES,
                                      "403": problem("Not a connected user of a known supplier.")}),
    "likes.unlike": ("Unlike a recipe", {"204": NO_CONTENT, **PASSED_THROUGH, **UPSTREAM_FAILURES,
                                          "403": problem("Not a connected user of a known supplier.")}),
    "events.post_events": ("Store analytics events", {
        "202": json_answer("Stored", "Accepted."), **PASSED_THROUGH, **UPSTREAM_FAILURES}),
    "bootstrap.window_bootstrap": ("The browser SDK alone", {
        "200": html_answer("The SDK's module script tag."), "304": NOT_MODIFIED}),
    "health.healthz": ("Liveness", {"200": json_answer("Health")}),
    "health.readyz": ("Readiness", {"200": json_answer("Health"),
                                    "503": json_answer("Health", "Not ready: a check failed.")}),
    "metrics.metrics": ("Prometheus metrics", {"200": {
        "description": "The Prometheus text exposition format.",
        "content": {"text/plain": {"schema": {"type": "string"}}}}}),
}
# A route this table does not know yet: any successful answer.
UNKNOWN_ROUTE: tuple[str, dict[str, Any]] = ("", {"200": {"description": "OK", "content": {"*/*": {"schema": {}}}}})

# Request bodies from the demo catalog (README), so tools also send bodies that reach the upstream.
BODY_EXAMPLES: dict[str, dict[str, Any]] = {
    "multiple.post_multiple": {"contexts": [{"productIds": ["100001", "100002"], "position": 4},
                                            {"productIds": ["100010", "100011"], "position": 1}],
                               "keyword": None, "categoryId": None, "display_variant": 2, "store_id": "1001"},
    "basket.add_recipe": {"recipe_id": "5", "guests": 4, "store_id": "1001"},
    "basket.rescale_recipe": {"guests": 6, "store_id": "1001"},
    "basket.set_ingredient": {"product_id": "100001", "quantity": 1, "store_id": "1001"},
    "basket.reconcile": {"store_id": "1001", "cart": [{"id": "100001", "quantity": 1}]},
    "basket.confirm": {"store_id": "1001", "total": 12.5, "order_id": "order-1"},
    "events.post_events": {"events": [{"name": "recipe.show", "path": "/", "props": {"recipe_id": "5"}}]},
}


# --------------------------------------------------------------------------------------- request arguments
# Views that call the parser themselves: (webargs location, schema or schema factory(request)).
MANUAL_ARGS: dict[str, list[tuple[str, Any]]] = {
    "multiple.post_multiple": [("query", multiple_query), ("json", multiple_body)],
    "events.post_events": [("beacon", EventsBody)],
}


def webargs_arguments(view: Callable[..., Any]) -> list[tuple[str, Any]]:
    """(location, argmap) of each webargs decorator of a view, outermost first."""
    found = []
    while view is not None:
        if getattr(view, "__closure__", None):
            nonlocals = inspect.getclosurevars(view).nonlocals
            if "argmap" in nonlocals and "location" in nonlocals:
                found.append((nonlocals["location"], nonlocals["argmap"]))
        view = getattr(view, "__wrapped__", None)
    return found


def resolve_schema(app: Flask, argmap: Any, version: str | None) -> Schema:
    """A schema instance from a webargs argmap: a Schema (class or instance), or a factory called with a
    request of the API version (per-version schemas such as the card's display_variant)."""
    if isinstance(argmap, Schema):
        return argmap
    if isinstance(argmap, type) and issubclass(argmap, Schema):
        return argmap()
    # A fresh app context: its own `g`, so the fake request context never leaks into a real request.
    with app.app_context(), app.test_request_context(f"/{version or ''}"):
        g.ctx = SimpleNamespace(api_version=version)
        return argmap(request)


# Examples from the demo catalog (README), by field name: explicit examples lead tools past "unknown store".
EXAMPLES: dict[str, Any] = {
    "store_id": "1001", "recipe_id": "5", "product_id": "100001", "ingredient_id": "1", "guests": 4,
    "serves": 4, "authless_id": "anon-1", "recipe_ids": "5,12",
    "surrounding_products_ids": '["100001","100002"]', "current_products_ids": '["100010"]',
    "productIds": ["100001", "100002"], "position": 1,
}


def _add_examples(schema: dict[str, Any]) -> None:
    """Attach EXAMPLES to the matching properties of a component schema (in place)."""
    for name, prop in schema.get("properties", {}).items():
        if name in EXAMPLES and "examples" not in prop and "$ref" not in prop:
            prop["examples"] = [EXAMPLES[name]]


# ------------------------------------------------------------------------------------------------ headers
ID_HEADER = IDENTITY_PATTERN.pattern
HEADER_PARAMETERS: dict[str, dict[str, Any]] = {
    "Authorization": {"name": "authorization", "in": "header", "required": False,
                      "description": "`user_id <USER_ID>` for a logged-in user; send it or `authless-id`.",
                      "schema": {"type": "string", "pattern": "^user_id " + IDENTITY_PATTERN.pattern[1:]}},
    "AuthlessId": {"name": "authless-id", "in": "header", "required": False,
                   "description": "The id of a logged-out user (instead of `authorization`).",
                   "schema": {"type": "string", "pattern": ID_HEADER}},
    "LanguageId": {"name": "language-id", "in": "header", "required": True,
                   "description": "`fr` or `en`, optionally `-<retailer>` for text overrides.",
                   "schema": {"type": "string", "pattern": r"^(fr|en)(-[a-z0-9_]{1,32})?$"}},
    "SessionId": {"name": "session-id", "in": "header", "required": True,
                  "description": "The browsing session.", "schema": {"type": "string", "pattern": ID_HEADER}},
    "SupplierToken": {"name": "supplier-token", "in": "header", "required": False,
                      "description": "The supplier's token; without a valid one, cards have no supplier features.",
                      "schema": {"type": "string"}},
    "Profiling": {"name": "profiling", "in": "header", "required": False,
                  "description": "`false` keeps the user's history out of suggestions.",
                  "schema": {"type": "string", "enum": ["true", "false", "1", "0"], "default": "true"}},
    "RequestId": {"name": "X-Request-Id", "in": "header", "required": False,
                  "description": "Echoed back and passed upstream; a new one is made when absent or malformed.",
                  "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,64}$"}},
}
GUARD_ERROR = problem("Invalid parameters or missing or malformed headers (`errors` names each field).")


# -------------------------------------------------------------------------------------------------- builder
def openapi_path(rule: Rule) -> str:
    """`/v1/likes/<recipe_id>` -> `/v1/likes/{recipe_id}`."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)


def documented_rules(app: Flask) -> list[Rule]:
    """Every rule of the described API: all but /static and the document itself."""
    return [rule for rule in app.url_map.iter_rules()
            if not rule.rule.startswith(EXCLUDED_PREFIXES) and rule.rule not in EXCLUDED_PATHS]


def _version_of(rule: Rule) -> str | None:
    first = rule.rule.strip("/").split("/")[0]
    return first if first in API_VERSIONS else None


class _Builder:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.plugin = MarshmallowPlugin(schema_name_resolver=self._schema_name)
        self.spec = APISpec(title=TITLE, version=app.config.get("API_DOCUMENT_VERSION", "1.0.0"),
                            openapi_version=OPENAPI_VERSION, plugins=[self.plugin],
                            info={"description": "Pre-rendered HTML fragments of shoppable-recipe components "
                                                 "(README.md, docs/browser-api.md)."})
        converter = self.plugin.converter
        assert converter is not None
        converter.add_attribute_function(_json_id_list_property)
        for name, schema in RESPONSE_SCHEMAS.items():
            self.spec.components.schema(name, schema=schema)
        for name, parameter in HEADER_PARAMETERS.items():
            self.spec.components.parameter(name, parameter["in"], {k: v for k, v in parameter.items() if k != "in"})

    @staticmethod
    def _schema_name(schema: Any) -> str | None:
        cls = schema if isinstance(schema, type) else type(schema)
        name = cls.__name__.lstrip("_")
        if name in ("GeneratedSchema", "Schema"):
            return None  # inline the schemas webargs builds from dicts
        return name[:-6] if name.endswith("Schema") and len(name) > 6 else name

    def build(self) -> dict[str, Any]:
        by_path: dict[str, list[Rule]] = {}
        for rule in documented_rules(self.app):
            by_path.setdefault(openapi_path(rule), []).append(rule)
        for path, rules in by_path.items():
            operations: dict[str, Any] = {}
            for rule in rules:
                for method in sorted(set(rule.methods or ()) & set(DOCUMENTED_METHODS)):
                    operations[method.lower()] = self.operation(rule, method)
            self.spec.path(path=path, operations=operations)
        document = self.spec.to_dict()
        for name, schema in document["components"]["schemas"].items():
            if name not in RESPONSE_SCHEMAS:
                _add_examples(schema)
        return _plain_json(document)

    def operation(self, rule: Rule, method: str) -> dict[str, Any]:
        version = _version_of(rule)
        endpoint = rule.endpoint
        local = endpoint.split(".", 1)[1] if version and endpoint.startswith(f"{version}.") else endpoint
        operation_id = re.sub(r"[^A-Za-z0-9_]+", "_", f"{endpoint}_{method}").strip("_").lower()
        if endpoint.startswith("removed."):
            return {"operationId": operation_id, "summary": "Removed by the specification", "deprecated": True,
                    "tags": [version or "service"],
                    "responses": {"410": problem("This route was removed from the service.")}}

        summary, responses = RESPONSES.get(local, UNKNOWN_ROUTE)
        view = self.app.view_functions[endpoint]
        arguments = MANUAL_ARGS.get(local) or webargs_arguments(view)
        parameters: list[dict[str, Any]] = []
        body_types: dict[str, Any] = {}
        for location, argmap in arguments:
            schema = resolve_schema(self.app, argmap, version)
            if location in ("json", "beacon"):
                body_types["application/json"] = {"schema": self.plugin.converter.resolve_nested_schema(schema)}
                if local in BODY_EXAMPLES:
                    body_types["application/json"]["example"] = BODY_EXAMPLES[local]
                if location == "beacon":
                    body_types["text/plain"] = {"schema": {
                        "type": "string", "description": "The same JSON object, as navigator.sendBeacon sends it; "
                                                         "it may carry the mandatory headers in `headers`."}}
            else:
                parameters += self.parameters(schema, PARAMETER_LOCATIONS.get(location, location))
        documented = {(p["in"], p["name"]) for p in parameters}
        for name in rule.arguments:
            if ("path", name) not in documented:
                parameters.append(self.path_parameter(local, name))
        if version:
            parameters += list(HEADER_PARAMETERS)  # apispec turns component names into $refs

        all_responses = dict(responses)
        if version:
            all_responses.setdefault("400", GUARD_ERROR)
        if body_types:
            all_responses["413"] = problem("The body is larger than the limit (64 KiB).")
            all_responses["415"] = problem("The body's Content-Type is not accepted.")
        all_responses["414"] = problem("The URL is longer than the limit (prerender/web/request_limits.py).")
        all_responses["431"] = problem("A header, the number of headers or their total size is over the limit.")
        all_responses["500"] = problem("The service failed to answer this request.")
        result: dict[str, Any] = {"operationId": operation_id, "tags": [version or "service"],
                                  "responses": dict(sorted(all_responses.items()))}
        if summary:
            result["summary"] = summary
        doc = inspect.getdoc(inspect.unwrap(view))
        if doc:
            result["description"] = doc
        if parameters:
            result["parameters"] = parameters
        if body_types:
            result["requestBody"] = {"required": True, "content": body_types}
        return result

    def parameters(self, schema: Schema, location: str) -> list[dict[str, Any]]:
        parameters = self.plugin.converter.schema2parameters(schema, location=location)
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
            schema_ = parameter.get("schema", {})
            if isinstance(schema_.get("type"), list):
                # A query or path value is never JSON null: an absent parameter is what load_default covers.
                kinds = [kind for kind in schema_["type"] if kind != "null"]
                schema_["type"] = kinds[0] if len(kinds) == 1 else kinds
                if schema_.get("default", ...) is None:
                    del schema_["default"]
        return parameters

    @staticmethod
    def path_parameter(local_endpoint: str, name: str) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string", "pattern": ID_PATTERN.pattern}
        if local_endpoint == "styles.component_styles" and name == "component":
            schema = {"type": "string", "enum": sorted(STYLE_BUNDLES)}
        return {"name": name, "in": "path", "required": True, "schema": schema}


def _json_id_list_property(self: Any, field: fields.Field, **_: Any) -> dict[str, Any]:
    """A JsonIdList is one query value holding a JSON array of ids: `["100001","100002"]`."""
    if not isinstance(field, JsonIdList):
        return {}
    return {"type": "string", "contentMediaType": "application/json",
            "description": f"A JSON array of {field.min_items} to {field.max_items} ids, e.g. [\"100001\",\"100002\"].",
            "contentSchema": {"type": "array", "minItems": field.min_items, "maxItems": field.max_items,
                              "items": {"type": "string", "pattern": ID_PATTERN.pattern}}}


def _plain_json(value: Any) -> Any:
    """Decimal bounds (fields.Decimal's Range) as JSON numbers: jsonify would write them as strings."""
    if isinstance(value, dict):
        return {key: _plain_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(item) for item in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def build_spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of the app's routes."""
    return _Builder(app).build()

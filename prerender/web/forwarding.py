"""Browser routes that forward their validated request to the upstream and answer its validated answer.

A forwarded route is one declaration, `ForwardedRoute`: the route (rule, summary, request schemas, documented
answers) and the upstream call it makes (an `UpstreamCall` of the gateway's resource module, which knows every
upstream path); the JSON schema its 200 documents is the one the upstream's answer is checked with. Forwarded
routes are the browser's writes (sent again with their idempotency key): a GET or HEAD call is refused when the
route is declared, as its answer would go out with neither Cache-Control nor ETag (prerender/web/http_caching.py
knows nothing of it). `add_forwarded_route` registers its view, which `declare` gives its parsing and its OpenAPI
operation (prerender/web/contract.py, openapi.py), and which calls `forward`; each app records the forwarded
routes it serves (`forwarded_routes`), so that a test can send every one of them. A view that does more than
forward (the payment's outcome) calls `forward` itself with its call and answer schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from flask import Blueprint, Flask
from flask.blueprints import BlueprintSetupState
from marshmallow import Schema

from prerender.gateway import CallerIdentity, UpstreamCall, get_upstream
from prerender.web.context import RequestContext, current_context
from prerender.web.contract import Answer, Callers, declare
from prerender.web.upstream_answers import checked_answer

EXTENSION_KEY = "prerender.forwarded_routes"
# Reads, which a forwarded route may not make: its answer would be cached by no policy.
READ_METHODS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True)
class ForwardedRoute:
    """A browser route that forwards to one upstream call. Its method is the call's; `endpoint` names its view (the
    OpenAPI operation's id is made from it, the version and the method: `v2_menu_add_recipe_post`), `description`
    is the view's docstring; `owner` is whose identity the call is made with (`basket_owner`: baskets need a known
    supplier). The path segments the route's `path` schema parses fill the call's placeholders; its query is the
    call's parameters (None values left out), its body the call's body, and the `idempotency_key` of its `headers`
    the call's key. The call is a write: a GET or HEAD is refused here (a ValueError), since a read needs a cache
    policy and an ETag that forwarding does not give; a read of the upstream is a view of its own."""

    rule: str
    endpoint: str
    summary: str
    description: str
    call: UpstreamCall
    answers: Mapping[int, Answer]
    path: Schema | None = None
    query: Schema | None = None
    body: Schema | None = None
    headers: Schema | None = None
    body_example: Mapping[str, Any] | None = field(default=None, compare=False)
    callers: Callers = Callers.BROWSER
    owner: Callable[[], RequestContext] = current_context

    def __post_init__(self) -> None:
        if self.call.method.upper() in READ_METHODS:
            raise ValueError(
                f"{self.endpoint}: a forwarded route is a browser's write, not a {self.call.method} "
                f"({self.call.path}): its answer would have no Cache-Control nor ETag; write the read as a view"
            )

    @property
    def answer(self) -> type[Schema]:
        """The schema of the upstream's answer: the one the route documents for its 200."""
        schema = self.answers[200].schema
        if schema is None:
            raise LookupError(f"{self.endpoint}: a forwarded route documents its 200's JSON schema")
        return schema


def add_forwarded_route(bp: Blueprint, route: ForwardedRoute) -> None:
    """Registers the route's view on the blueprint (a route without its 200's schema fails here, at start-up),
    and, each time the blueprint is registered on an app, the route in the app's `forwarded_routes`."""
    answer = route.answer

    def view(**arguments: Any) -> dict[str, Any]:
        headers = arguments.pop("headers", {})
        query = arguments.pop("query", None)
        body = arguments.pop("body", None)
        return forward(
            route.call,
            answer,
            route.owner().upstream,
            segments=arguments,  # what is left: the path segments
            body=body,
            params={name: value for name, value in query.items() if value is not None} if query else None,
            key=headers.get("idempotency_key"),
        )

    view.__name__ = view.__qualname__ = route.endpoint
    view.__doc__ = route.description
    declared = declare(
        summary=route.summary,
        answers=route.answers,
        path=route.path,
        query=route.query,
        body=route.body,
        headers=route.headers,
        body_example=route.body_example,
        callers=route.callers,
    )(view)
    bp.add_url_rule(route.rule, endpoint=route.endpoint, view_func=declared, methods=[route.call.method])

    def record(state: BlueprintSetupState) -> None:
        endpoint = f"{state.name_prefix}.{state.name}.{route.endpoint}".lstrip(".")  # as Flask names it
        state.app.extensions.setdefault(EXTENSION_KEY, {})[endpoint] = route

    bp.record(record)


def forwarded_routes(app: Flask) -> Mapping[str, ForwardedRoute]:
    """The forwarded routes the app serves, by the app's endpoint of each (`v2.basket.add_recipe`): one entry per
    API version a route is served in."""
    routes: Mapping[str, ForwardedRoute] = app.extensions.get(EXTENSION_KEY, {})
    return routes


def forward(
    call: UpstreamCall,
    answer: type[Schema],
    identity: CallerIdentity,
    *,
    segments: Mapping[str, str] | None = None,
    body: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """The upstream's answer to the call, once it matches `answer` (else a 502: the upstream answered
    something this route does not document). Decimal amounts of the body are sent as JSON numbers."""
    payload = get_upstream().forwarder.forward(
        call, identity, segments=segments, body=_json_ready(body) if body else body, params=params, key=key
    )
    return checked_answer(answer, payload, f"{call.method} {call.path}")


def _json_ready(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {name: _json_ready(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_json_ready(item) for item in value]
    return value

"""Forwarded routes (prerender/web/forwarding.py): what a declaration may say, and what an app records of them."""

from __future__ import annotations

import pytest
from flask import Blueprint, Flask

from prerender.blueprints import basket, menu
from prerender.gateway import UpstreamCall
from prerender.gateway.guards import Resource
from prerender.schemas.responses import ProblemSchema
from prerender.web.contract import json_answer
from prerender.web.forwarding import ForwardedRoute, add_forwarded_route, forwarded_routes


def declared(method: str) -> ForwardedRoute:
    return ForwardedRoute(
        "/things",
        "thing",
        summary="A thing",
        description="A thing.",
        call=UpstreamCall.write(method, "/things", Resource.BASKETS, name="thing"),
        answers={200: json_answer(ProblemSchema)},
    )


@pytest.mark.parametrize("method", ["GET", "HEAD", "get"])
def test_a_read_is_refused_when_the_route_is_declared(method: str) -> None:
    """A forwarded route's answer gets no cache policy nor ETag: it may only be a write of the browser."""
    with pytest.raises(ValueError, match="thing: a forwarded route is a browser's write"):
        declared(method)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_a_write_is_declared(method: str) -> None:
    assert declared(method).call.method == method


def test_an_app_records_a_forwarded_route_wherever_it_serves_it() -> None:
    route = declared("POST")
    things = Blueprint("things", __name__)
    add_forwarded_route(things, route)
    app = Flask(__name__)
    assert forwarded_routes(app) == {}
    for version in ("v1", "v2"):
        parent = Blueprint(version, __name__, url_prefix=f"/{version}")
        parent.register_blueprint(things)
        app.register_blueprint(parent)
    assert forwarded_routes(app) == {"v1.things.thing": route, "v2.things.thing": route}
    assert {rule.rule: rule.endpoint for rule in app.url_map.iter_rules() if rule.endpoint != "static"} == {
        "/v1/things": "v1.things.thing",
        "/v2/things": "v2.things.thing",
    }


def test_the_service_records_the_routes_it_forwards(app: Flask) -> None:
    """Each recorded route is served under its endpoint, with its call's method."""
    routes = forwarded_routes(app)
    assert {id(route) for route in routes.values()} >= {id(route) for route in (*basket.FORWARDED, *menu.FORWARDED)}
    methods = {rule.endpoint: rule.methods for rule in app.url_map.iter_rules()}
    for endpoint, route in routes.items():
        assert endpoint.rsplit(".", 1)[1] == route.endpoint
        assert methods[endpoint] - {"OPTIONS"} == {route.call.method}, endpoint

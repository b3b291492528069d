"""Forwarded routes (prerender/web/forwarding.py): what a declaration may say, and what an app records of them."""

from __future__ import annotations

import pytest

from prerender.gateway import UpstreamCall
from prerender.gateway.guards import Resource
from prerender.schemas.responses import ProblemSchema
from prerender.web.contract import json_answer
from prerender.web.forwarding import ForwardedRoute


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

"""A body that is not JSON Python can load is a 400 naming the body (`errors.json._schema`), on JSON routes and
beacon routes alike, never a 500 (prerender/web/parsing.py)."""

from __future__ import annotations

import pytest

from tests.conftest import HEADERS

CONTEXT = '{"productIds": ["1", "2"], "position": 1}'
HUGE_INTEGER = "1" + "0" * 5000  # valid JSON; more digits than Python converts (sys.get_int_max_str_digits)

MULTIPLE = "/v1/recipe-card/multiple"
EVENTS = "/v1/events"
BODIES = [
    (MULTIPLE, "application/json", '{"contexts": [' + CONTEXT + '], "serves": ' + HUGE_INTEGER + "}"),
    (MULTIPLE, "application/json", '{"contexts": [{"productIds": ["1", "2"], "position": ' + HUGE_INTEGER + "}]}"),
    (EVENTS, "text/plain", '{"events": [{"name": "a.b", "props": {"n": ' + HUGE_INTEGER + "}}]}"),
    (EVENTS, "application/json", '{"events": [{"name": "a.b", "props": {"n": ' + HUGE_INTEGER + "}}]}"),
    (MULTIPLE, "application/json", '{"contexts": ['),
    (MULTIPLE, "application/json", b'{"contexts": "\xff"}'),
    (EVENTS, "text/plain", '{"events": ['),
    (EVENTS, "text/plain", b'{"events": "\xff"}'),
]


@pytest.mark.parametrize(("path", "content_type", "body"), BODIES, ids=range(len(BODIES)))
def test_a_body_python_cannot_load_is_a_400_naming_the_body(client, shopper_headers, path, content_type, body):
    hdrs = shopper_headers if path == EVENTS else HEADERS  # events are a browser route: the shopper's credential
    response = client.post(path, data=body, headers={**hdrs, "Content-Type": content_type})
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert response.get_json()["errors"] == {"json": {"_schema": ["Invalid JSON body."]}}


def test_an_empty_json_body_is_a_missing_body(client):
    response = client.post(MULTIPLE, data="", headers={**HEADERS, "Content-Type": "application/json"})
    assert response.status_code == 400 and "contexts" in response.get_json()["errors"]["json"]

"""Unit tests of the shop's prerender client: the headers it sends, the requests it builds, and that a
failure is always "no card" (never an exception). HTTP is faked with `responses` except for the closed port."""

from __future__ import annotations

import json
import logging
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from examples.shop.prerender_client import CardContext, PrerenderClient, prerender_headers, visitor_headers
from examples.shop.visitor import Visitor
from tests.clock import FakeClock
from tests.conftest import closed_port

BASE = "http://prerender.test"
ANONYMOUS = Visitor(session_id="sess-1", authless_id="anon-1", language="fr")
CONNECTED = Visitor(session_id="sess-2", authless_id="anon-2", language="en", user_id="demo-user", store_id="1001")


def client(**kwargs) -> PrerenderClient:
    return PrerenderClient(BASE, "demo-retailer-token", **kwargs)


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# ---------------------------------------------------------------- headers


def test_logged_out_visitor_sends_authless_id_and_no_authorization():
    headers = prerender_headers(ANONYMOUS, "tok")
    assert headers == {"authless-id": "anon-1", "language-id": "fr", "supplier-token": "tok", "session-id": "sess-1"}


def test_logged_in_visitor_sends_user_id_authorization_and_no_authless_id():
    headers = prerender_headers(CONNECTED, "tok")
    assert headers["authorization"] == "user_id demo-user"
    assert "authless-id" not in headers
    assert headers["language-id"] == "en"
    assert headers["session-id"] == "sess-2"
    assert headers["supplier-token"] == "tok"


def test_request_id_is_forwarded_when_given():
    assert prerender_headers(ANONYMOUS, "tok", "req-1")["x-request-id"] == "req-1"
    assert "x-request-id" not in prerender_headers(ANONYMOUS, "tok")


@responses.activate
def test_every_route_carries_the_mandatory_headers():
    responses.get(f"{BASE}/v1/recipe-card", body="<p>card</p>")
    responses.post(f"{BASE}/v1/recipe-card/multiple", json={"data": []})
    responses.get(f"{BASE}/v1/styles/base", json={"links": [], "html": ""})
    shop = client()
    shop.recipe_card(CONNECTED, ["1", "2"])
    shop.recipe_cards(CONNECTED, [CardContext(("1", "2"), 1)])
    shop.styles(CONNECTED, "base")
    assert len(responses.calls) == 3
    for call in responses.calls:
        assert call.request.headers["authorization"] == "user_id demo-user"
        assert call.request.headers["language-id"] == "en"
        assert call.request.headers["supplier-token"] == "demo-retailer-token"
        assert call.request.headers["session-id"] == "sess-2"


# ---------------------------------------------------------------- single card


@responses.activate
def test_single_card_sends_surrounding_products_as_a_json_array():
    responses.get(f"{BASE}/v1/recipe-card", body=" <svc-recipe-card id='svc-recipe-card-7'></svc-recipe-card>\n")
    html = client().recipe_card(
        ANONYMOUS, ["100001", "100002"], store_id="1002", display_variant=3, orientation="horizontal"
    )
    assert html == "<svc-recipe-card id='svc-recipe-card-7'></svc-recipe-card>"
    query = query_of(responses.calls[0])
    assert json.loads(query["surrounding_products_ids"][0]) == ["100001", "100002"]
    assert query["store_id"] == ["1002"]
    assert query["display_variant"] == ["3"]
    assert query["orientation"] == ["horizontal"]
    assert "above_fold" not in query  # prerender's default: a lazy picture


@responses.activate
def test_each_call_of_a_page_has_its_own_request_id_under_the_pages():
    # prerender's log tells the page's calls apart, and groups them by the page's id.
    responses.get(f"{BASE}/v1/recipe-card", body="")
    shop = client()
    shop.recipe_card(ANONYMOUS, ["1", "2"], request_id="page-1")
    shop.recipe_card(ANONYMOUS, ["1", "2"], request_id="page-1")
    shop.recipe_card(ANONYMOUS, ["1", "2"])
    sent = [call.request.headers["x-request-id"] for call in responses.calls]
    assert all(re.fullmatch(r"page-1\.[0-9a-f]{6}", sent_id) for sent_id in sent[:2]) and sent[0] != sent[1]
    assert re.fullmatch(r"[0-9a-f]{32}", sent[2])  # a call outside a page has one too


@responses.activate
def test_single_card_without_a_store_omits_store_id():
    responses.get(f"{BASE}/v1/recipe-card", body="")
    assert client().recipe_card(ANONYMOUS, ["1", "2"]) == ""
    assert "store_id" not in query_of(responses.calls[0])


@responses.activate
def test_a_card_in_the_first_viewport_says_so():
    responses.get(f"{BASE}/v1/recipe-card", body="")
    client().recipe_card(ANONYMOUS, ["1", "2"], above_fold=True)
    assert query_of(responses.calls[0])["above_fold"] == ["true"]


@pytest.mark.parametrize(
    "failure",
    [
        {"status": 500, "body": "boom"},
        {"status": 503, "body": ""},
        {"status": 400, "json": {"title": "Bad Request"}},
        {"body": requests.exceptions.ConnectTimeout("slow")},
        {"body": requests.exceptions.ReadTimeout("slow")},
        {"body": requests.exceptions.ConnectionError("refused")},
    ],
)
@responses.activate
def test_single_card_failure_is_no_card(failure, caplog):
    responses.get(f"{BASE}/v1/recipe-card", **failure)
    assert client().recipe_card(ANONYMOUS, ["1", "2"]) == ""
    assert any("prerender" in record.getMessage() for record in caplog.records)


def test_refused_connection_is_no_card():
    shop = PrerenderClient(f"http://127.0.0.1:{closed_port()}", "tok")
    assert shop.recipe_card(ANONYMOUS, ["1", "2"]) == ""
    assert shop.recipe_cards(ANONYMOUS, [CardContext(("1", "2"), 1)]) == {}
    assert shop.styles(ANONYMOUS, "base") == ""


def test_timeouts_are_short():
    assert client().timeout == (0.5, 3.0)


# ---------------------------------------------------------------- multiple cards


@responses.activate
def test_multiple_cards_body_query_and_result_by_position():
    responses.post(
        f"{BASE}/v1/recipe-card/multiple",
        json={
            "data": [
                {"html": "<p>a</p>", "position": 5},
                {"html": "", "position": 7},
                {"html": "<p>c</p>", "position": 9},
            ]
        },
    )
    contexts = [CardContext(("1", "2"), 9), CardContext(("3", "4"), 5), CardContext(("5", "6"), 7)]
    cards = client().recipe_cards(CONNECTED, contexts, store_id="1001", display_variant=2)
    assert cards == {5: "<p>a</p>", 9: "<p>c</p>"}
    call = responses.calls[0]
    assert call.request.headers["content-type"] == "application/json"
    assert json.loads(call.request.body) == {
        "contexts": [
            {"productIds": ["1", "2"], "position": 9},
            {"productIds": ["3", "4"], "position": 5},
            {"productIds": ["5", "6"], "position": 7},
        ]
    }
    assert query_of(call) == {"store_id": ["1001"], "display_variant": ["2"]}


@responses.activate
def test_multiple_cards_without_store_and_unexpected_body():
    responses.post(f"{BASE}/v1/recipe-card/multiple", json={"unexpected": True})
    assert client().recipe_cards(ANONYMOUS, [CardContext(("1", "2"), 1)]) == {}
    assert "store_id" not in query_of(responses.calls[0])


def test_multiple_cards_with_no_context_calls_nothing():
    assert client().recipe_cards(ANONYMOUS, []) == {}  # no HTTP mock: a call would fail loudly


@responses.activate
def test_multiple_cards_ignores_positions_it_did_not_ask_for():
    responses.post(f"{BASE}/v1/recipe-card/multiple", json={"data": [{"html": "<p>x</p>", "position": 99}]})
    assert client().recipe_cards(ANONYMOUS, [CardContext(("1", "2"), 1)]) == {}


# ---------------------------------------------------------------- styles


@responses.activate
def test_styles_are_cached_for_their_ttl():
    responses.get(f"{BASE}/v1/styles/recipe-card", json={"links": ["x"], "html": '<link rel="stylesheet" href="x">'})
    clock = FakeClock()
    shop = client(styles_ttl=60, clock=clock)
    assert shop.styles(ANONYMOUS, "recipe-card") == '<link rel="stylesheet" href="x">'
    clock.now += 59
    assert shop.styles(CONNECTED, "recipe-card") == '<link rel="stylesheet" href="x">'
    assert len(responses.calls) == 1
    clock.now += 2
    shop.styles(ANONYMOUS, "recipe-card")
    assert len(responses.calls) == 2


@responses.activate
def test_failed_styles_are_not_cached():
    responses.get(f"{BASE}/v1/styles/base", status=503)
    shop = client()
    assert shop.styles(ANONYMOUS, "base") == ""
    responses.replace(responses.GET, f"{BASE}/v1/styles/base", json={"links": [], "html": "<link>"})
    assert shop.styles(ANONYMOUS, "base") == "<link>"


# ---------------------------------------------------------------- identity routes (server to server)


def test_headers_without_identity_have_neither_authorization_nor_authless_id():
    assert visitor_headers(language="en", session_id="s-1", supplier_token="tok") == {
        "language-id": "en",
        "session-id": "s-1",
        "supplier-token": "tok",
    }


@responses.activate
def test_authless_id_is_asked_with_the_headers_without_identity():
    issued = "A" * 21 + "_" + "b-" * 10 + "9"
    responses.get(f"{BASE}/v1/generate-authless-token", json={"authless_id": issued})
    assert client().generate_authless_id(language="fr", session_id="sess-9", request_id="req-9") == issued
    headers = responses.calls[0].request.headers
    assert headers["supplier-token"] == "demo-retailer-token"
    assert headers["language-id"] == "fr"
    assert headers["session-id"] == "sess-9"
    assert re.fullmatch(r"req-9\.[0-9a-f]{6}", headers["x-request-id"])  # the page's id, and the call's own
    assert "authorization" not in headers and "authless-id" not in headers


@pytest.mark.parametrize(
    "failure",
    [
        {"status": 401, "json": {"title": "Unauthorized", "detail": "Unknown supplier-token."}},
        {"status": 503, "body": ""},
        {"json": {"unexpected": True}},
        {"json": {"authless_id": 42}},
        {"json": {"authless_id": ""}},
        {"body": "not json"},
        {"body": requests.exceptions.ConnectionError("refused")},
    ],
)
@responses.activate
def test_no_authless_id_on_failure(failure, caplog):
    responses.get(f"{BASE}/v1/generate-authless-token", **failure)
    assert client().generate_authless_id(language="fr", session_id="s") is None
    assert any("prerender" in record.getMessage() for record in caplog.records)


@responses.activate
def test_merge_is_asked_for_the_logged_in_user_with_the_authless_id_and_store():
    answer = {"basket": {"recipe_count": 1}, "changes": [{"id": "100001", "quantity": 1}]}
    responses.get(f"{BASE}/v1/basket/merge-authless-basket", json=answer)
    merged = client().merge_authless_basket(CONNECTED, "anon-before", store_id="1001", request_id="req-3")
    assert merged == answer
    call = responses.calls[0]
    assert query_of(call) == {"authless_id": ["anon-before"], "store_id": ["1001"]}
    assert call.request.headers["authorization"] == "user_id demo-user"
    assert call.request.headers["supplier-token"] == "demo-retailer-token"
    assert call.request.headers["language-id"] == "en"
    assert call.request.headers["session-id"] == "sess-2"
    assert "authless-id" not in call.request.headers
    assert call.request.headers["idempotency-key"]


def test_merge_needs_a_logged_in_user():
    with pytest.raises(ValueError):
        client().merge_authless_basket(ANONYMOUS, "anon-1", store_id="1001")  # no HTTP mock: nothing is sent


@pytest.mark.parametrize(
    "failure",
    [
        {"status": 401, "json": {"title": "Unauthorized"}},
        {"status": 403, "json": {"title": "Forbidden"}},
        {"status": 502, "body": ""},
        {"body": "not json"},
        {"json": ["a list"]},
        {"body": requests.exceptions.ReadTimeout("slow")},
    ],
)
@responses.activate
def test_merge_failure_is_none(failure, caplog):
    responses.get(f"{BASE}/v1/basket/merge-authless-basket", **failure)
    assert client().merge_authless_basket(CONNECTED, "anon-1", store_id="1001") is None
    assert any("prerender" in record.getMessage() for record in caplog.records)


# ---------------------------------------------------------------- planner (v2 only): faults


@pytest.mark.parametrize(
    ("failure", "status", "refused"),
    [
        ({"status": 400, "json": {"status": 400, "errors": {"query": {"mode": ["Must be one of..."]}}}}, 400, True),
        ({"status": 414, "body": ""}, 414, True),
        ({"status": 500, "json": {"status": 500, "title": "Internal Server Error"}}, 500, False),
        ({"status": 504, "body": "<html>gateway</html>"}, 504, False),
        ({"json": {"html": "<p>not a fragment</p>"}}, None, False),
        ({"body": "", "content_type": "text/html"}, None, False),
        ({"body": requests.exceptions.ReadTimeout("slow")}, None, False),
        ({"body": requests.exceptions.ConnectionError("refused")}, None, False),
    ],
)
@responses.activate
def test_a_planner_page_failure_says_why_and_never_raises(failure, status, refused):
    responses.get(f"{BASE}/v2/planner/current-menu", **failure)
    page = client().planner_page(ANONYMOUS, params={"mode": "x"})
    assert (page.html, page.status, page.refused) == ("", status, refused)
    assert page.names("query", "mode") is (status == 400)


@responses.activate
def test_a_refused_planner_page_is_logged_at_info(caplog):
    responses.get(f"{BASE}/v2/planner", status=400, json={"errors": {"query": {"store_id": ["Unknown store."]}}})
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        page = client().planner_page(CONNECTED, landing=True, params={"store_id": "9"})
    assert page.refused and page.names("query", "store_id") and not page.names("headers", "store_id")
    assert [r.levelname for r in caplog.records if "prerender" in r.getMessage()] == ["INFO"]


@pytest.mark.parametrize(
    "failure",
    [
        {"status": 400, "json": {"title": "Bad Request"}},
        {"status": 503, "body": ""},
        {"json": {"html": "<p>json</p>"}},
        {"body": requests.exceptions.ConnectTimeout("slow")},
    ],
)
@responses.activate
def test_a_planner_entry_failure_is_no_entry(failure):
    responses.get(f"{BASE}/v2/planner/entry", **failure)
    assert client().planner_entry(ANONYMOUS, store_id="1001") == ""


# ---------------------------------------------------------------- catalog pages


@responses.activate
def test_a_catalog_page_is_asked_with_the_visitors_headers_and_the_pages_query():
    responses.get(
        f"{BASE}/v1/catalog/favorites", body=" <svc-catalog page='favorites'></svc-catalog>\n", content_type="text/html"
    )
    page = client().page_fragment(
        CONNECTED, "/catalog/favorites", version="v1", params={"page": "2", "store_id": "1001"}
    )
    assert (page.html, page.status, page.refused, page.not_found) == (
        "<svc-catalog page='favorites'></svc-catalog>",
        None,
        False,
        False,
    )
    call = responses.calls[0]
    assert query_of(call) == {"page": ["2"], "store_id": ["1001"]}
    assert call.request.headers["authorization"] == "user_id demo-user"
    assert call.request.headers["supplier-token"] == "demo-retailer-token"


@pytest.mark.parametrize(("not_found", "level"), [(True, "INFO"), (False, "ERROR")])
@responses.activate
def test_a_404_of_a_page_that_names_what_does_not_exist_is_logged_at_info(caplog, not_found: bool, level: str):
    responses.get(f"{BASE}/v2/catalog/category", status=404, json={"status": 404, "title": "Not Found"})
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        page = client().page_fragment(
            ANONYMOUS, "/catalog/category", version="v2", params={"category_id": "x"}, not_found=not_found
        )
    assert (page.html, page.status, page.not_found, page.refused) == ("", 404, True, False)
    assert [r.levelname for r in caplog.records if "prerender" in r.getMessage()] == [level]

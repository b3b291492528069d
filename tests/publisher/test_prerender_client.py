"""Unit tests of the blog's prerender client: the headers and queries it sends, and that every failure is an
empty answer (never an exception). HTTP is faked with `responses`, except for the closed port."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from examples.publisher.prerender_client import PrerenderClient, fragment_headers, identity_headers
from examples.publisher.reader import Reader
from tests.conftest import closed_port

BASE = "http://prerender.test"
TOKEN = "demo-publisher-token"
READER = Reader(session_id="sess-1", authless_id="anon-1", language="fr")
CTA_URL = f"{BASE}/v1/no-supplier-add-to-cart-cta"
CTA = (
    '<svc-no-supplier-add-to-cart-cta recipe-id="3" guests="4"><button>Acheter</button>'
    "</svc-no-supplier-add-to-cart-cta>"
)


def client(**kwargs) -> PrerenderClient:
    return PrerenderClient(BASE, TOKEN, **kwargs)


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


def test_fragment_headers_are_a_logged_out_readers():
    headers = fragment_headers(READER, supplier_token=TOKEN, request_id="req-1")
    assert headers == {
        "supplier-token": TOKEN,
        "language-id": "fr",
        "session-id": "sess-1",
        "authless-id": "anon-1",
        "x-request-id": "req-1",
    }
    assert "authorization" not in headers


def test_a_reader_without_an_authless_id_gets_no_fragment():
    with pytest.raises(ValueError):
        fragment_headers(Reader(session_id="s", authless_id=None, language="fr"), supplier_token=TOKEN)


def test_identity_headers_have_no_identity():
    assert identity_headers(language="fr", session_id="s", supplier_token=TOKEN) == {
        "supplier-token": TOKEN,
        "language-id": "fr",
        "session-id": "s",
    }


@responses.activate
def test_the_button_is_asked_for_the_recipe_and_its_guests_with_the_readers_headers():
    responses.get(CTA_URL, body=f" {CTA}\n", content_type="text/html; charset=utf-8")
    assert client().add_to_cart_cta(READER, "pub-quiche-lorraine", guests=6) == CTA
    (call,) = responses.calls
    assert query_of(call) == {"recipe_id": ["pub-quiche-lorraine"], "guests": ["6"]}
    for name, value in fragment_headers(READER, supplier_token=TOKEN).items():
        assert call.request.headers[name] == value


@responses.activate
def test_a_button_without_a_charset_is_read_as_utf8():
    responses.get(CTA_URL, body="<b>Acheter les ingrédients</b>".encode(), content_type="text/html")
    assert client().add_to_cart_cta(READER, "pub-crepes", guests=6) == "<b>Acheter les ingrédients</b>"


@pytest.mark.parametrize(
    "answer",
    [
        {"body": "", "content_type": "text/html"},  # a recipe prerender does not know
        {"status": 404, "json": {"title": "Not Found"}},  # a prerender without the route
        {"status": 400, "json": {"title": "Bad Request"}},
        {"status": 500, "body": "boom"},
        {"status": 503, "body": ""},
        {"body": '{"html": "<b>"}', "content_type": "application/json"},  # not a fragment
        {"body": requests.exceptions.ConnectTimeout("slow")},
        {"body": requests.exceptions.ReadTimeout("slow")},
        {"body": requests.exceptions.ConnectionError("refused")},
    ],
)
@responses.activate
def test_no_button_on_any_failure(answer, caplog):
    responses.get(CTA_URL, **answer)
    with caplog.at_level(logging.WARNING):
        assert client().add_to_cart_cta(READER, "pub-crepes", guests=6) == ""


@responses.activate
def test_the_authless_id_is_asked_without_identity():
    responses.get(f"{BASE}/v1/generate-authless-token", json={"authless_id": "Yx3-abc_DEF"})
    assert client().generate_authless_id(language="fr", session_id="sess-9", request_id="r") == "Yx3-abc_DEF"
    headers = responses.calls[0].request.headers
    assert (headers["supplier-token"], headers["language-id"], headers["session-id"]) == (TOKEN, "fr", "sess-9")
    assert "authless-id" not in headers and "authorization" not in headers


@pytest.mark.parametrize(
    "answer",
    [
        {"status": 401, "json": {"title": "Unauthorized"}},
        {"status": 500, "body": "boom"},
        {"json": {"id": "x"}},
        {"json": {"authless_id": ""}},
        {"json": {"authless_id": 42}},
        {"body": "not json"},
        {"body": requests.exceptions.ConnectionError("refused")},
    ],
)
@responses.activate
def test_no_authless_id_on_any_failure(answer):
    responses.get(f"{BASE}/v1/generate-authless-token", **answer)
    assert client().generate_authless_id(language="fr", session_id="s") is None


@responses.activate
def test_styles_are_kept_for_their_time_to_live():
    now = [100.0]
    responses.get(f"{BASE}/v1/styles/base", json={"links": ["x"], "html": '<link rel="stylesheet" href="x">'})
    prerender = client(styles_ttl=60.0, clock=lambda: now[0])
    assert prerender.styles(READER, "base") == '<link rel="stylesheet" href="x">'
    assert prerender.styles(READER, "base") == '<link rel="stylesheet" href="x">'
    assert len(responses.calls) == 1
    assert responses.calls[0].request.headers["authless-id"] == "anon-1"
    now[0] += 61
    prerender.styles(READER, "base")
    assert len(responses.calls) == 2


@pytest.mark.parametrize("answer", [{"status": 500, "body": ""}, {"json": {"links": []}}, {"body": "<link>"}])
@responses.activate
def test_failed_styles_are_empty_and_not_kept(answer):
    responses.get(f"{BASE}/v1/styles/recipe-card", **answer)
    prerender = client()
    assert prerender.styles(READER, "recipe-card") == ""
    assert prerender.styles(READER, "recipe-card") == ""
    assert len(responses.calls) == 2


def test_a_refused_connection_is_an_empty_answer():
    prerender = PrerenderClient(f"http://127.0.0.1:{closed_port()}", TOKEN)
    assert prerender.generate_authless_id(language="fr", session_id="s") is None
    assert prerender.add_to_cart_cta(READER, "pub-crepes", guests=6) == ""
    assert prerender.styles(READER, "base") == ""


def test_timeouts_are_short():
    assert client().timeout == (0.5, 3.0)

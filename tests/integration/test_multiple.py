"""POST /{v}/recipe-card/multiple against the real coreapi."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from prerender import create_app
from prerender.gateway import get_upstream
from tests.conftest import closed_port
from tests.faulty_upstream import status

from .conftest import get_card, headers, record_upstream_calls


def product_pairs(upstream, count: int) -> list[list[str]]:
    pairs = []
    for recipe in upstream.all_recipes()[:count]:
        detail = upstream.recipe(recipe["id"])
        ids = [i["products"][0]["id"] for i in detail["ingredients"] if i["products"]]
        pairs.append(ids[:2])
    return pairs


def post(client, body, query=None, hdrs=None):
    return client.post("/v1/recipe-card/multiple", json=body, query_string=query or {}, headers=hdrs or headers())


def test_sorted_by_position_and_positions_kept(client, upstream):
    pairs = product_pairs(upstream, 4)
    positions = [12, 3, 40, 7]
    body = {"contexts": [{"productIds": p, "position": n} for p, n in zip(pairs, positions, strict=True)]}
    data = post(client, body, {"store_id": "1001"}).get_json()["data"]
    assert [item["position"] for item in data] == sorted(positions)
    assert all(BeautifulSoup(item["html"], "html5lib").find("svc-recipe-card") for item in data)


@pytest.mark.usefixtures("one_credential_step")
def test_html_is_the_single_route_html(client, upstream):
    pair = product_pairs(upstream, 1)[0]
    body = {"contexts": [{"productIds": pair, "position": 1}], "display_variant": 2}
    multiple = post(client, body, {"store_id": "1001"}).get_json()["data"][0]["html"]
    single = get_card(client, surrounding_products_ids=json.dumps(pair), store_id="1001", display_variant="2").get_data(
        as_text=True
    )
    assert multiple == single


@pytest.mark.usefixtures("one_credential_step")
def test_numeric_product_ids_are_read_as_their_digits(client, upstream):
    """A customer's JSON may carry numeric product ids as numbers, as the single route's query may: the same cards."""
    pairs = product_pairs(upstream, 2)
    assert all(pair[0].isdigit() and pair[1].isdigit() for pair in pairs)
    as_strings = {"contexts": [{"productIds": pair, "position": n} for n, pair in enumerate(pairs)]}
    as_numbers = {"contexts": [{"productIds": [int(i) for i in pair], "position": n} for n, pair in enumerate(pairs)]}
    expected = post(client, as_strings, {"store_id": "1001"}).get_json()["data"]
    assert all(item["html"] for item in expected)
    assert post(client, as_numbers, {"store_id": "1001"}).get_json()["data"] == expected


def test_unmatched_context_keeps_its_position_with_empty_html(client, upstream):
    body = {
        "contexts": [
            {"productIds": ["nope-1", "nope-2"], "position": 5},
            {"productIds": product_pairs(upstream, 1)[0], "position": 9},
        ]
    }
    data = post(client, body).get_json()["data"]
    assert data[0] == {"html": "", "position": 5}
    assert data[1]["html"]


def test_fixed_number_of_upstream_calls_whatever_the_contexts(app, client, upstream, monkeypatch):
    pairs = product_pairs(upstream, 24)
    calls = record_upstream_calls(app, monkeypatch)
    counts = []
    for size in (2, 24):
        with app.app_context():  # start each size with a cold cache
            get_upstream().recipes.cache.clear()
        calls.clear()
        body = {"contexts": [{"productIds": pairs[i], "position": i} for i in range(size)]}
        data = post(client, body, {"store_id": "1001"}).get_json()["data"]
        assert sum(1 for item in data if item["html"]) >= size // 2  # real cards, not a failed batch
        counts.append(len(calls))
    assert counts[0] == counts[1] <= 4  # supplier, suggestions, recipes batch, likes


def test_unknown_store_is_a_400(client, upstream):
    body = {"contexts": [{"productIds": product_pairs(upstream, 1)[0], "position": 1}], "store_id": "424242"}
    assert post(client, body).status_code == 400


def test_options_from_the_body(client, upstream):
    body = {
        "contexts": [{"productIds": product_pairs(upstream, 1)[0], "position": 1}],
        "orientation": "horizontal",
        "serves": 3,
        "display_variant": 3,
    }
    html = post(client, body).get_json()["data"][0]["html"]
    card = BeautifulSoup(html, "html5lib").find("svc-recipe-card")
    assert (card["orientation"], card["guests"], card["display-variant"]) == ("horizontal", "3", "3")


def test_store_error_is_reported_where_store_id_was(client, upstream):
    body = {"contexts": [{"productIds": product_pairs(upstream, 1)[0], "position": 1}]}
    in_query = post(client, body, {"store_id": "424242"}).get_json()["errors"]
    in_body = post(client, {**body, "store_id": "424242"}).get_json()["errors"]
    assert "store_id" in in_query["query"] and "store_id" in in_body["json"]


def test_personalization_disabled_cards_have_no_like_and_no_cta(client, upstream):
    body = {"contexts": [{"productIds": p, "position": i} for i, p in enumerate(product_pairs(upstream, 3))]}
    data = post(client, body, {"store_id": "1001"}, hdrs=headers(token="demo-nopers-token")).get_json()["data"]
    cards = [BeautifulSoup(item["html"], "html5lib") for item in data if item["html"]]
    assert cards
    assert all(not c.find(class_="svc-like-button") and not c.find(class_="svc-recipe-card-cta") for c in cards)


def test_blank_filters_filter_nothing(client, upstream):
    """`"keyword": ""` and `"categoryId": ""` are a customer's form with no filter chosen: the cards are those
    of a body without them, not a 400."""

    def recipes(answer) -> list[str | None]:
        assert answer.status_code == 200, answer.get_json()
        cards = [BeautifulSoup(item["html"], "html5lib").find("svc-recipe-card") for item in answer.get_json()["data"]]
        return [card["recipe-id"] if card else None for card in cards]

    body = {"contexts": [{"productIds": pair, "position": n} for n, pair in enumerate(product_pairs(upstream, 3))]}
    unfiltered = recipes(post(client, body, {"store_id": "1001"}))
    assert any(unfiltered)
    for blank in ({"keyword": "", "categoryId": ""}, {"keyword": "   ", "categoryId": None}):
        assert recipes(post(client, {**body, **blank}, {"store_id": "1001"})) == unfiltered, blank


@pytest.mark.usefixtures("one_credential_step")
def test_an_empty_or_null_store_id_is_no_store(client, upstream):
    """The specification's missing store (no error, no price), however a customer's code writes "none": an empty
    query parameter, `""` or `null` in the body; beside a store given in the other place, the store."""

    def htmls(answer) -> list[str]:
        assert answer.status_code == 200, answer.get_json()
        return [item["html"] for item in answer.get_json()["data"]]

    body = {"contexts": [{"productIds": pair, "position": n} for n, pair in enumerate(product_pairs(upstream, 2))]}
    without = htmls(post(client, body))
    assert any(without) and "svc-recipe-pricing" not in "".join(without)
    assert htmls(post(client, body, {"store_id": ""})) == without
    assert htmls(post(client, {**body, "store_id": ""})) == without
    assert htmls(post(client, {**body, "store_id": None})) == without
    priced = htmls(post(client, body, {"store_id": "1001"}))
    assert "svc-recipe-pricing" in "".join(priced)
    assert htmls(post(client, {**body, "store_id": None}, {"store_id": "1001"})) == priced


@pytest.mark.usefixtures("one_credential_step")
def test_null_or_blank_options_are_the_options_left_out(client, upstream):
    """A serializer writes `"serves": null` for a value it does not have, a template `?display_variant=`: the cards
    of the request without them, not a 400 that takes every card of the page."""

    def htmls(answer) -> list[str]:
        assert answer.status_code == 200, answer.get_json()
        return [item["html"] for item in answer.get_json()["data"]]

    body = {"contexts": [{"productIds": pair, "position": n} for n, pair in enumerate(product_pairs(upstream, 2))]}
    without = htmls(post(client, body, {"store_id": "1001"}))
    assert any(without)
    options = ("display_variant", "orientation", "serves", "above_fold")
    assert htmls(post(client, {**body, **dict.fromkeys(options)}, {"store_id": "1001"})) == without
    assert htmls(post(client, body, {"store_id": "1001", **dict.fromkeys(options, "")})) == without


def test_cards_the_upstream_failed_are_empty_and_marked_degraded(app_config):
    """As every fragment route (tests/integration/test_http_caching.py): the outage's empty cards say so and no
    cache keeps them."""
    client = create_app({**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}"}).test_client()
    answer = post(client, {"contexts": [{"productIds": ["1", "2"], "position": 1}]}, {"store_id": "1001"})
    assert answer.status_code == 200 and answer.get_json()["data"] == [{"html": "", "position": 1}]
    assert answer.headers["X-Degraded"] == "upstream"
    assert answer.headers["Cache-Control"] == "private, no-store"


def test_cards_made_without_their_supplier_are_marked_degraded(app_config, proxy):
    """As the fragment routes: the supplier-token could not be checked, so the cards lack its features."""
    client = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    proxy.faults["/api/v1/suppliers/me"] = status(503)
    answer = post(client, {"contexts": [{"productIds": ["1", "2"], "position": 1}]}, {"store_id": "1001"})
    assert answer.status_code == 200
    assert answer.headers["X-Degraded"] == "upstream"

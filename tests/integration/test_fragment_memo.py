"""The rendered-fragment memo gives exactly the HTML a fresh rendering gives."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from werkzeug.http import generate_etag

from prerender import create_app
from prerender.web.fragment_response import ETAG_MEMO_MAX_CHARS, remembered_etag

from .conftest import get_card, headers


@pytest.mark.usefixtures("one_credential_step")
@pytest.mark.parametrize(
    "query",
    [
        {"recipe_id": "1", "store_id": "1001"},
        {"recipe_id": "2", "store_id": "1001", "serves": "6", "display_variant": "2"},
        {"recipe_id": "3", "orientation": "horizontal"},
        {"surrounding_products_ids": json.dumps(["100001", "100002"]), "store_id": "1001"},
    ],
)
@pytest.mark.parametrize(
    "hdrs",
    [headers(), headers(user=None), headers(token="demo-nopers-token"), headers(language="en")],
    ids=["user", "anonymous", "nopers", "english"],
)
def test_memoized_cards_equal_fresh_ones(app_config, query, hdrs):
    memoized, fresh = create_app(app_config), create_app({**app_config, "FRAGMENT_MEMO_SIZE": 0})
    first = get_card(memoized.test_client(), hdrs=hdrs, **query).get_data(as_text=True)
    again = get_card(memoized.test_client(), hdrs=hdrs, **query).get_data(as_text=True)
    assert first and first == again == get_card(fresh.test_client(), hdrs=hdrs, **query).get_data(as_text=True)
    # Its ETag is remembered too (prerender/web/fragment_response.py): a card, its credential included, is within
    # the ETag memo's size.
    assert len(first) <= ETAG_MEMO_MAX_CHARS
    assert len(memoized.extensions["prerender.rendering.fragments"]) == 1
    assert len(fresh.extensions["prerender.rendering.fragments"]) == 0


@pytest.mark.parametrize(
    "hdrs",
    [headers(token=None), headers(token="demo-nopers-token")],
    ids=["private-without-credential", "public"],
)
def test_a_card_etag_is_the_hash_of_its_body(client, hdrs):
    """The card route sets its ETag from a memo (fragments.fragment_etag): it must be werkzeug's own. (A card
    without the shopper's credential element: with one, the ETag also covers the element, see below.)"""
    for _ in range(2):
        response = get_card(client, hdrs=hdrs, recipe_id="4", store_id="1001")
        assert BeautifulSoup(response.get_data(as_text=True), "html.parser").find("svc-shopper") is None
        assert response.headers["ETag"] == f'"{generate_etag(response.get_data())}"'
        again = get_card(
            client, hdrs={**hdrs, "If-None-Match": response.headers["ETag"]}, recipe_id="4", store_id="1001"
        )
        assert again.status_code == 304


@pytest.mark.usefixtures("one_credential_step")
def test_a_card_with_the_shoppers_credential_revalidates_from_the_memo(client):
    for _ in range(2):
        response = get_card(client, recipe_id="4", store_id="1001")
        assert BeautifulSoup(response.get_data(as_text=True), "html.parser").find("svc-shopper") is not None
        again = get_card(
            client, hdrs={**headers(), "If-None-Match": response.headers["ETag"]}, recipe_id="4", store_id="1001"
        )
        assert again.status_code == 304


def test_a_page_is_hashed_each_time_and_never_kept_alive_by_the_etag_memo(client):
    """A catalog page (about 250 KB, different for nearly every request: here by its analytics path) gets
    werkzeug's ETag, but the ETag memo keeps no copy of it: kept, a few thousand of them took a worker to several
    hundred megabytes. A card is still remembered."""
    for i in range(3):
        kept = remembered_etag.cache_info().currsize
        page = client.get(f"/v2/catalog?store_id=1001&analytics_path=/page-{i}", headers=headers())
        assert page.status_code == 200 and len(page.get_data(as_text=True)) > ETAG_MEMO_MAX_CHARS
        assert page.headers["ETag"].strip('"') != ""
        assert remembered_etag.cache_info().currsize == kept
    card = get_card(client, hdrs=headers(token=None), recipe_id="7", store_id="1001")
    assert card.headers["ETag"] == f'"{generate_etag(card.get_data())}"'
    hits = remembered_etag.cache_info().hits
    assert remembered_etag(card.get_data(as_text=True)) == generate_etag(card.get_data())
    assert remembered_etag.cache_info().hits == hits + 1  # the card's was remembered

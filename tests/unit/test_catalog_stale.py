"""Catalog pages while the upstream fails: the last good page, per shopper and query (stale-if-error), so a shopper
sees yesterday's catalog rather than "unavailable". HTTP-level fakes (fault injection)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
import responses
from flask import Flask
from flask_caching import Cache

from prerender.gateway import CallerIdentity, CatalogGateway, RecipeQuery, UpstreamStatusError, UpstreamUnavailable
from prerender.gateway.read_cache import ReadCache
from tests.unit.guards import upstream_http

BASE = "http://upstream.test"
PAGES = f"{BASE}/api/v1/recipes"
PAGE = {"data": [{"id": "3", "type": "dessert"}, {"id": "7", "type": "starter"}], "page": 1, "per_page": 20, "total": 2}


def identity(user: str) -> CallerIdentity:
    return CallerIdentity(
        authorization=f"user_id {user}",
        supplier_token="tok",
        supplier_id="1",
        language="fr",
        session_id="s",
        profiling=True,
        request_id="r",
    )


@pytest.fixture
def catalog(app: Flask) -> Iterator[CatalogGateway]:
    with app.app_context():
        http = upstream_http(BASE)
        cache = ReadCache(cache=Cache(app, config={"CACHE_TYPE": "SimpleCache"}))
        yield CatalogGateway(http=http, cache=cache, ttl=60, stale_ttl=3600)


@responses.activate
@pytest.mark.parametrize("failure", [{"status": 503}, {"body": requests.exceptions.ConnectionError("refused")}])
def test_a_page_seen_before_is_served_while_the_upstream_fails(catalog, failure):
    responses.get(PAGES, json=PAGE)
    query = RecipeQuery(per_page=20, store_id="1001", types=("dessert", "starter"))
    assert [r.id for r in catalog.recipe_page(identity("u-1"), query).items] == ["3", "7"]
    responses.replace(responses.GET, PAGES, **failure)
    assert [r.id for r in catalog.recipe_page(identity("u-1"), query).items] == ["3", "7"]


@responses.activate
def test_the_stale_page_is_the_shoppers_own_and_the_querys_own(catalog):
    responses.get(PAGES, json=PAGE)
    catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20, store_id="1001"))
    responses.replace(responses.GET, PAGES, status=503)
    with pytest.raises(UpstreamStatusError):  # another shopper: their likes, preferences
        catalog.recipe_page(identity("u-2"), RecipeQuery(per_page=20, store_id="1001"))
    with pytest.raises(UpstreamStatusError):
        catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20, store_id="1002"))  # another query


@responses.activate
def test_a_refusal_is_not_hidden_behind_a_stale_page(catalog):
    responses.get(PAGES, json=PAGE)
    catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20))
    responses.replace(responses.GET, PAGES, status=422, json={"status": 422, "detail": "no"})
    with pytest.raises(UpstreamStatusError):
        catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20))


@responses.activate
def test_without_a_stale_page_the_failure_is_raised(catalog):
    responses.get(PAGES, body=requests.exceptions.ConnectionError("refused"))
    with pytest.raises(UpstreamUnavailable):
        catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20, page=2))


@responses.activate
def test_a_free_text_search_keeps_no_stale_page(catalog):
    """Any caller could keep a shared cache entry a day with each new text: a search is "unavailable" during an
    outage instead."""
    responses.get(PAGES, json=PAGE)
    catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20, search="tarte"))
    responses.replace(responses.GET, PAGES, status=503)
    with pytest.raises(UpstreamStatusError):
        catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20, search="tarte"))


@responses.activate
def test_a_page_found_empty_drops_its_older_stale_copy(catalog):
    """The shopper unliked everything (an empty favorites page): the outage after it does not bring the old
    page back."""
    responses.get(PAGES, json=PAGE)
    catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20))
    responses.replace(responses.GET, PAGES, json={**PAGE, "data": [], "total": 0})
    assert catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20)).items == ()
    responses.replace(responses.GET, PAGES, status=503)
    with pytest.raises(UpstreamStatusError):
        catalog.recipe_page(identity("u-1"), RecipeQuery(per_page=20))

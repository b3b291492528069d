"""Lists longer than their routes' page caps, against a live coreapi holding thousands of recipes: the catalog's
lists take MAX_CATALOG_PAGE pages and the planner's panel MAX_PANEL_PAGE (prerender/schemas/catalog.py,
prerender/schemas/menus.py). The last page a shopper may reach offers no "more" (the next page would be a 400),
and the catalog's says how many its pages list and to narrow the list."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup

from prerender import create_app
from prerender.rendering.current_menu import PANEL_SIZE
from prerender.schemas.catalog import MAX_CATALOG_PAGE
from prerender.schemas.menus import MAX_PANEL_PAGE
from tests.live import CROWD_RECIPES, Stack, crowded_coreapi

from .conftest import browser_headers, headers


@pytest.fixture(scope="module")
def crowded_coreapi_url(stack: Stack) -> Iterator[str]:
    with crowded_coreapi(stack) as url:
        yield url


@pytest.fixture
def crowded(app_config: dict, crowded_coreapi_url: str):
    return create_app({**app_config, "UPSTREAM_URL": crowded_coreapi_url}).test_client()


def test_the_catalogs_last_reachable_page_offers_no_more_and_says_how_many_it_lists(crowded) -> None:
    query = {"all_recipes": "true", "store_id": "1001"}
    before = crowded.get("/v2/catalog/list", query_string={**query, "page": MAX_CATALOG_PAGE - 1}, headers=headers())
    last = crowded.get("/v2/catalog/list", query_string={**query, "page": MAX_CATALOG_PAGE}, headers=headers())
    assert before.status_code == last.status_code == 200
    before_page = BeautifulSoup(before.get_data(as_text=True), "html.parser")
    last_page = BeautifulSoup(last.get_data(as_text=True), "html.parser")
    # The page before the cap links the last one; the last links none (page 101 is a 400)...
    assert f"page={MAX_CATALOG_PAGE}" in str(before_page.select_one("a[rel=next]")["href"])
    assert before_page.select("[data-role=listed-at-most]") == []
    assert last_page.select("a[rel=next]") == [] and last_page.select("[data-action=load-more]") == []
    assert (
        crowded.get(
            "/v2/catalog/list", query_string={**query, "page": MAX_CATALOG_PAGE + 1}, headers=headers()
        ).status_code
        == 400
    )
    # ... and says how many the pages list, and what to do for the others.
    (note,) = last_page.select("p.svc-catalog__listed-at-most[data-role=listed-at-most]")
    assert " ".join(note.get_text(" ", strip=True).split()) == (
        "Seules les 2 000 premières recettes sont listées ici : "
        "précisez la recherche ou choisissez un type pour trouver les autres."
    )
    # Its previous link still works; its cards are there.
    assert last_page.select("a[rel=prev]") and last_page.select("svc-recipe-card")


def test_a_narrowed_list_under_the_cap_lists_everything_without_the_sentence(crowded) -> None:
    # "Gratin 2049" alone: one page, no "more", no sentence.
    answer = crowded.get(
        "/v2/catalog/list", query_string={"search": "gratin 2049", "store_id": "1001"}, headers=headers()
    )
    page = BeautifulSoup(answer.get_data(as_text=True), "html.parser")
    assert len(page.select("svc-recipe-card")) == 1
    assert page.select("[data-role=listed-at-most]") == [] and page.select("a[rel=next]") == []


def test_the_planner_panels_last_reachable_page_has_no_more(crowded) -> None:
    query = {"recipe_type_id": "main-dish", "store_id": "1001"}
    hdrs = browser_headers(crowded)
    before = crowded.get("/v2/planner/recipes", query_string={**query, "page": MAX_PANEL_PAGE - 1}, headers=hdrs)
    last = crowded.get("/v2/planner/recipes", query_string={**query, "page": MAX_PANEL_PAGE}, headers=hdrs)
    assert before.status_code == last.status_code == 200
    assert (before.headers["X-Has-More"], last.headers["X-Has-More"]) == ("true", "false")
    assert BeautifulSoup(last.get_data(as_text=True), "html.parser").select("li")  # the last page has its recipes
    assert (
        crowded.get("/v2/planner/recipes", query_string={**query, "page": MAX_PANEL_PAGE + 1}, headers=hdrs).status_code
        == 400
    )
    # The page form (without JavaScript) hides its "more" button there too.
    page = crowded.get("/v2/planner/current-menu", query_string={**query, "page": MAX_PANEL_PAGE}, headers=headers())
    assert page.status_code == 200
    (more,) = BeautifulSoup(page.get_data(as_text=True), "html.parser").select("button[data-page]")
    assert more.has_attr("hidden")
    assert PANEL_SIZE * MAX_PANEL_PAGE < CROWD_RECIPES

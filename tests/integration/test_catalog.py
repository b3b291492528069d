"""The catalog pages against the real coreapi: header, home, category and list (GET /{v}/catalog...), every
query parameter and its bad values, the links from the supplier's routing, pagination without JavaScript, the
completion filter at store 1002, planner mode, and the shopper's preferences applied and shown."""

from __future__ import annotations

import itertools
import logging
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag

from prerender import create_app
from tests.conftest import closed_port
from tests.faulty_upstream import FaultyUpstream, status
from tests.problems import names

from .conftest import NOPERS, browser_headers, headers

SHOP = "http://127.0.0.1:8080"
_users = itertools.count()


@pytest.fixture
def user() -> str:
    return f"catalog-user-{next(_users)}-{uuid.uuid4().hex[:6]}"


def page(client, path: str, *, hdrs: dict | None = None, **query):
    answer = client.get(path, query_string=query, headers=hdrs or headers())
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.mimetype == "text/html"
    return BeautifulSoup(answer.get_data(as_text=True), "html.parser")


def root_of(soup: BeautifulSoup) -> Tag:
    root = soup.find("svc-catalog")
    assert isinstance(root, Tag), soup
    return root


def card_ids(scope: Tag | BeautifulSoup) -> list[str]:
    return [str(card["recipe-id"]) for card in scope.find_all("svc-recipe-card")]


def problem(answer) -> dict:
    assert answer.mimetype == "application/problem+json", answer.get_data(as_text=True)
    return answer.get_json()


def unavailable_at_1002(upstream) -> set[str]:
    everywhere = {str(r["id"]) for r in upstream.get("/recipes", per_page=100)["data"]}
    at_store = {str(r["id"]) for r in upstream.get("/recipes", per_page=100, store_id="1002")["data"]}
    missing = everywhere - at_store
    assert missing, "the seed has recipes the completion filter hides at 1002"
    return missing


def search_form(root: Tag) -> Tag:
    """The search's GET form: in a <noscript> (no form of ours inside a host page's form), named by the search
    field and its button (templates/catalog/toolbar.html)."""
    field = root.find("input", attrs={"name": "search", "type": "search"})
    button = root.find("button", class_="svc-catalog__search-submit")
    form = root.find("form", id=field["form"])
    assert form is not None and button["form"] == field["form"] and button["type"] == "submit"
    assert form.parent.name == "noscript" and "svc-ds-form-holder" in form.parent["class"]
    return form


# --- header -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_header_links_the_customers_pages_from_its_routing(client, version):
    soup = page(client, f"/{version}/catalog/header")
    root = root_of(soup)
    assert root["page"] == "header"
    assert {"svc-ds-scope", "svc-catalog", "svc-catalog-home"} <= set(root["class"])
    search = root.find(class_="svc-catalog__search")
    assert search["role"] == "search" and search.find("form") is not None
    form = search_form(root)
    assert form["action"] == f"{SHOP}/idees/recherche" and form["method"] == "get"
    categories = root.select(".svc-catalog-home__categories a.svc-catalog-home__category")
    assert categories, "category shortcuts"
    first = urlsplit(categories[0]["href"])
    assert f"{first.scheme}://{first.netloc}{first.path}" == f"{SHOP}/idees/categorie"
    assert parse_qs(first.query)["category_id"] == [categories[0]["data-category-id"]]
    assert categories[-1]["href"] == f"{SHOP}/idees/recherche?all_recipes=true"
    favorites = root.find("a", attrs={"data-action": "favorites"})
    expected = f"{SHOP}/idees/favoris" if version == "v1" else f"{SHOP}/idees/mon-espace?tab=favorites"
    assert favorites["href"] == expected
    planner = root.find("a", attrs={"data-action": "planner"})
    if version == "v2":
        # Into the planner through its entry (on the catalog home), never straight to the current-menu page.
        assert planner["href"] == f"{SHOP}/idees#svc-catalog-home-planner-entry" and not planner.has_attr("hidden")
    else:  # v1 has no planner entry: the link waits for the page to name one (features.enableMealsPlanner)
        assert planner.has_attr("hidden") and not planner.has_attr("href")
    # A connected shopper of a supplier with personalization: the preferences button and its panel.
    button = root.find("button", attrs={"data-action": "preferences"})
    dialog = root.find("dialog", class_="svc-preferences")
    assert button is not None and dialog is not None and button["aria-controls"] == dialog["id"]
    assert soup.find("svc-shopper") is not None


def test_without_personalization_there_is_no_preferences_button(client):
    soup = page(client, "/v2/catalog/header", hdrs=headers(token=NOPERS))
    root = root_of(soup)
    assert root.find(attrs={"data-action": "preferences"}) is None
    assert root.find("dialog") is None
    assert root["personalization"] == "off"


def test_without_a_known_supplier_the_header_has_no_links_and_no_panel(client):
    soup = page(client, "/v2/catalog/header", hdrs=headers(token="unknown-token"))
    root = root_of(soup)
    assert root.find("a", attrs={"data-action": "favorites"}) is None
    assert root.find(attrs={"data-action": "preferences"}) is None
    assert "action" not in search_form(root).attrs


# --- home -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_home_shows_a_row_per_category_with_variant_1_cards(client, version):
    soup = page(client, f"/{version}/catalog", store_id="1001", max_recipes_per_category="3")
    root = root_of(soup)
    assert root["page"] == "home" and root["analytics-path"] == "/catalog/home"
    rows = root.select("section.svc-catalog__section[data-category-id]")
    assert len(rows) >= 5
    for row in rows:
        cards = row.select("ul.svc-catalog__carousel > li.svc-catalog__item > svc-recipe-card")
        assert 1 <= len(cards) <= 3
        for card in cards:
            assert card["display-variant"] == "1"
            assert card.find(class_="svc-recipe-card__badge") is None
            assert card.find(class_="svc-recipe-card__meta") is None  # display_infos defaults to false
        link = row.find("a", class_="svc-catalog__section-link")
        assert parse_qs(urlsplit(link["href"]).query)["category_id"] == [row["data-category-id"]]
        # Named with its row, as French writes a colon (no line may start with it, docs/decisions.md).
        name = row.select_one(".svc-catalog__section-title").get_text(strip=True)
        assert link.get_text() == f"Voir tout\u00a0: {name}"
        # The rows are the page's sections, at the level of the header's title and the planner entry's: their
        # cards' titles come under them (a row at h3 read as a part of the planner entry before it).
        assert row.select_one(".svc-catalog__section-header > .svc-catalog__section-title").name == "h2"
        assert {card.select_one(".svc-recipe-card__title").name for card in cards} == {"h3"}
    # The planner entry is a v2 component, where the toolbar's planner link leads.
    entry = root.find(class_="svc-catalog-home__planner-entry")
    assert (entry is not None) == (version == "v2")
    if entry is not None:
        assert entry["id"] == "svc-catalog-home-planner-entry"
        assert entry.find("svc-planner-entry") is not None
        planner = root.find("a", attrs={"data-action": "planner"})
        assert urlsplit(planner["href"]).fragment == entry["id"]


def test_the_home_cards_show_their_details_on_demand(client):
    soup = page(client, "/v2/catalog", store_id="1001", display_infos="true", display_recipe_variant="2")
    card = root_of(soup).find("svc-recipe-card")
    assert card.find(class_="svc-recipe-card__meta") is not None
    assert card["display-variant"] == "2" and card.find(class_="svc-recipe-card__badge") is not None


def test_a_recipe_in_several_rows_of_the_home_is_one_card_id(client):
    """A recipe of two categories is in two rows: its first card carries `svc-recipe-card-<id>`, the others no id,
    so that the page holds no id twice (the host's anchors and `getElementById` find one card)."""
    root = root_of(page(client, "/v2/catalog", store_id="1001", max_recipes_per_category="20"))
    cards = root.find_all("svc-recipe-card")
    recipes = [card["recipe-id"] for card in cards]
    assert len(recipes) > len(set(recipes)), "no recipe is in two rows: the test shows nothing"
    ids = [element["id"] for element in root.find_all(id=True)]
    assert len(ids) == len(set(ids))
    first = {}
    for card in cards:
        first.setdefault(card["recipe-id"], card)
    assert all(
        card.get("id") == (f"svc-recipe-card-{card['recipe-id']}" if first[card["recipe-id"]] is card else None)
        for card in cards
    )


def test_the_home_applies_the_completion_filter_at_1002(client, upstream):
    hidden = unavailable_at_1002(upstream)
    shown = set(card_ids(page(client, "/v2/catalog", store_id="1002", max_recipes_per_category="20")))
    assert shown and not shown & hidden


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"max_recipes_per_category": "0"}, "max_recipes_per_category"),
        ({"max_recipes_per_category": "21"}, "max_recipes_per_category"),
        ({"display_recipe_variant": "5"}, "display_recipe_variant"),
        ({"display_infos": "maybe"}, "display_infos"),
        ({"analytics_path": "https://evil.example/"}, "analytics_path"),
        ({"store_id": "../1001"}, "store_id"),
    ],
)
def test_bad_home_parameters_are_400_problems(client, query, field):
    answer = client.get("/v2/catalog", query_string=query, headers=headers())
    assert answer.status_code == 400
    assert names(problem(answer)["errors"]["query"], field)


def test_display_variant_4_is_v2_only(client):
    assert client.get("/v1/catalog?display_recipe_variant=4", headers=headers()).status_code == 400
    card = root_of(page(client, "/v2/catalog", display_recipe_variant="4")).find("svc-recipe-card")
    assert card["display-variant"] == "3"


def test_an_unknown_store_is_400(client):
    answer = client.get("/v2/catalog/list?store_id=999999", headers=headers())
    assert answer.status_code == 400


# --- category and list ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_category_lists_its_recipes_with_a_title_and_count(client, upstream, version):
    expected = upstream.get("/recipes", category="vegetarien", per_page=100, store_id="1001")
    soup = page(client, f"/{version}/catalog/category", category_id="vegetarien", store_id="1001")
    root = root_of(soup)
    assert {"svc-catalog", "svc-catalog-category"} <= set(root["class"])
    assert root["category-id"] == "vegetarien" and root["route"] == f"/{version}/catalog/category"
    assert root.find(class_="svc-catalog-category__title").get_text(strip=True) == "Végétarien"
    assert root.find(class_="svc-catalog-category__count").get_text(strip=True) == f"{expected['total']} recettes"
    ids = card_ids(root.find("ul", class_="svc-catalog__grid"))
    assert ids == [str(r["id"]) for r in expected["data"]][:20]
    assert root.find("a", class_="svc-catalog-category__back")["href"] == f"{SHOP}/idees"


def test_an_unknown_category_is_a_404_problem(client):
    answer = client.get("/v2/catalog/category?category_id=nope", headers=headers())
    assert answer.status_code == 404
    assert problem(answer)["status"] == 404


def test_a_category_needs_its_id(client):
    answer = client.get("/v2/catalog/category", headers=headers())
    assert answer.status_code == 400 and "category_id" in problem(answer)["errors"]["query"]


def test_pagination_works_with_links_and_pages_do_not_overlap(client, upstream):
    total = upstream.get("/recipes", per_page=1)["total"]
    assert total > 20
    first = root_of(page(client, "/v2/catalog/list", all_recipes="true", display_infos="true"))
    more = first.find("a", attrs={"data-action": "load-more"})
    assert more["href"] == "?all_recipes=true&display_infos=true&page=2" and more["rel"] == ["next"]
    assert first.find("a", rel="prev") is None
    second = root_of(page(client, "/v2/catalog/list", all_recipes="true", display_infos="true", page="2"))
    assert second.find("a", rel="prev")["href"] == "?all_recipes=true&display_infos=true"
    assert not set(card_ids(first)) & set(card_ids(second))
    assert len(card_ids(first)) == 20


def test_a_page_past_the_end_says_so_and_leads_back_to_the_last_page(client, upstream):
    """An old link or a hand-written `page` beyond the list: not "no recipe matches" with a "previous" to another
    empty page, but where the list ends and a link to its last page (a crawler walks back to the cards)."""
    total = upstream.get("/recipes", per_page=1)["total"]
    last = -(-total // 20)
    past = root_of(page(client, "/v2/catalog/list", all_recipes="true", page=str(last + 3)))
    assert card_ids(past) == []
    empty = past.find(attrs={"data-role": "empty"})
    assert not empty.has_attr("hidden")
    texts = [p.get_text(strip=True) for p in empty.find_all("p")]
    assert texts == ["Cette page est vide", f"La liste s'arrête à la page {last}."]
    back = past.find("a", rel="prev")
    assert back["href"] == f"?all_recipes=true&page={last}" and back.get_text(strip=True) == "Aller à la dernière page"
    assert past.find("a", rel="next") is None
    # The last page itself is a page of the list: its cards, and "previous" to the one before.
    own = root_of(page(client, "/v2/catalog/list", all_recipes="true", page=str(last)))
    assert card_ids(own) and own.find("a", rel="prev").get_text(strip=True) == "Recettes précédentes"
    # A search without any result stays "no recipe matches", whatever its page.
    nothing = root_of(page(client, "/v2/catalog/list", search="zzzzzz", page="2"))
    assert nothing.find(class_="svc-catalog__empty-title").get_text(strip=True) != "Cette page est vide"


def test_the_list_searches_and_says_so(client, upstream):
    expected = [str(r["id"]) for r in upstream.get("/recipes", q="tarte", per_page=20)["data"]]
    assert expected
    root = root_of(page(client, "/v2/catalog/list", search="  tarte  "))
    assert root.find(class_="svc-catalog-list__title").get_text(strip=True) == "Résultats pour «\u00a0tarte\u00a0»"
    assert card_ids(root) == expected
    assert root.find("input", attrs={"name": "search"})["value"] == "tarte"


def test_a_search_without_results_says_so(client):
    root = root_of(page(client, "/v2/catalog/list", search="zzzzzz"))
    assert root.find(attrs={"data-role": "empty"}) is not None
    assert root.find("ul", attrs={"data-role": "results"}).has_attr("hidden")


@pytest.mark.parametrize(
    ("path", "where"), [("/v2/catalog/list", {}), ("/v2/catalog/category", {"category_id": "classiques"})]
)
def test_recipe_types_filter_the_list_and_the_chips_toggle_them(client, path, where):
    root = root_of(page(client, path, recipe_type_id="dessert,drink", recipe_type_filter="true", **where))
    types = {li["data-recipe-type"] for li in root.select("ul.svc-catalog__grid > li")}
    assert types and types <= {"dessert", "drink"}
    chips = {a["data-recipe-type"]: a for a in root.select("a.svc-catalog-list__filter")}
    assert list(chips) == ["starter", "main-dish", "dessert", "drink"]
    assert chips["dessert"].get("aria-current") == "true" and "aria-current" not in chips["starter"].attrs
    assert parse_qs(urlsplit(chips["dessert"]["href"]).query)["recipe_type_id"] == ["drink"]
    assert parse_qs(urlsplit(chips["starter"]["href"]).query)["recipe_type_id"] == ["starter,dessert,drink"]


def test_one_set_of_types_has_one_url_whatever_order_it_was_chosen_in(client):
    """A crawler following the chips found six URLs for each list (types in click order): the page's links name
    the types in one order, the chips' and the pagination's alike."""

    def links(types: str) -> list[str]:
        root = root_of(page(client, "/v2/catalog/list", recipe_type_id=types, recipe_type_filter="true"))
        return [str(a["href"]) for a in root.select("a[href]")]

    canonical = links("starter,dessert")
    assert any("recipe_type_id=starter%2Cdessert" in href for href in canonical)
    assert links("dessert,starter") == canonical
    assert links("dessert,starter,dessert") == canonical


def test_without_recipe_type_filter_there_are_no_chips(client):
    assert (
        root_of(page(client, "/v2/catalog/list", recipe_type_id="dessert")).find(class_="svc-catalog-list__filter")
        is None
    )


def test_planner_mode_cards_offer_the_menu_instead_of_the_basket(client):
    root = root_of(page(client, "/v2/catalog/list", planner="true", recipe_type_id="main-dish"))
    cells = root.select("ul.svc-catalog__grid > li")
    assert cells
    for cell in cells:
        assert cell.find("button", attrs={"data-action": "add-to-menu"}) is not None
        assert cell.find(class_="svc-recipe-card-cta") is None and cell.find(class_="svc-like-button") is None
    plain = root_of(page(client, "/v2/catalog/list", recipe_type_id="main-dish"))
    assert plain.find(attrs={"data-action": "add-to-menu"}) is None
    assert plain.find(class_="svc-recipe-card-cta") is not None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"recipe_type_id": "soup"}, "recipe_type_id"),
        ({"planner": "perhaps"}, "planner"),
        ({"all_recipes": "2"}, "all_recipes"),
        ({"recipe_type_filter": "yes please"}, "recipe_type_filter"),
        ({"page": "0"}, "page"),
        ({"page": "1.5"}, "page"),
        ({"page": "101"}, "page"),
        ({"search": "x" * 101}, "search"),
    ],
)
def test_bad_list_parameters_are_400_problems(client, query, field):
    answer = client.get("/v2/catalog/list", query_string=query, headers=headers())
    assert answer.status_code == 400
    assert names(problem(answer)["errors"]["query"], field)


@pytest.mark.parametrize(
    ("path", "where"),
    [("/v2/catalog/list", {"all_recipes": "true"}), ("/v2/catalog/category", {"category_id": "classiques"})],
)
def test_lists_apply_the_completion_filter_at_1002(client, upstream, path, where):
    hidden = unavailable_at_1002(upstream)
    ids: set[str] = set()
    for number in (1, 2, 3, 4):
        ids |= set(card_ids(page(client, path, store_id="1002", page=str(number), **where)))
    assert ids and not ids & hidden


def test_the_browser_loads_the_next_page_with_its_credential(client):
    hdrs = browser_headers(client)
    answer = client.get("/v2/catalog/list?all_recipes=true&page=2", headers=hdrs)
    assert answer.status_code == 200
    assert card_ids(BeautifulSoup(answer.get_data(as_text=True), "html.parser"))


# --- preferences ------------------------------------------------------------------------------------------


def put_preferences(client, hdrs, **body):
    return client.put("/v2/preferences", json=body, headers=hdrs)


def test_preferences_are_kept_by_no_cache(client, upstream, user):
    """A diet can tell of a health condition: not in a browser's disk cache for the next person at the device."""
    hdrs = browser_headers(client, user=user)
    assert put_preferences(client, hdrs, diets=["sans-gluten"]).status_code == 200
    answer = client.get("/v2/preferences", headers=hdrs)
    assert answer.status_code == 200 and answer.get_json()["diets"] == ["sans-gluten"]
    assert answer.headers["Cache-Control"] == "private, no-store" and "ETag" not in answer.headers
    again = client.get("/v2/preferences", headers={**hdrs, "If-None-Match": '"anything"'})
    assert again.status_code == 200


def test_preferences_are_stored_per_shopper_and_change_the_lists(client, upstream, user):
    hdrs = browser_headers(client, user=user)
    assert client.get("/v2/preferences", headers=hdrs).get_json() == {
        "diets": [],
        "avoided_ingredients": [],
        "missing_equipment": [],
        "guests": None,
        "enabled": True,
    }
    everything = set(card_ids(page(client, "/v2/catalog/list", hdrs=headers(user=user), all_recipes="true")))
    saved = put_preferences(client, hdrs, diets=["vegetarien"], missing_equipment=["four"], guests=2)
    assert saved.status_code == 200, saved.get_json()
    assert saved.get_json()["diets"] == ["vegetarien"] and saved.get_json()["guests"] == 2

    root = root_of(page(client, "/v2/catalog/list", hdrs=headers(user=user)))
    vegetarian = {str(r["id"]) for r in upstream.get("/recipes", category="vegetarien", per_page=100)["data"]}
    shown = set(card_ids(root))
    assert shown and shown <= vegetarian
    # Shown as active filters, with the way out, and the default guests on the cards.
    labels = [chip.get_text(strip=True) for chip in root.select(".svc-catalog__active-filter")]
    assert labels == ["Végétarien", "Sans four"]
    assert root.find("a", class_="svc-catalog__active-filters-off")["href"] == "?all_recipes=true"
    assert {card["guests"] for card in root.find_all("svc-recipe-card")} == {"2"}
    # The panel comes back checked.
    dialog = root.find("dialog", class_="svc-preferences")
    assert dialog.find("input", attrs={"name": "diets", "value": "vegetarien"}).has_attr("checked")
    assert dialog.find("input", attrs={"name": "missing_equipment", "value": "four"}).has_attr("checked")
    assert dialog.find("select", attrs={"name": "guests"}).find("option", selected=True)["value"] == "2"
    # all_recipes: the whole catalog, preferences not applied.
    assert set(card_ids(page(client, "/v2/catalog/list", hdrs=headers(user=user), all_recipes="true"))) == everything
    # Another shopper is not affected.
    assert (
        set(card_ids(page(client, "/v2/catalog/list", hdrs=headers(user=user + "-other"), all_recipes="true")))
        == everything
    )

    removed = client.delete("/v2/preferences", headers=hdrs)
    assert removed.status_code == 204
    assert "Content-Type" not in removed.headers  # no content, so no type (Flask's default would say text/html)
    assert client.get("/v2/preferences", headers=hdrs).get_json()["diets"] == []


def test_preferences_change_the_suggested_cards(client, user, upstream):
    hdrs = browser_headers(client, user=user)
    put_preferences(client, hdrs, diets=["vegetarien"])
    vegetarian = {str(r["id"]) for r in upstream.get("/recipes", category="vegetarien", per_page=100)["data"]}
    home = root_of(page(client, "/v2/catalog", hdrs=headers(user=user), max_recipes_per_category="20"))
    assert set(card_ids(home)) <= vegetarian
    assert [c.get_text(strip=True) for c in home.select(".svc-catalog__active-filter")] == ["Végétarien"]


def test_authless_visitors_have_preferences_too(client):
    authless = f"catalog-visitor-{uuid.uuid4().hex[:8]}"
    hdrs = browser_headers(client, user=None, authless=authless)
    assert put_preferences(client, hdrs, avoided_ingredients=["ail"]).status_code == 200
    assert client.get("/v2/preferences", headers=hdrs).get_json()["avoided_ingredients"] == ["ail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"guests": 0}, "guests"),
        ({"guests": "3"}, "guests"),
        ({"diets": "vegetarien"}, "diets"),
        ({"colour": "red"}, "colour"),
        ({"avoided_ingredients": ["ok", "../x"]}, "avoided_ingredients"),
    ],
)
def test_bad_preferences_are_400(client, body, field):
    answer = put_preferences(client, browser_headers(client), **body)
    assert answer.status_code == 400
    assert names(problem(answer)["errors"]["json"], field)


def test_unknown_choices_are_refused_by_the_upstream(client):
    answer = put_preferences(client, browser_headers(client), diets=["carnivore"])
    assert answer.status_code == 400


def test_without_personalization_preferences_are_disabled(client):
    hdrs = browser_headers(client, token=NOPERS)
    assert client.get("/v2/preferences", headers=hdrs).get_json()["enabled"] is False
    answer = put_preferences(client, hdrs, diets=["vegetarien"])
    assert answer.status_code == 409 and problem(answer)["status"] == 409
    assert client.delete("/v2/preferences", headers=hdrs).status_code == 204
    # The document says so: personalization off is the replacement's 409, never the removal's.
    operations = client.get("/openapi.json").get_json()["paths"]["/v2/preferences"]
    refused = {method: operations[method]["responses"]["409"]["description"] for method in ("put", "delete")}
    assert "personalization" in refused["put"] and "personalization" not in refused["delete"]


# --- the upstream down ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/v2/catalog/header",
        "/v2/catalog",
        "/v2/catalog/list?search=tarte",
        "/v1/catalog/favorites",
        "/v2/catalog/my-space?tab=history",
        "/v2/catalog/my-space/basket-preview",
    ],
)
def test_an_upstream_outage_is_a_page_that_says_so_never_an_error(app_config, path):
    client = create_app(
        {**app_config, "UPSTREAM_URL": f"http://127.0.0.1:{closed_port()}", "UPSTREAM_RETRIES": 0}
    ).test_client()
    answer = client.get(path, headers=headers())
    assert answer.status_code == 200, answer.get_data(as_text=True)
    root = root_of(BeautifulSoup(answer.get_data(as_text=True), "html.parser"))
    assert "Traceback" not in answer.get_data(as_text=True)
    assert root.find("svc-recipe-card") is None
    # Said so to the customer's server and to whoever operates it, and kept by no cache (prerender/web/
    # fragment_response.py): the first request after the outage shows the recipes again.
    assert answer.headers["X-Degraded"] == "upstream"
    assert answer.headers["Cache-Control"] == "private, no-store" and "ETag" not in answer.headers


def test_a_home_whose_prices_fail_says_so_and_logs_it_once(app_config, coreapi_url, caplog):
    """The categories and their rows are read, the one batch of the rows' cards fails: the home says the recipes
    are unavailable, and the failure is in the log once, at ERROR, with the request's id."""
    with FaultyUpstream(coreapi_url, {"/api/v1/recipes/batch": status(503)}) as proxy:
        client = create_app({**app_config, "UPSTREAM_URL": proxy.url, "UPSTREAM_RETRIES": 0}).test_client()
        with caplog.at_level(logging.INFO):
            answer = client.get("/v2/catalog", query_string={"store_id": "1001"}, headers=headers())
        assert proxy.failed == ["/api/v1/recipes/batch"]
    root = root_of(BeautifulSoup(answer.get_data(as_text=True), "html.parser"))
    assert root.find("svc-recipe-card") is None
    assert root.find(attrs={"data-role": "failed"}).get_text(strip=True).startswith("Les recettes ne peuvent pas")
    assert answer.headers["X-Degraded"] == "upstream"
    (line,) = [record for record in caplog.records if record.name == "prerender.gateway.fallbacks"]
    assert line.levelno == logging.ERROR
    assert line.getMessage().startswith(f"catalog cards unavailable, request {answer.headers['X-Request-Id']}: ")


def test_a_failed_list_says_the_recipes_are_unavailable(app_config, monkeypatch):
    app = create_app(app_config)
    catalog = app.extensions["prerender.upstream"].catalog
    monkeypatch.setattr(catalog.http, "base_url", f"http://127.0.0.1:{closed_port()}")
    answer = app.test_client().get("/v2/catalog/list", query_string={"all_recipes": "true"}, headers=headers())
    root = root_of(BeautifulSoup(answer.get_data(as_text=True), "html.parser"))
    assert root.find(attrs={"data-role": "failed"}).get_text(strip=True).startswith("Les recettes ne peuvent pas")
    assert answer.headers["X-Degraded"] == "upstream"

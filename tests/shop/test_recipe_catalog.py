"""The demo shop's recipe section ("Idées", under `/idees`), against the live seeded stack (tests/live.py): each
page is prerender's catalog page in the shop's layout, asked with the page's own parameters, the visitor's store
and identity; an unknown category is the shop's 404 page, parameters prerender refuses the shop's notice (400),
and prerender failing the shop's "unavailable" block (503). The shop's own recipe sheets are at `/idees/fiches`.

prerender's faults are injected by a proxy in front of the live prerender (`faulty`, tests/shop/conftest.py)."""

from __future__ import annotations

import itertools
import json
import logging
import uuid
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask, Response
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from examples.shop.recipe_catalog import BASKET, CATEGORY, FAVORITES, HOME, MY_SPACE, PAGES, SEARCH, catalog_query
from examples.shop.visitor import AUTHLESS_COOKIE, STORE_COOKIE
from tests.demo_sites import shop_cookie_of

from .conftest import FaultyPrerender, problem_answer, soup_of, static_url

STORE = "1001"
OTHER_STORE = "1002"
CATEGORY_ID = "rapide"  # a category of coreapi's seed (categories.json)
# Each page: its address, prerender's page kind (the root's `page`), the page's own stylesheet among prerender's,
# the page's title (its h1).
PAGE_CASES = [
    ("/idees", "home", "catalog-home.css", "Idées recettes"),
    (f"/idees/categorie?category_id={CATEGORY_ID}", "category", "catalog-category.css", "Recettes par catégorie"),
    ("/idees/recherche", "list", "catalog-list.css", "Rechercher une recette"),
    ("/idees/favoris", "favorites", "catalog-favorites.css", "Mes recettes favorites"),
    ("/idees/mon-espace", "my-space", "my-space.css", "Favoris et historique"),
    ("/idees/panier", "basket-preview", "my-space.css", "Recettes du panier"),
]
PAGE_IDS = [case[1] for case in PAGE_CASES]
_users = itertools.count()


@pytest.fixture
def user_id() -> str:
    return f"shop-catalog-{next(_users)}-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------------------------------------ helpers


def catalog_of(soup: BeautifulSoup) -> Tag:
    """prerender's page: its root element, inside the page's main content."""
    element = soup.select_one("main#content [data-catalog-page] > svc-catalog")
    assert element is not None, "no <svc-catalog> in the page's main content"
    return element


def params_of(root: Tag) -> dict:
    """The page parameters prerender read (what its links and its "more" carry)."""
    return json.loads(root["data-params"])


def stylesheets(soup: BeautifulSoup) -> list[str]:
    return [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]


def credential_of(soup: BeautifulSoup) -> Tag:
    """The page's one shopper (every `<svc-shopper>` of the page names the same)."""
    elements = soup.find_all("svc-shopper")
    assert elements and len({(e["kind"], e["shopper-id"]) for e in elements}) == 1
    return elements[0]


def query_of(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


def problem_of(response, title: str) -> Tag:
    """The shop's message of a page without prerender's (a page of the shop's, never JSON nor a trace)."""
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "Traceback" not in html and "application/problem+json" not in html and '"errors"' not in html
    soup = BeautifulSoup(html, "html5lib")
    assert soup.find("svc-catalog") is None
    # The shop's page is all there: its h1, the header's login and store picker, the nav, the section's own nav.
    assert soup.select_one("main#content h1").get_text(strip=True) == title
    assert soup.select_one("form[data-login-form]") is not None and soup.select_one("#store-picker") is not None
    assert soup.select_one('nav.site-nav a[href="/idees"]')["aria-current"] == "page"
    assert [a["href"] for a in soup.select("main#content nav.section-nav a")] == [
        "/idees",
        "/idees/mon-espace",
        "/idees/panier",
        "/idees/fiches",
    ]
    section = soup.select_one("main#content [data-catalog-problem]")
    assert section is not None
    return section


# ------------------------------------------------------------------------------------ the pages, in the layout


@pytest.mark.parametrize(("path", "kind", "sheet", "title"), PAGE_CASES, ids=PAGE_IDS)
def test_each_page_is_prerenders_catalog_page_in_the_shops_layout(
    shop_client: FlaskClient, prerender_url: str, path: str, kind: str, sheet: str, title: str
):
    response = shop_client.get(path)
    assert response.headers["Cache-Control"] == "private, no-store"
    soup = soup_of(response)
    root = catalog_of(soup)
    assert root["page"] == kind and root["lang"] == "fr"
    assert root["api-version"] == ("v1" if kind == "favorites" else "v2")
    # The page's h1 (visually hidden) names the page; the fragment's titles are h2s.
    h1 = soup.find_all("h1")
    assert len(h1) == 1 and "visually-hidden" in h1[0]["class"] and h1[0].get_text(strip=True) == title
    assert soup.title.get_text(strip=True) == f"{title} \N{EN DASH} Demo Market"
    # prerender's stylesheets (base, then the page's), then the shop's.
    hrefs = stylesheets(soup)
    vendor = [href for href in hrefs if href.startswith(prerender_url)]
    assert vendor and vendor[0].endswith("/base.css")
    assert any(href.endswith(f"/{sheet}") for href in vendor), vendor
    assert hrefs[-1] == static_url("shop.css")
    # The fragment's own module scripts and the visitor's credential.
    scripts = [s.get("src", "") for s in soup.find_all("script")]
    assert any(src.endswith("/components/catalog.js") for src in scripts)
    assert any(src.endswith("/sdk/svc.js") for src in scripts)
    shopper = credential_of(soup)
    assert (shopper["kind"], shopper["shopper-id"]) == ("authless", shop_cookie_of(shop_client, AUTHLESS_COOKIE))
    # prerender's page sends its pageview itself (with its analytics path): no meta of the shop's on top.
    assert soup.select_one('meta[name="svc-analytics-path"]') is None
    assert root["analytics-path"]
    # "Idées" is the nav's current section.
    assert soup.select_one('nav.site-nav a[href="/idees"]')["aria-current"] == "page"
    assert soup.select_one("[data-catalog-problem]") is None


def test_the_pages_in_english(shop_client: FlaskClient):
    shop_client.post("/preferences", data={"language": "en"})
    soup = soup_of(shop_client.get("/idees/mon-espace"))
    assert catalog_of(soup)["lang"] == "en"
    assert soup.select_one("main#content h1").get_text(strip=True) == "Favorites and history"
    assert soup.select_one('[data-account-link="my-meals"]').get_text(strip=True) == "Recipes in the cart"


def test_the_nav_and_the_account_menu_lead_to_the_section(shop_client: FlaskClient):
    paths = [case[0] for case in PAGE_CASES] + ["/idees/fiches"]
    for path in ["/", "/cart", "/planner/current-menu", *paths]:
        soup = soup_of(shop_client.get(path))
        ideas = soup.select_one('nav.site-nav a[href="/idees"]')
        assert ideas is not None and ideas.get_text(strip=True) == "Idées recettes", path
        assert (ideas.get("aria-current") == "page") is path.startswith("/idees"), path
        links = {a["data-account-link"]: a for a in soup.select(".account a[data-account-link]")}
        assert {name: a["href"] for name, a in links.items()} == {
            "my-space": "/idees/mon-espace",
            "my-meals": "/idees/panier",
        }, path
        assert [a.get_text(strip=True) for a in links.values()] == ["Favoris et historique", "Recettes du panier"]
        current = [name for name, a in links.items() if a.get("aria-current") == "page"]
        assert current == {"/idees/mon-espace": ["my-space"], "/idees/panier": ["my-meals"]}.get(path, []), path
    # Logged in too.
    shop_client.post("/connexion")
    assert len(soup_of(shop_client.get("/")).select(".account a[data-account-link]")) == 2


def test_each_navigation_label_names_one_page_and_each_page_has_one_label(shop_client: FlaskClient):
    for language in ("fr", "en"):
        shop_client.post("/preferences", data={"language": language})
        soup = soup_of(shop_client.get("/idees"))
        links = soup.select(".account a[data-account-link], main#content nav.section-nav a")
        pages: dict[str, set[str]] = {}
        for a in links:
            pages.setdefault(urlsplit(a["href"]).path, set()).add(a.get_text(strip=True))
        labels = [label for names in pages.values() for label in names]
        assert all(len(names) == 1 for names in pages.values()), pages
        assert len(labels) == len(set(labels)) == 4, pages
        # The menu's own name is no page's, and the words the pages used to share are gone.
        toggle = soup.select_one(".account-menu__label").get_text(strip=True)
        assert toggle not in labels
        assert not {"Mes recettes", "Mes repas", "Mes recettes favorites", "My recipes", "My meals"} & {*labels, toggle}
        # prerender's own favorites link leads to the page the shop names after its tabs.
        favorites = catalog_of(soup).select_one("a[data-action=favorites]")
        if favorites is not None:
            assert urlsplit(favorites["href"]).path == "/idees/mon-espace"


def test_the_shops_own_sheets_moved_to_fiches(shop_client: FlaskClient):
    soup = soup_of(shop_client.get("/idees/fiches"))
    assert soup.select_one("main#content h1").get_text(strip=True) == "Nos fiches maison"
    assert soup.select("[data-recipe-card]") and soup.select_one("[data-events]") is not None
    assert soup.select_one("[data-planner-entry] > svc-planner-entry") is not None
    assert soup.select_one('meta[name="svc-analytics-path"]')["content"] == "/idees/fiches"
    assert soup.find("svc-catalog") is None
    assert soup.select_one('nav.section-nav a[href="/idees/fiches"]')["aria-current"] == "page"


# ------------------------------------------------------------------------------------ the forwarded parameters


def test_the_home_forwards_its_parameters(shop_client: FlaskClient):
    soup = soup_of(shop_client.get("/idees?max_recipes_per_category=2&display_recipe_variant=2&utm_source=mail"))
    rows = catalog_of(soup).select("section.svc-catalog__section[data-category-id]")
    assert rows
    assert all(1 <= len(row.select("svc-recipe-card")) <= 2 for row in rows)
    assert any(len(row.select("svc-recipe-card")) == 2 for row in rows)
    assert all(card["display-variant"] == "2" for card in soup.select("svc-catalog svc-recipe-card"))
    # Its category links lead to the shop's category page.
    links = [a["href"] for a in soup.select("svc-catalog a[data-category-id]")]
    assert links and all(urlsplit(href).path == "/idees/categorie" for href in links)


def test_the_category_page_forwards_its_parameters(shop_client: FlaskClient):
    query = f"category_id={CATEGORY_ID}&recipe_type_filter=true&recipe_type_id=dessert&display_infos=true&ref=x"
    root = catalog_of(soup_of(shop_client.get(f"/idees/categorie?{query}")))
    assert root["category-id"] == CATEGORY_ID
    params = params_of(root)
    assert (params["recipe_type_filter"], params["recipe_type_id"], params["display_infos"]) == (True, "dessert", True)
    chips = root.select("nav.svc-catalog-list__filters [data-recipe-type]")
    assert [chip["data-recipe-type"] for chip in chips if chip.get("aria-current") == "true"] == ["dessert"]
    assert all(item["data-recipe-type"] == "dessert" for item in root.select("[data-role=results] > li"))
    root = catalog_of(soup_of(shop_client.get(f"/idees/categorie?category_id={CATEGORY_ID}&planner=true&page=1")))
    assert params_of(root)["planner"] is True and "svc-catalog--planner" in root["class"]


def test_the_search_page_forwards_the_search(shop_client: FlaskClient):
    soup = soup_of(shop_client.get("/idees/recherche?search=tarte"))
    # The page's title names the search, as its heading does.
    assert soup.title.get_text() == "Rechercher une recette : tarte \u2013 Demo Market"
    root = catalog_of(soup)
    assert root["page"] == "list" and params_of(root)["search"] == "tarte"
    assert "tarte" in root.select_one("h2.svc-catalog-list__title").get_text()
    assert root.select_one("input[name=search]")["value"] == "tarte"
    titles = [title.get_text(strip=True) for title in root.select("svc-recipe-card .svc-recipe-card__title")]
    assert any("tarte" in title.lower() for title in titles), titles
    # The search form (for pages without scripts, in a <noscript>: the field names it) leads back to the shop's
    # search page.
    form = root.find("form", id=root.select_one("[role=search] input[name=search]")["form"])
    assert urlsplit(form["action"]).path == "/idees/recherche"


def test_the_search_page_shows_the_type_chips_unless_told_otherwise(shop_client: FlaskClient):
    root = catalog_of(soup_of(shop_client.get("/idees/recherche")))
    assert params_of(root)["recipe_type_filter"] is True
    assert root.select("nav.svc-catalog-list__filters [data-recipe-type]")
    root = catalog_of(soup_of(shop_client.get("/idees/recherche?recipe_type_filter=false&all_recipes=true&page=2")))
    params = params_of(root)
    assert (params["recipe_type_filter"], params["all_recipes"], params["page"]) == (False, True, 2)
    assert root.select_one("nav.svc-catalog-list__filters") is None
    root = catalog_of(soup_of(shop_client.get("/idees/recherche?recipe_type_id=drink&planner=true")))
    assert (params_of(root)["recipe_type_id"], params_of(root)["planner"]) == ("drink", True)
    assert all(item["data-recipe-type"] == "drink" for item in root.select("[data-role=results] > li"))


def test_the_favorites_page_forwards_the_page(shop_client: FlaskClient):
    root = catalog_of(soup_of(shop_client.get("/idees/favoris?page=2&search=ignored")))
    assert params_of(root)["page"] == 2 and "search" not in params_of(root)


def test_my_space_forwards_the_tab_and_the_history_style(shop_client: FlaskClient):
    root = catalog_of(soup_of(shop_client.get("/idees/mon-espace?tab=history&history_style=grid")))
    assert (root["tab"], root["history-style"]) == ("history", "grid")
    styles = root.select(".svc-my-space__history-style")
    assert [style.get_text(strip=True) for style in styles if style.get("aria-current") == "true"] == ["Grille"]
    assert root.select_one(".svc-my-space__tabs") is not None
    root = catalog_of(soup_of(shop_client.get("/idees/mon-espace?tab=history&show_tab_selector=false&page=1")))
    assert root["tab"] == "history" and root.select_one(".svc-my-space__tabs") is None
    assert catalog_of(soup_of(shop_client.get("/idees/mon-espace")))["tab"] == "favorites"


def test_the_basket_preview_has_the_tabs_and_forwards_its_parameters(shop_client: FlaskClient):
    root = catalog_of(soup_of(shop_client.get("/idees/panier")))
    tabs = root.select_one("nav.svc-my-space__tabs")
    assert tabs is not None  # the shop asks for them
    assert {urlsplit(a["href"]).path for a in tabs.select("a[data-tab]")} == {"/idees/mon-espace"}
    root = catalog_of(soup_of(shop_client.get("/idees/panier?show_tab_selector=false&title=Mes%20courses")))
    assert root.select_one("nav.svc-my-space__tabs") is None
    assert root.select_one(".svc-basket-preview__title").get_text(strip=True) == "Mes courses"
    root = catalog_of(soup_of(shop_client.get("/idees/panier?embed=true")))
    assert "svc-basket-preview--embed" in root["class"]


def test_only_the_pages_parameters_are_forwarded():
    args = MultiDict(
        [
            ("search", "tarte"),
            ("search", "quiche"),
            ("all_recipes", ""),
            ("recipe_type_id", "dessert,drink"),
            ("page", "2"),
            ("tab", "history"),
            ("store_id", "9"),
            ("utm_source", "mail"),
        ]
    )
    # Passed through as strings (prerender validates); the first of repeated values; empty ones left out.
    assert catalog_query(SEARCH, args, store_id="1001") == {
        "recipe_type_filter": "true",
        "search": "tarte",
        "recipe_type_id": "dessert,drink",
        "page": "2",
        "store_id": "1001",
    }
    assert catalog_query(SEARCH, MultiDict({"recipe_type_filter": "false"}), store_id=None) == {
        "recipe_type_filter": "false"
    }
    assert catalog_query(HOME, args, store_id=None) == {}
    assert catalog_query(FAVORITES, args, store_id=None) == {"page": "2"}
    assert catalog_query(MY_SPACE, args, store_id=None) == {"tab": "history", "page": "2"}
    assert catalog_query(BASKET, MultiDict(), store_id="1001") == {"show_tab_selector": "true", "store_id": "1001"}
    assert catalog_query(CATEGORY, MultiDict({"category_id": "rapide", "tab": "x"}), store_id=None) == {
        "category_id": "rapide"
    }
    assert [page.route for page in PAGES] == [
        "/catalog",
        "/catalog/category",
        "/catalog/list",
        "/catalog/favorites",
        "/catalog/my-space",
        "/catalog/my-space/basket-preview",
    ]


# -------------------------------------------------------------------------------------- the store, the visitor


def test_the_visitors_store_is_forwarded(shop_client: FlaskClient):
    # Without a store of its own, the visitor's page takes the one of its address.
    assert catalog_of(soup_of(shop_client.get(f"/idees/recherche?store_id={STORE}")))["store-id"] == STORE
    assert catalog_of(soup_of(shop_client.get("/idees/recherche"))).get("store-id") is None
    # With one, the visitor's store wins: the header's picker and the recipes agree.
    shop_client.post("/preferences", data={"store_id": STORE})
    for path in [
        f"/idees/categorie?category_id={CATEGORY_ID}",
        "/idees/recherche",
        "/idees/panier",
        "/idees/mon-espace",
    ]:
        assert catalog_of(soup_of(shop_client.get(path)))["store-id"] == STORE, path
    soup = soup_of(shop_client.get(f"/idees/recherche?store_id={OTHER_STORE}"))
    assert catalog_of(soup)["store-id"] == STORE
    assert soup.select_one("#store-picker option[selected]")["value"] == STORE
    # The home's cards are priced at the store.
    cards = catalog_of(soup_of(shop_client.get("/idees"))).select("svc-recipe-card")
    assert cards and {card["store-id"] for card in cards} == {STORE}


def test_a_stale_store_cookie_is_dropped_and_the_page_shown_without_a_store(shop_client: FlaskClient):
    shop_client.set_cookie(STORE_COOKIE, "424242")
    root = catalog_of(soup_of(shop_client.get("/idees/panier")))  # prerender refuses an unknown store here
    assert root.get("store-id") is None
    assert shop_client.get_cookie(STORE_COOKIE) is None


def test_a_logged_in_visitor_is_the_user(make_shop: Callable[..., Flask], user_id: str):
    client = make_shop(DEMO_USER_ID=user_id).test_client()
    soup = soup_of(client.get("/idees/favoris"))
    assert credential_of(soup)["kind"] == "authless"
    assert soup.select_one("svc-catalog [data-role=login-required]") is not None  # favorites are a user's
    client.post("/connexion")
    for path in ["/idees/favoris", "/idees/mon-espace", "/idees/panier", "/idees"]:
        soup = soup_of(client.get(path))
        shopper = credential_of(soup)
        assert (shopper["kind"], shopper["shopper-id"]) == ("user", user_id), path
        assert soup.select_one("svc-catalog [data-role=login-required]") is None, path


# ------------------------------------------------------------------------------ when prerender refuses or fails


def test_an_unknown_category_is_the_shops_404_page(shop_client: FlaskClient, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        response = shop_client.get("/idees/categorie?category_id=no-such-category")
    assert response.status_code == 404
    assert response.headers["Cache-Control"] == "private, no-store"
    html = response.get_data(as_text=True)
    assert "Traceback" not in html and "application/problem+json" not in html
    soup = BeautifulSoup(html, "html5lib")
    assert soup.find("svc-catalog") is None and soup.select_one("[data-not-found]") is not None
    assert soup.select_one("main#content h1").get_text(strip=True) == "Page introuvable"
    assert soup.title.get_text(strip=True).startswith("Page introuvable")
    assert soup.select_one("form[data-login-form]") is not None and soup.select_one("#store-picker") is not None
    assert soup.select_one('nav.site-nav a[href="/idees"]')["aria-current"] == "page"
    # No failure of prerender's nor the shop's: an address naming what does not exist.
    logged = [
        r
        for r in caplog.records
        if r.name == "examples.shop.recipe_catalog" or "GET /catalog/category " in r.getMessage()
    ]
    assert logged and all(r.levelno == logging.INFO for r in logged)


@pytest.mark.parametrize(
    ("path", "title", "afresh"),
    [
        ("/idees/mon-espace?history_style=table", "Favoris et historique", "/idees/mon-espace"),
        ("/idees/mon-espace?tab=orders&page=1", "Favoris et historique", "/idees/mon-espace"),
        ("/idees/recherche?search=tarte&page=0", "Rechercher une recette", "/idees/recherche"),
        ("/idees/favoris?page=abc", "Mes recettes favorites", "/idees/favoris"),
        ("/idees?max_recipes_per_category=99", "Idées recettes", "/idees"),
        ("/idees/panier?embed=maybe", "Recettes du panier", "/idees/panier"),
        # A category page keeps its category when it is not what was refused; without one, the section's home.
        (
            f"/idees/categorie?category_id={CATEGORY_ID}&page=abc",
            "Recettes par catégorie",
            "/idees/categorie?category_id=rapide",
        ),
        ("/idees/categorie", "Recettes par catégorie", "/idees"),
        ("/idees/categorie?category_id=-x", "Recettes par catégorie", "/idees"),
    ],
)
def test_parameters_prerender_refuses_are_the_shops_notice(
    shop_client: FlaskClient, caplog: pytest.LogCaptureFixture, path: str, title: str, afresh: str
):
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        response = shop_client.get(path)
    assert response.status_code == 400
    assert response.headers["Cache-Control"] == "private, no-store"
    section = problem_of(response, title)
    assert section["data-catalog-problem"] == "refused"
    assert "pas valide" in section.get_text(" ", strip=True)
    assert section.select_one("a")["href"] == afresh  # the page afresh, without the refused parameters
    refusals = [r for r in caplog.records if r.name == "examples.shop.recipe_catalog" and r.levelno == logging.WARNING]
    assert len(refusals) == 1 and "refused" in refusals[0].getMessage()


def test_the_refusal_is_logged_with_the_fields_prerender_named(
    shop_client: FlaskClient, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.INFO, logger="examples.shop"):
        shop_client.get("/idees/mon-espace?history_style=table")
    [record] = [r for r in caplog.records if r.name == "examples.shop.recipe_catalog" and r.levelno >= logging.WARNING]
    assert "history_style" in record.getMessage() and "/idees/mon-espace?history_style=table" in record.getMessage()


@pytest.mark.parametrize(("path", "title"), [(case[0], case[3]) for case in PAGE_CASES], ids=PAGE_IDS)
def test_prerender_down_is_the_shops_unavailable_block(
    make_shop: Callable[..., Flask], unreachable_url: str, path: str, title: str
):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    response = client.get(path)
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "30"
    assert response.headers["Cache-Control"] == "private, no-store"
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    section = problem_of(response, title)
    assert section["data-catalog-problem"] == "unavailable"
    assert "momentanément indisponibles" in section.get_text(" ", strip=True)
    assert stylesheets(soup) == [static_url("shop.css")]


def test_the_retry_link_keeps_only_what_the_page_forwards(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    response = client.get(f"/idees/recherche?search=tarte&utm_source=mail&page=2&store_id={STORE}")
    retry = problem_of(response, "Rechercher une recette").select_one("a")
    assert urlsplit(retry["href"]).path == "/idees/recherche"
    assert query_of(retry["href"]) == {"search": ["tarte"], "page": ["2"], "store_id": [STORE]}


def test_prerender_down_in_english(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    client.post("/preferences", data={"language": "en"})
    response = client.get("/idees")
    assert response.status_code == 503
    section = BeautifulSoup(response.get_data(as_text=True), "html5lib").select_one("[data-catalog-problem]")
    assert "temporarily unavailable" in section.get_text(" ", strip=True)
    assert section.select_one("a").get_text(strip=True) == "Try again"


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (problem_answer(500), 503),
        (problem_answer(502), 503),
        (problem_answer(404), 503),  # the route itself missing is no unknown page of the shop's
        (problem_answer(400, {"query": {"tab": ["Must be one of: favorites, history."]}}), 400),
        (lambda: Response(json.dumps({"html": "<p>x</p>"}), mimetype="application/json"), 503),
        (lambda: Response("", mimetype="text/html"), 503),
    ],
    ids=["500", "502", "404", "400", "json", "empty"],
)
def test_a_failed_answer_of_prerender_is_the_shops_message(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender], fault, status: int
):
    proxy = faulty({"/v2/catalog/my-space": fault})
    client = make_shop(PRERENDER_URL=proxy.url).test_client()
    response = client.get("/idees/mon-espace")
    assert response.status_code == status
    section = problem_of(response, "Favoris et historique")
    assert section["data-catalog-problem"] == ("refused" if status == 400 else "unavailable")


def test_a_late_answer_of_prerender_is_the_shops_message(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    proxy = faulty()
    proxy.faults["/v2/catalog/list"] = proxy.slow
    client = make_shop(PRERENDER_URL=proxy.url, PRERENDER_READ_TIMEOUT=1.0).test_client()
    response = client.get("/idees/recherche?search=tarte")
    proxy.release.set()
    assert response.status_code == 503
    assert problem_of(response, "Rechercher une recette")["data-catalog-problem"] == "unavailable"


def test_the_page_goes_on_without_prerenders_stylesheets(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    proxy = faulty({"/v2/styles/catalog/catalog-list": problem_answer(503)})
    soup = soup_of(make_shop(PRERENDER_URL=proxy.url).test_client().get("/idees/recherche"))
    assert catalog_of(soup)["page"] == "list"
    hrefs = stylesheets(soup)
    assert any(href.endswith("/base.css") for href in hrefs) and not any("catalog-list" in href for href in hrefs)

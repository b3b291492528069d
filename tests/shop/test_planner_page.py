"""The demo shop hosts the planner, against the live seeded stack (tests/live.py): its current-menu page
(`/planner/current-menu`, `/planner`) is prerender's fragment in the shop's layout, the "Nos fiches maison" page
(`/idees/fiches`) holds the planner entry block, and a login asked by the planner comes back to the planner's page.

prerender's faults (a problem answer, a late or unusable answer, one fragment failing) are injected by a proxy
in front of the live prerender (`FaultyPrerender`): every request it does not fail goes through unchanged."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from bs4 import BeautifulSoup, Tag
from flask import Flask, Response
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

import prerender
from examples.shop.planner import FORWARDED, planner_query, store_of
from examples.shop.prerender_client import PrerenderClient
from examples.shop.views import local_path
from examples.shop.visitor import STORE_COOKIE, Visitor
from tests.faulty_upstream import MENUS, FaultyUpstream, status
from tests.live import TEST_BUDGETS, LiveServer, Stack

from .conftest import FaultyPrerender, problem_answer, soup_of, static_url

STORE = "1001"
OTHER_STORE = "1002"
PAGE = "/planner/current-menu"
# The shop's own recipe sheets, with the planner entry block.
SHEETS = "/idees/fiches"
MENU_ITEM = "svc-planner .svc-planner__menu-item"
_users = itertools.count()


@pytest.fixture
def user_id() -> str:
    return f"shop-planner-{next(_users)}-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------------------------------------ helpers


def planner_of(soup: BeautifulSoup) -> Tag:
    """The fragment's root element, inside the page's main content."""
    element = soup.select_one("main#content [data-planner-page] > svc-planner")
    assert element is not None, "no <svc-planner> in the page's main content"
    return element


def menu_recipe_ids(soup: BeautifulSoup) -> list[str]:
    return [item["data-recipe-id"] for item in soup.select(MENU_ITEM)]


def stylesheets(soup: BeautifulSoup) -> list[str]:
    return [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]


def credential_of(soup: BeautifulSoup) -> Tag:
    """The page's one shopper (every `<svc-shopper>` of the page names the same)."""
    elements = soup.find_all("svc-shopper")
    assert elements and len({(e["kind"], e["shopper-id"]) for e in elements}) == 1
    return elements[0]


def problem_of(response) -> Tag:
    """The friendly message of a planner page without prerender's menu (a page of the shop's, never JSON)."""
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "Traceback" not in html and "application/problem+json" not in html and '"errors"' not in html
    soup = BeautifulSoup(html, "html5lib")
    assert soup.find("svc-planner") is None
    # The shop's page is all there: its h1, the header's login and store picker, the nav.
    assert soup.select_one("main#content h1").get_text(strip=True) in ("Planificateur de repas", "Meal planner")
    assert soup.select_one("form[data-login-form]") is not None and soup.select_one("#store-picker") is not None
    section = soup.select_one("main#content [data-planner-problem]")
    assert section is not None
    return section


def query_of(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


# ----------------------------------------------------------------------------------- the current-menu page


@pytest.mark.parametrize("path", [PAGE, "/planner"])
def test_the_planner_page_is_prerenders_menu_in_the_shops_layout(
    shop_client: FlaskClient, prerender_url: str, path: str
):
    response = shop_client.get(f"{path}?mode=selection")
    assert response.headers["Cache-Control"] == "private, no-store"
    soup = soup_of(response)
    planner = planner_of(soup)
    assert planner["lang"] == "fr" and planner["mode"] == "selection"
    assert len(soup.select(MENU_ITEM)) >= 1
    assert all(item["data-recipe-id"] for item in soup.select(MENU_ITEM))
    # The page's h1 (visually hidden) names the page; the fragment's title is its h2.
    h1 = soup.find_all("h1")
    assert len(h1) == 1 and h1[0].get_text(strip=True) == "Planificateur de repas"
    assert "visually-hidden" in h1[0]["class"]
    assert planner.select_one("h2.svc-planner__title").get_text(strip=True)
    assert soup.title.get_text(strip=True).startswith("Planificateur de repas")
    # prerender's stylesheets (base and planner), then the shop's.
    hrefs = stylesheets(soup)
    vendor = [href for href in hrefs if href.startswith(prerender_url)]
    assert any(href.endswith("/base.css") for href in vendor)
    assert any(href.endswith("/planner.css") for href in vendor)
    assert hrefs[-1] == static_url("shop.css")
    # The fragment's own module scripts and the visitor's credential, once; the pageview names the page.
    assert any(s.get("src", "").endswith("/components/planner.js") for s in soup.find_all("script"))
    assert credential_of(soup)["kind"] == "authless"
    assert soup.select_one('meta[name="svc-analytics-path"]')["content"] == path
    assert soup.select_one("[data-planner-problem]") is None


def test_the_nav_of_every_page_links_the_planner(shop_client: FlaskClient):
    pages = [
        ("/", False),
        ("/idees", False),
        ("/idees/fiches", False),
        ("/cart", False),
        (PAGE, True),
        ("/planner", True),
    ]
    for path, current in pages:
        soup = soup_of(shop_client.get(path))
        link = soup.select_one(f'nav.site-nav a[href="{PAGE}"]')
        assert link is not None and link.get_text(strip=True) == "Menu de la semaine", path
        assert (link.get("aria-current") == "page") is current, path
    shop_client.post("/preferences", data={"language": "en"})
    soup = soup_of(shop_client.get("/"))
    assert soup.select_one(f'nav.site-nav a[href="{PAGE}"]').get_text(strip=True) == "Weekly menu"
    soup = soup_of(shop_client.get(PAGE))
    assert soup.select_one("main#content h1").get_text(strip=True) == "Meal planner"
    assert planner_of(soup)["lang"] == "en"


def test_the_page_forwards_mode_view_and_guests(shop_client: FlaskClient):
    planner = planner_of(soup_of(shop_client.get(f"{PAGE}?mode=custom&view=menu&guests=6&utm_source=mail")))
    assert (planner["mode"], planner["view"], planner["guests"]) == ("custom", "menu", "6")
    assert planner.get("store-id") is None


def test_the_page_forwards_the_catalog_panels_filters(shop_client: FlaskClient):
    soup = soup_of(shop_client.get(f"{PAGE}?recipe_type_id=dessert"))
    pressed = [b["value"] for b in planner_of(soup).select("button[name=recipe_type_id][aria-pressed=true]")]
    assert pressed == ["dessert"]
    soup = soup_of(shop_client.get(f"{PAGE}?search=tarte&page=1"))
    assert planner_of(soup).select_one("input[name=search]")["value"] == "tarte"


def test_the_visitors_store_prices_the_menu(shop_client: FlaskClient):
    # Without a store of its own, the visitor's page takes the one of its address (the entry's link has it).
    assert planner_of(soup_of(shop_client.get(f"{PAGE}?store_id={STORE}")))["store-id"] == STORE
    # With one, the visitor's store wins: the header's picker, the cart and the menu agree.
    shop_client.post("/preferences", data={"store_id": STORE})
    assert planner_of(soup_of(shop_client.get(PAGE)))["store-id"] == STORE
    soup = soup_of(shop_client.get(f"{PAGE}?store_id={OTHER_STORE}"))
    assert planner_of(soup)["store-id"] == STORE
    assert soup.select_one("#store-picker option[selected]")["value"] == STORE


def test_a_stale_store_cookie_is_dropped_and_the_menu_shown_without_a_store(shop_client: FlaskClient):
    shop_client.set_cookie(STORE_COOKIE, "424242")
    soup = soup_of(shop_client.get(f"{PAGE}?mode=selection"))
    assert planner_of(soup).get("store-id") is None
    assert shop_client.get_cookie(STORE_COOKIE) is None


def test_only_the_planners_parameters_are_forwarded():
    args = MultiDict(
        [
            ("mode", "selection"),
            ("view", "menu"),
            ("guests", "abc"),
            ("recipe_type_id", "dessert"),
            ("recipe_type_id", "drink"),
            ("search", ""),
            ("page", "2"),
            ("panel", "false"),
            ("_external", "1"),
            ("store_id", "9"),
        ]
    )
    # Passed through as strings (prerender validates); the first of repeated values; empty ones left out.
    assert planner_query(args, store_id="1001") == {
        "mode": "selection",
        "view": "menu",
        "guests": "abc",
        "recipe_type_id": "dessert",
        "page": "2",
        "store_id": "1001",
    }
    assert planner_query(MultiDict(), store_id=None) == {}
    assert set(FORWARDED) == {"mode", "view", "guests", "recipe_type_id", "search", "page"}
    visitor = Visitor(session_id="s", authless_id="a")
    assert store_of(visitor, args) == "9"
    assert store_of(Visitor(session_id="s", authless_id="a", store_id="1001"), args) == "1001"
    assert store_of(visitor, MultiDict()) is None


# ------------------------------------------------------------------------------ when prerender fails or refuses


def test_prerender_down_is_a_friendly_message(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    response = client.get(f"{PAGE}?mode=selection&view=menu&panel=false")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "30"
    assert response.headers["Cache-Control"] == "private, no-store"
    section = problem_of(response)
    assert section["data-planner-problem"] == "unavailable"
    assert "momentanément indisponible" in section.get_text(" ", strip=True)
    retry = section.select_one("a")
    assert urlsplit(retry["href"]).path == PAGE
    assert query_of(retry["href"]) == {"mode": ["selection"], "view": ["menu"]}  # only what the page forwards
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    assert stylesheets(soup) == [static_url("shop.css")]


def test_prerender_down_in_english(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    client.post("/preferences", data={"language": "en"})
    section = problem_of(client.get("/planner"))
    assert "temporarily unavailable" in section.get_text(" ", strip=True)
    assert section.select_one("a").get_text(strip=True) == "Try again"


@pytest.mark.parametrize("query", ["mode=bogus", "view=sideways", "guests=0", "store_id=not%20a%20store"])
def test_a_query_prerender_refuses_is_a_friendly_message(shop_client: FlaskClient, query: str):
    response = shop_client.get(f"{PAGE}?{query}")
    assert response.status_code == 400
    section = problem_of(response)
    assert section["data-planner-problem"] == "refused"
    assert "pas valide" in section.get_text(" ", strip=True)
    assert section.select_one("a")["href"] == PAGE  # the planner afresh, without the refused parameters


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (problem_answer(500), 503),
        (problem_answer(502), 503),
        (problem_answer(404), 503),
        (problem_answer(400, {"query": {"mode": ["Must be one of: selection, custom."]}}), 400),
        (lambda: Response(json.dumps({"html": "<p>x</p>"}), mimetype="application/json"), 503),
        (lambda: Response("", mimetype="text/html"), 503),
    ],
    ids=["500", "502", "404", "400", "json", "empty"],
)
def test_a_failed_answer_of_prerender_is_a_friendly_message(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender], fault, status: int
):
    proxy = faulty({"/v2/planner/current-menu": fault})
    client = make_shop(PRERENDER_URL=proxy.url).test_client()
    response = client.get(PAGE)
    assert response.status_code == status
    assert problem_of(response)["data-planner-problem"] == ("refused" if status == 400 else "unavailable")


def test_prerenders_upstream_failing_is_prerenders_try_again_state_in_the_shops_page(
    make_shop: Callable[..., Flask], coreapi_url: str, stack: Stack
):
    """prerender itself answers, but its upstream fails the menu: the shop includes prerender's try-again state
    (a 200 fragment, issue 22) like any page of prerender's, with the visitor's credential for its retries."""
    with FaultyUpstream(coreapi_url, {MENUS: status(503)}) as upstream:
        app = prerender.create_app(
            {"UPSTREAM_URL": upstream.url, "LOG_LEVEL": "ERROR", **TEST_BUDGETS, **stack.cache_config()}
        )
        with LiveServer(app) as degraded:
            response = make_shop(PRERENDER_URL=degraded.url).test_client().get(f"{PAGE}?mode=selection")
    soup = soup_of(response)
    planner = planner_of(soup)
    assert planner["retry"] == "fetch" and planner.select_one("[data-role=retry] button[data-action=retry]")
    assert credential_of(soup)["kind"] == "authless"
    assert any(s.get("src", "").endswith("/components/planner.js") for s in soup.find_all("script"))
    assert soup.select_one("[data-planner-problem]") is None


def test_a_late_answer_of_prerender_is_a_friendly_message(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    proxy = faulty()
    proxy.faults["/v2/planner"] = proxy.slow
    client = make_shop(PRERENDER_URL=proxy.url, PRERENDER_READ_TIMEOUT=1.0).test_client()
    response = client.get("/planner")
    proxy.release.set()
    assert response.status_code == 503
    assert problem_of(response)["data-planner-problem"] == "unavailable"


# ------------------------------------------------------------------------- the entry on "Nos fiches maison"


def test_the_ideas_page_holds_the_planner_entry(shop_client: FlaskClient, prerender_url: str):
    shop_client.post("/preferences", data={"store_id": STORE})
    soup = soup_of(shop_client.get(SHEETS))
    entry = soup.select_one("main#content [data-planner-entry] > svc-planner-entry")
    assert entry is not None
    assert entry.get("unavailable") is None
    modes = {button["data-mode"]: button["data-href"] for button in entry.select("[data-mode]")}
    assert set(modes) == {"selection", "custom"}
    for mode, href in modes.items():
        assert urlsplit(href).path == PAGE
        assert query_of(href) == {"mode": [mode], "store_id": [STORE]}
    assert any(href.startswith(prerender_url) and href.endswith("/planner-entry.css") for href in stylesheets(soup))
    assert any(s.get("src", "").endswith("/components/planner-entry.js") for s in soup.find_all("script"))
    # The shop's own recipe cards are still there.
    assert soup.select("[data-recipe-card]")


def test_the_ideas_page_goes_on_without_the_entry(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    proxy = faulty({"/v2/planner/entry": problem_answer(503)})
    soup = soup_of(make_shop(PRERENDER_URL=proxy.url).test_client().get(SHEETS))
    assert soup.select_one("[data-planner-entry]") is None and soup.find("svc-planner-entry") is None
    assert not any(href.endswith("/planner-entry.css") for href in stylesheets(soup))
    assert soup.select("[data-recipe-card]")
    assert any("/sdk/svc.js" in s.get("src", "") for s in soup.find_all("script"))  # the bootstrap's SDK


def test_the_ideas_page_without_prerender(make_shop: Callable[..., Flask], unreachable_url: str):
    soup = soup_of(make_shop(PRERENDER_URL=unreachable_url).test_client().get(SHEETS))
    assert soup.select_one("[data-planner-entry]") is None
    assert soup.select("[data-recipe-card]")


# ---------------------------------------------------------------------------------- logging in from the planner


def test_the_pages_forms_the_planner_asks_for(shop_client: FlaskClient):
    """What static/planner-host.js brings forward: the header's login form and store picker, each with `next`."""
    soup = soup_of(shop_client.get(f"{PAGE}?mode=selection"))
    login = soup.select_one("form#login-form[data-login-form]")
    assert login["action"] == "/connexion" and login["method"] == "post"
    assert login.select_one("input[name=next]")["value"] == PAGE
    assert login.select_one("button[type=submit][data-account=login]") is not None
    store = soup.select_one("form#store-form[data-store-form]")
    assert store["action"] == "/preferences"
    assert store.select_one("select#store-picker[name=store_id]") is not None
    assert store.select_one("input[name=next]")["value"] == PAGE
    for path in ("/", "/idees", SHEETS, "/cart", PAGE):
        scripts = [s.get("src", "") for s in soup_of(shop_client.get(path)).find_all("script")]
        assert static_url("planner-host.js") in scripts, path
    script = shop_client.get(static_url("planner-host.js")).get_data(as_text=True)
    assert "defineLoginRequired" in script and "defineStoreRequired" in script


@pytest.mark.parametrize("form", ["/connexion", "/deconnexion", "/preferences"])
def test_next_stays_a_local_path(shop_client: FlaskClient, form: str):
    kept = [f"{PAGE}?mode=selection&store_id={STORE}", PAGE, "/planner", "/idees#recettes", "/cart"]
    for target in kept:
        response = shop_client.post(form, data={"next": target})
        assert (response.status_code, response.headers["Location"]) == (303, target)
    refused = [
        "",
        "planner/current-menu",
        "//evil.example/planner",
        "/\\evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r\nSet-Cookie: x=1",
        " /planner",
        "/\x00",
        "https://evil.example/planner",
        "javascript:alert(1)",
        "http:/planner",
    ]
    for target in refused:
        response = shop_client.post(form, data={"next": target})
        assert (response.status_code, response.headers["Location"]) == (303, "/"), repr(target)


def test_local_path():
    assert (
        local_path("/planner/current-menu?mode=custom&store_id=1001")
        == "/planner/current-menu?mode=custom&store_id=1001"
    )
    assert local_path("/idées") == "/idées"
    for target in ("//x", "/\\x", "/\tx", "/ x", "/\u2028x", "x", "", "https://x/"):
        assert local_path(target) is None, repr(target)


def test_the_login_asked_by_the_planner_comes_back_with_the_visitors_menu(
    make_shop: Callable[..., Flask], prerender_url: str, user_id: str
):
    client = make_shop(DEMO_USER_ID=user_id).test_client()
    client.post("/preferences", data={"store_id": STORE})
    soup = soup_of(client.get(f"{PAGE}?mode=custom&store_id={STORE}"))
    assert menu_recipe_ids(soup) == []
    visitor = credential_of(soup)
    assert visitor["kind"] == "authless"
    # What the page's module does when the visitor adds a recipe (the browser route, with the credential).
    added = requests.post(
        f"{prerender_url}/v2/menu/current/recipes",
        json={"recipe_id": "3"},
        headers={"Authorization": f"Bearer {visitor['credential']}", "language-id": "fr", "session-id": "s"},
        timeout=30,
    )
    assert added.status_code == 200, added.text

    # Finalizing asks for a login: planner-host.js points the login form's `next` at the page.
    response = client.post("/connexion", data={"next": f"{PAGE}?mode=selection&store_id={STORE}"})
    assert response.status_code == 303
    assert response.headers["Location"] == f"{PAGE}?mode=selection&store_id={STORE}"
    soup = soup_of(client.get(response.headers["Location"]))
    user = credential_of(soup)
    assert (user["kind"], user["shopper-id"]) == ("user", user_id)
    assert planner_of(soup)["store-id"] == STORE
    # The visitor's menu became the user's (merge-authless-menu at login), opened as it is.
    assert menu_recipe_ids(soup) == ["3"]
    assert soup.select_one('[data-account="logout"]') is not None


def test_the_planners_stylesheets_are_asked_in_v2(prerender_url: str):
    client = PrerenderClient(prerender_url, "demo-retailer-token", read_timeout=10.0)
    visitor = Visitor(session_id="s-planner", authless_id="anon-planner-styles")
    planner = client.styles(visitor, "planner", version="v2")
    entry = client.styles(visitor, "planner/planner-entry", version="v2")
    assert "/planner.css" in planner and "/planner-entry.css" in planner
    assert "/planner-entry.css" in entry and "/planner.css" not in entry
    # The client's own version (v1) does not serve the planner's sheets from its cache of v2.
    assert "/planner.css" not in client.styles(visitor, "recipe-card")
    assert "/base.css" in client.styles(visitor, "base") and "/base.css" in client.styles(visitor, "base", version="v2")

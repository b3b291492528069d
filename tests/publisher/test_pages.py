"""The blog's pages against a prerender faked with `responses` (fault injection): what the server asks prerender,
with which headers, what it does with the answers, and that no failure of prerender ever costs the page."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses
from bs4 import BeautifulSoup
from flask import Flask

from examples.delivery import STATIC_CACHE_CONTROL
from examples.publisher import STATIC_FOLDER
from examples.publisher.reader import AUTHLESS_COOKIE, SESSION_COOKIE
from examples.publisher.recipes import BY_ID, RECIPES
from tests.demo_sites import blog_cookies, blog_id

from .conftest import FAKE_PRERENDER, soup_of, static_url

TOKEN_URL = f"{FAKE_PRERENDER}/v1/generate-authless-token"
CTA_URL = f"{FAKE_PRERENDER}/v1/no-supplier-add-to-cart-cta"
STYLES_URL = f"{FAKE_PRERENDER}/v1/styles"
AUTHLESS_ID = "Yx3pRg0-authless_id-of-the-reader-000000001"
ELEMENT = "svc-no-supplier-add-to-cart-cta"
QUICHE = "pub-quiche-lorraine"


def cta(recipe_id: str, guests: str) -> str:
    return (
        f'<{ELEMENT} recipe-id="4" external-id="{recipe_id}" guests="{guests}"><button>Acheter les ingrédients'
        f'</button></{ELEMENT}><script type="module" src="{FAKE_PRERENDER}/static/b/sdk/svc.js"></script>'
    )


def cta_answer(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
    """prerender's button: empty for a recipe it does not know (the gâteau basque)."""
    query = parse_qs(urlsplit(request.url).query)
    recipe_id, guests = query["recipe_id"][0], query["guests"][0]
    body = "" if recipe_id == "pub-gateau-basque" else cta(recipe_id, guests)
    return 200, {"Content-Type": "text/html; charset=utf-8"}, body


Answer = Callable[[requests.PreparedRequest], tuple[int, dict[str, str], str]]


def fake_prerender(*, token: bool = True, button: Answer | None = cta_answer, styles: bool = True) -> None:
    """The routes the blog calls, answering as prerender does, or failing where told (`button=None`: a 500)."""
    if token:
        responses.get(TOKEN_URL, json={"authless_id": AUTHLESS_ID})
    else:
        responses.get(TOKEN_URL, status=503, json={"title": "Service Unavailable"})
    if button is not None:
        responses.add_callback(responses.GET, CTA_URL, callback=button)
    else:
        responses.get(CTA_URL, status=500, body="boom")
    for name in ("base", "recipe-card"):
        if styles:
            link = f'<link rel="stylesheet" href="{FAKE_PRERENDER}/static/b/css/{name}.css">'
            responses.get(f"{STYLES_URL}/{name}", json={"links": [], "html": link})
        else:
            responses.get(f"{STYLES_URL}/{name}", status=500)


def calls_to(url: str) -> list[responses.Call]:
    return [call for call in responses.calls if call.request.url.split("?")[0] == url]


@pytest.fixture
def blog(make_blog: Callable[..., Flask]) -> Flask:
    return make_blog()


def test_healthz_never_calls_prerender(blog: Flask):
    with responses.RequestsMock() as mocked:
        response = blog.test_client().get("/healthz")
        assert not mocked.calls
    assert response.get_json() == {"status": "ok"}


@responses.activate
def test_the_home_page_shows_the_hero_and_every_other_recipe(blog: Flask):
    fake_prerender()
    soup = soup_of(blog.test_client().get("/"))
    assert soup.html["lang"] == "fr"
    assert soup.select_one("h1").get_text(strip=True) == "Des recettes de toujours, à refaire chez soi"
    assert soup.select_one(".feature h2 a")["href"] == "/recettes/pub-ratatouille-provencale"
    teasers = soup.select(".latest .teaser h3 a")
    assert len(teasers) == len(RECIPES) - 1
    assert {a["href"] for a in teasers} | {"/recettes/pub-ratatouille-provencale"} == {
        f"/recettes/{recipe.id}" for recipe in RECIPES
    }
    assert all(img.get("alt") for img in soup.select("main img"))
    assert soup.find(ELEMENT) is None and not calls_to(CTA_URL)
    # no pictures of anyone else: the blog's own, on its own host
    assert all(img["src"].startswith(static_url("illustrations/")) for img in soup.select("img"))


@responses.activate
def test_a_recipe_page_has_the_blogs_own_content(blog: Flask):
    fake_prerender()
    recipe = BY_ID[QUICHE]
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    assert soup.title.get_text() == "Quiche lorraine \N{EN DASH} Le Magazine Cuisine"
    assert soup.select_one("h1").get_text(strip=True) == recipe.title
    assert soup.select_one(".recipe__intro").get_text(strip=True) == recipe.intro
    assert recipe.author in soup.select_one(".recipe__byline").get_text()
    assert [li.get_text(strip=True) for li in soup.select(".method__steps li")] == list(recipe.steps)
    lines = [li.get_text(strip=True) for li in soup.select(".ingredients__list li")]
    assert lines[:3] == ["1 rouleau de pâte brisée", "200 g de lardons fumés", "3 œufs"]
    # Servings: text without JavaScript, buttons (hidden until the script shows them) with their labels
    assert soup.select_one("[data-servings]").get_text(" ", strip=True) == "Pour 6 personnes"
    labels = [button["aria-label"] for button in soup.select("[data-servings] button")]
    assert labels == ["Une personne de moins", "Une personne de plus"]
    assert all(button.has_attr("hidden") for button in soup.select("[data-servings] button"))
    assert soup.select_one("[data-servings] output").get_text() == "6"
    assert len(soup.select(".related .teaser")) == 3


@responses.activate
def test_a_recipe_page_inserts_the_button_once_for_its_servings_with_its_stylesheets(blog: Flask):
    fake_prerender()
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    (element,) = soup.find_all(ELEMENT)
    assert element["guests"] == "6" and element["external-id"] == QUICHE
    # inserted as is, near the top: in the shopping box under the servings, before the ingredients
    assert element.find_parent(class_="shopping") is not None
    assert soup.select_one(".shopping__cta script[type=module]")["src"].endswith("/sdk/svc.js")
    (call,) = calls_to(CTA_URL)
    assert parse_qs(urlsplit(call.request.url).query) == {"recipe_id": [QUICHE], "guests": ["6"]}
    hrefs = [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]
    assert hrefs == [
        f"{FAKE_PRERENDER}/static/b/css/base.css",
        f"{FAKE_PRERENDER}/static/b/css/recipe-card.css",
        static_url("publisher.css"),
    ]
    # the page's script comes after the fragment's modules (it sets up the SDK they define)
    scripts = [script.get("src", "") for script in soup.find_all("script", type="module")]
    assert scripts[-1] == static_url("publisher.js") and scripts.index(static_url("publisher.js")) > 0


@responses.activate
def test_every_fragment_call_carries_the_readers_headers(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    soup_of(client.get(f"/recettes/{QUICHE}"))
    session_id = client.get_cookie(SESSION_COOKIE).value
    (token_call,) = calls_to(TOKEN_URL)
    assert token_call.request.headers["supplier-token"] == "demo-publisher-token"
    assert token_call.request.headers["session-id"] == session_id
    assert "authless-id" not in token_call.request.headers
    fragment_calls = [call for call in responses.calls if call is not token_call]
    assert len(fragment_calls) == 3  # the button, the two stylesheets
    for call in fragment_calls:
        headers = call.request.headers
        assert headers["supplier-token"] == "demo-publisher-token"
        assert headers["language-id"] == "fr"
        assert headers["session-id"] == session_id
        assert headers["authless-id"] == AUTHLESS_ID
        assert "authorization" not in headers


@responses.activate
def test_the_page_context_names_the_reader_and_never_the_token(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    response = client.get(f"/recettes/{QUICHE}")
    context = json.loads(soup_of(response).select_one("script#publisher-context").string)
    assert context == {
        "language": "fr",
        "sessionId": client.get_cookie(SESSION_COOKIE).value,
        "authlessId": AUTHLESS_ID,
    }
    assert "demo-publisher-token" not in response.get_data(as_text=True)
    assert response.headers["Cache-Control"] == "private, no-store"


@responses.activate
def test_cookies_are_set_once_then_reused(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    first = client.get("/")
    cookies = {header.split("=", 1)[0]: header for header in first.headers.getlist("Set-Cookie")}
    assert set(cookies) == {SESSION_COOKIE, AUTHLESS_COOKIE}
    for header in cookies.values():
        assert "HttpOnly" in header and "SameSite=Lax" in header
    assert "Max-Age=31536000" in cookies[AUTHLESS_COOKIE]
    assert blog_id(AUTHLESS_COOKIE, client.get_cookie(AUTHLESS_COOKIE).value) == AUTHLESS_ID
    session_id = client.get_cookie(SESSION_COOKIE).value

    for path in (f"/recettes/{QUICHE}", "/recettes", "/recettes/pub-crepes"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers.getlist("Set-Cookie") == []
    assert len(calls_to(TOKEN_URL)) == 1
    assert client.get_cookie(SESSION_COOKIE).value == session_id
    assert {call.request.headers["authless-id"] for call in calls_to(CTA_URL)} == {AUTHLESS_ID}


@responses.activate
def test_a_malformed_cookie_is_replaced(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    client.set_cookie(AUTHLESS_COOKIE, "not an id")
    client.set_cookie(SESSION_COOKIE, "x" * 200)
    soup_of(client.get(f"/recettes/{QUICHE}"))
    assert blog_id(AUTHLESS_COOKIE, client.get_cookie(AUTHLESS_COOKIE).value) == AUTHLESS_ID
    assert len(client.get_cookie(SESSION_COOKIE).value) == 32


@responses.activate
@pytest.mark.parametrize(
    "cookie",
    [
        pytest.param("another-readers-id", id="an id read in a page, unsigned"),
        pytest.param(blog_cookies("another-key").sign(AUTHLESS_COOKIE, "another-reader"), id="another key"),
        pytest.param(blog_cookies().sign(SESSION_COOKIE, "x"), id="another cookie"),
    ],
)
def test_an_authless_cookie_the_blog_did_not_sign_is_a_new_reader(blog: Flask, cookie: str):
    """The page shows its reader's id to any script: a cookie holding an id, without the blog's signature of it
    for this cookie, is no reader of the blog's; the reader gets a new identity from prerender."""
    fake_prerender()
    client = blog.test_client()
    client.set_cookie(AUTHLESS_COOKIE, cookie)
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    assert blog_id(AUTHLESS_COOKIE, client.get_cookie(AUTHLESS_COOKIE).value) == AUTHLESS_ID
    assert {call.request.headers["authless-id"] for call in calls_to(CTA_URL)} == {AUTHLESS_ID}
    assert json.loads(soup.select_one("script#publisher-context").string)["authlessId"] == AUTHLESS_ID


@responses.activate
def test_a_recipe_prerender_does_not_know_renders_without_the_button(blog: Flask):
    fake_prerender()
    soup = soup_of(blog.test_client().get("/recettes/pub-gateau-basque"))
    assert soup.find(ELEMENT) is None
    assert soup.select_one("h1").get_text(strip=True) == "Gâteau basque à la crème"
    assert soup.select_one("[data-servings] output").get_text() == "8"
    assert [link["href"] for link in soup.head.find_all("link", rel="stylesheet")] == [static_url("publisher.css")]
    assert len(calls_to(CTA_URL)) == 1


@responses.activate
def test_without_an_authless_id_the_page_renders_without_the_button(blog: Flask):
    fake_prerender(token=False)
    client = blog.test_client()
    soup = soup_of(client.get(f"/recettes/{QUICHE}"))
    assert soup.find(ELEMENT) is None
    assert soup.select_one("h1").get_text(strip=True) == "Quiche lorraine"
    assert not calls_to(CTA_URL) and not calls_to(f"{STYLES_URL}/base")
    assert client.get_cookie(AUTHLESS_COOKIE) is None
    assert json.loads(soup.select_one("script#publisher-context").string)["authlessId"] is None
    # the next page asks again
    soup_of(client.get(f"/recettes/{QUICHE}"))
    assert len(calls_to(TOKEN_URL)) == 2


@responses.activate
def test_a_failing_button_leaves_the_page_whole(blog: Flask):
    fake_prerender(button=None)
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    assert soup.find(ELEMENT) is None
    assert soup.select(".method__steps li")
    assert [link["href"] for link in soup.head.find_all("link", rel="stylesheet")] == [static_url("publisher.css")]


@responses.activate
def test_a_button_without_its_stylesheets_is_left_out(blog: Flask):
    fake_prerender(styles=False)
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    assert soup.find(ELEMENT) is None


@responses.activate
def test_a_button_later_than_the_page_budget_is_left_out(make_blog: Callable[..., Flask]):
    answered = threading.Event()

    def slow(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        time.sleep(1.0)
        answered.set()
        return cta_answer(request)

    fake_prerender(button=slow)
    blog = make_blog(PRERENDER_PAGE_BUDGET=0.3)
    started = time.monotonic()
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    assert time.monotonic() - started < 0.9
    assert soup.find(ELEMENT) is None
    # the late answer must not land among the next test's faked calls
    assert answered.wait(timeout=5)
    time.sleep(0.05)


def test_prerender_down_renders_every_page(make_blog: Callable[..., Flask], unreachable_url: str):
    client = make_blog(PRERENDER_URL=unreachable_url).test_client()
    for path in ("/", "/recettes", "/recettes?categorie=desserts", *(f"/recettes/{r.id}" for r in RECIPES)):
        soup = soup_of(client.get(path))
        assert soup.find(ELEMENT) is None
        assert soup.select_one("h1")
    assert client.get_cookie(AUTHLESS_COOKIE) is None
    assert client.get_cookie(SESSION_COOKIE) is not None


@responses.activate
def test_lists_by_category(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    soup = soup_of(client.get("/recettes?categorie=desserts"))
    assert soup.select_one("h1").get_text(strip=True) == "Desserts"
    titles = {a.get_text(strip=True) for a in soup.select(".teaser h2 a")}
    assert titles == {"Gâteau basque à la crème", "Mousse au chocolat", "Crêpes de la Chandeleur"}
    assert soup.select_one('.sections a[aria-current="page"]').get_text(strip=True) == "Desserts"
    everything = soup_of(client.get("/recettes?categorie=inconnue"))
    assert everything.select_one("h1").get_text(strip=True) == "Toutes nos recettes"
    assert len(everything.select(".teaser")) == len(RECIPES)


@responses.activate
def test_an_unknown_recipe_is_the_blogs_404(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    for path in ("/recettes/pub-tarte-tatin", "/nulle-part"):
        soup = soup_of(client.get(path), status=404)
        assert "pas (ou plus) au menu" in soup.select_one("h1").get_text()
        assert soup.select(".teaser")
    assert not calls_to(CTA_URL)


@responses.activate
def test_the_recipe_page_blocks_its_first_paint_on_the_buttons_sheets_only(blog: Flask):
    """base and the button's sheets (the route's no-supplier-cta) block the first paint; the recipe card's and
    the drawer's, which nothing shows before a click, load without blocking it (examples/stylesheets.py)."""
    responses.get(TOKEN_URL, json={"authless_id": AUTHLESS_ID})
    responses.add_callback(responses.GET, CTA_URL, callback=cta_answer)
    sheets = {
        "base": ["base"],
        "recipe-card": ["recipe-card", "like-button", "drawer", "recipe-details", "no-supplier-cta"],
    }
    for route, names in sheets.items():
        html = "".join(f'<link rel="stylesheet" href="{FAKE_PRERENDER}/static/b/css/{name}.css">' for name in names)
        responses.get(f"{STYLES_URL}/{route}", json={"links": [], "html": html})
    soup = soup_of(blog.test_client().get(f"/recettes/{QUICHE}"))
    found = {link["href"].rsplit("/", 1)[-1]: link for link in soup.head.find_all("link", rel="stylesheet")}
    assert list(found) == [f"{name}.css" for names in sheets.values() for name in names] + ["publisher.css"]
    blocking = [name for name, link in found.items() if not link.get("media")]
    assert blocking == ["base.css", "no-supplier-cta.css", "publisher.css"]
    assert all(
        (link["media"], link["onload"]) == ("print", "this.media='all'")
        for name, link in found.items()
        if name not in blocking
    )
    # the page's largest picture, in its first screen, is asked first
    assert soup.select_one(".recipe__picture img")["fetchpriority"] == "high"


@responses.activate
def test_the_blog_sends_its_pages_and_files_compressed_and_its_files_cached_a_year(blog: Flask):
    fake_prerender()
    client = blog.test_client()
    page = client.get(f"/recettes/{QUICHE}", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    soup = BeautifulSoup(gzip.decompress(page.get_data()), "html5lib")
    picture = soup.select_one(".recipe__picture img")["src"]
    for address in (picture, static_url("publisher.css"), static_url("publisher.js")):
        response = client.get(address, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, address
        assert response.headers["Cache-Control"] == STATIC_CACHE_CONTROL
        assert response.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.get_data()) == (STATIC_FOLDER / address.split("/", 3)[3]).read_bytes()


@responses.activate
@pytest.mark.parametrize(
    ("path", "status", "target", "after"),
    [
        ("/", 200, "newsroom", ".latest"),  # the latest recipes, in a desktop's first screen
        (f"/recettes/{QUICHE}", 200, "related", "article.recipe"),  # the whole recipe, its method included
        ("/recettes", 200, "colophon", "main"),  # a page without a first screen of its own: its footer
        ("/recettes/inconnue", 404, "colophon", "main"),
    ],
)
def test_the_first_paint_waits_for_the_element_after_the_first_screen(
    blog: Flask, path: str, status: int, target: str, after: str
):
    """One render-blocking `expect` link per page (examples/publisher/templates/base.html), naming an element of
    the page that comes after all of `after`: Chromium paints once that element's start is parsed."""
    fake_prerender()
    soup = soup_of(blog.test_client().get(path), status)
    (expect_link,) = soup.head.find_all("link", rel="expect")
    assert expect_link["href"] == f"#{target}" and expect_link["blocking"] == "render"
    (element,) = soup.select(f"#{target}")
    (before,) = soup.select(after)
    assert element in before.find_all_next(), f"#{target} comes before {after}"
    assert element not in before.find_all(), f"#{target} is inside {after}: its start comes before the end of it"

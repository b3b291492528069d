"""The shelf page of the demo shop against the live seeded stack (tests/live.py): products, recipe cards
between them, the multiple-route band, the stylesheets, and how the visitor's cookies change what
prerender renders. Each test builds its own shop and client: no test depends on another."""

from __future__ import annotations

from collections.abc import Callable

from bs4 import BeautifulSoup, Tag
from flask import Flask
from flask.testing import FlaskClient

from examples.shop.shelf import BAND_POSITIONS, FIRST_SCREEN_PRODUCTS, TALL_SCREEN_PX
from examples.shop.visitor import AUTHLESS_COOKIE, SESSION_COOKIE, STORE_COOKIE
from tests.demo_sites import shop_cookie_of
from tests.faulty_upstream import FaultyPrerender

from .conftest import problem_answer, soup_of, static_url

CARD = "svc-recipe-card"


def shelf_cells(soup: BeautifulSoup) -> list[Tag]:
    return soup.select("ul.shelf > li")


def is_product(cell: Tag | None) -> bool:
    return cell is not None and "shelf__cell--product" in cell.get("class", [])


def shelf_cards(soup: BeautifulSoup) -> list[Tag]:
    """The cards inserted between products (not those of the band)."""
    return [card for cell in soup.select("ul.shelf > li.shelf__cell--recipe") for card in cell.find_all(CARD)]


def all_cards(soup: BeautifulSoup) -> list[Tag]:
    return soup.find_all(CARD)


def visit(client: FlaskClient) -> BeautifulSoup:
    return soup_of(client.get("/"))


def test_healthz_needs_no_other_service(unreachable_url: str):
    from examples.shop import create_app

    app = create_app({"TESTING": True, "PRERENDER_URL": unreachable_url, "COREAPI_URL": unreachable_url})
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_shelf_has_at_least_12_products_with_their_details(shop_client: FlaskClient):
    soup = visit(shop_client)
    products = soup.select("ul.shelf article.product")
    assert len(products) >= 12
    for product in products:
        assert product["data-product-id"]
        assert product.select_one(".product__name").get_text(strip=True)
        assert product.select_one(".product__brand") is not None
        assert product.select_one(".product__size").get_text(strip=True)
        assert product.select_one("img.product__picture")["src"].startswith("http")
    assert soup.select_one("header .logo").get_text(" ", strip=True).replace(" ", "") == "DemoMarket"


def test_recipe_cards_sit_between_the_products_they_were_chosen_for(shop_client: FlaskClient):
    soup = visit(shop_client)
    cards = shelf_cards(soup)
    assert cards, "no recipe card between the products"
    for card in cards:
        assert card["id"].startswith(f"{CARD}-")
        cell = card.find_parent("li")
        before, after = cell.find_previous_sibling("li"), cell.find_next_sibling("li")
        assert is_product(before) and is_product(after)
        surrounding = cell["data-surrounding-products"].split(",")
        shelf_ids = [a["data-product-id"] for a in soup.select("ul.shelf > li.shelf__cell--product > article")]
        assert len(surrounding) == 2 and set(surrounding) <= set(shelf_ids)


def test_no_recipe_is_shown_twice(shop_client: FlaskClient):
    ids = [card["id"] for card in all_cards(visit(shop_client))]
    assert ids and len(ids) == len(set(ids))


def test_band_of_the_multiple_route_is_in_position_order(shop_client: FlaskClient):
    soup = visit(shop_client)
    band = soup.select_one("ul.shelf > li.shelf__band")
    assert band is not None
    assert band.select_one("h2").get_text(strip=True) == "Idées recettes"
    cells = band.select("ul.ideas__row > li.ideas__cell")
    positions = [int(cell["data-position"]) for cell in cells]
    assert positions == sorted(positions) and set(positions) <= set(BAND_POSITIONS)
    assert len(positions) >= 3
    for cell in cells:
        assert len(cell.find_all(CARD)) == 1
    # A full-width row between two rows of products.
    assert is_product(band.find_previous_sibling("li")) and is_product(band.find_next_sibling("li"))


def test_head_links_the_stylesheets_of_prerender(shop_client: FlaskClient, prerender_url: str):
    soup = visit(shop_client)
    hrefs = [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]
    vendor = [href for href in hrefs if href.startswith(prerender_url)]
    assert any(href.endswith("/base.css") for href in vendor)
    assert any(href.endswith("/recipe-card.css") for href in vendor)
    # the shop's own sheet comes after the vendor's
    assert hrefs[-1] == static_url("shop.css")


def test_prices_per_guest_appear_with_a_store_only(shop_client: FlaskClient):
    soup = visit(shop_client)
    assert all_cards(soup)
    assert soup.select(f"{CARD} .svc-recipe-pricing") == []
    assert soup.select("article.product .product__price--none")

    response = shop_client.post("/preferences", data={"store_id": "1001"})
    assert response.status_code == 303
    soup = visit(shop_client)
    assert soup.select_one("#store-picker option[selected]")["value"] == "1001"
    cards = all_cards(soup)
    assert cards and all(card.select_one(".svc-recipe-pricing") for card in cards)
    assert not soup.select("article.product .product__price--none")

    shop_client.post("/preferences", data={"store_id": ""})
    soup = visit(shop_client)
    assert soup.select(f"{CARD} .svc-recipe-pricing") == []


def test_like_button_appears_only_when_logged_in(shop_client: FlaskClient):
    soup = visit(shop_client)
    assert all_cards(soup)
    assert soup.select(f"{CARD} .svc-like-button") == []
    assert soup.select_one('[data-account="login"]').get_text(" ", strip=True).startswith("Se connecter")

    assert shop_client.post("/connexion").status_code == 303
    soup = visit(shop_client)
    cards = all_cards(soup)
    assert cards and all(card.select_one(".svc-like-button") for card in cards)
    assert soup.select_one('[data-account="logout"]').get_text(strip=True) == "Se déconnecter"

    assert shop_client.post("/deconnexion").status_code == 303
    soup = visit(shop_client)
    assert all_cards(soup)
    assert soup.select(f"{CARD} .svc-like-button") == []


def test_language_cookie_changes_the_language_of_the_cards(shop_client: FlaskClient):
    soup = visit(shop_client)
    assert soup.html["lang"] == "fr"
    guests = soup.select(f"{CARD} .svc-recipe-card__guests")
    assert guests and all(g.get_text(strip=True).endswith("pers.") for g in guests)

    shop_client.post("/preferences", data={"language": "en"})
    soup = visit(shop_client)
    assert soup.html["lang"] == "en"
    guests = soup.select(f"{CARD} .svc-recipe-card__guests")
    assert guests and all(g.get_text(strip=True).endswith("people") for g in guests)


def test_visitor_gets_a_session_and_an_authless_id_that_stay(shop_client: FlaskClient):
    shop_client.get("/")
    session = shop_client.get_cookie(SESSION_COOKIE)
    authless = shop_client.get_cookie(AUTHLESS_COOKIE)
    assert session and authless
    shop_client.get("/cart")
    assert shop_client.get_cookie(AUTHLESS_COOKIE).value == authless.value
    shop_client.post("/connexion")
    shop_client.get("/")
    assert shop_client.get_cookie(AUTHLESS_COOKIE).value == authless.value
    # Logging out makes the browser a new logged-out visitor (tests/shop/test_shopper_trust.py); the
    # browsing session goes on.
    shop_client.post("/deconnexion")
    shop_client.get("/")
    assert shop_client.get_cookie(SESSION_COOKIE).value == session.value
    assert shop_client.get_cookie(AUTHLESS_COOKIE).value != authless.value


def test_unknown_store_is_ignored(shop_client: FlaskClient):
    assert shop_client.post("/preferences", data={"store_id": "999999"}).status_code == 303
    assert shop_client.get_cookie(STORE_COOKIE) is None
    # a stale cookie for a store that does not exist: shelf without a store, cookie dropped
    shop_client.set_cookie(STORE_COOKIE, "424242")
    soup = visit(shop_client)
    assert len(soup.select("article.product")) >= 12
    assert shop_client.get_cookie(STORE_COOKIE) is None


def test_the_first_paint_waits_for_the_first_screen_only(shop_client: FlaskClient):
    """The render-blocking `expect` link names the band, the first cell after the first screen
    (examples/shop/shelf.py, after_first_screen): the header, the first products and the cards among them are
    parsed before the first paint, not the whole page. A screen tall enough to show the band in its first screen
    waits for the whole page (a second link, for those screens only)."""
    soup = visit(shop_client)
    expect_link, tall_screens_link = soup.head.find_all("link", rel="expect")
    assert expect_link["blocking"] == "render" and not expect_link.has_attr("media")
    assert tall_screens_link["href"] == "#site-footer" and tall_screens_link["blocking"] == "render"
    assert tall_screens_link["media"] == f"(min-height: {TALL_SCREEN_PX}px)"
    target = soup.select_one(expect_link["href"])
    cells = shelf_cells(soup)
    assert target in cells and "shelf__band" in target["class"]
    first_screen = cells[: cells.index(target)]
    assert sum(is_product(cell) for cell in first_screen) == FIRST_SCREEN_PRODUCTS
    assert [cell for cell in first_screen if "shelf__cell--recipe" in cell["class"]], "no card in the first screen"


def test_other_pages_wait_for_their_footer(shop_client: FlaskClient):
    soup = soup_of(shop_client.get("/idees"))
    (expect_link,) = soup.head.find_all("link", rel="expect")
    assert expect_link["href"] == "#site-footer" and soup.select_one("#site-footer").name == "footer"


def test_shelf_without_prerender_shows_products_and_no_card(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(PRERENDER_URL=unreachable_url).test_client()
    soup = visit(client)
    assert len(soup.select("ul.shelf article.product")) >= 12
    assert all_cards(soup) == []
    assert soup.select("ul.shelf > li.shelf__band") == []
    hrefs = [link["href"] for link in soup.head.find_all("link", rel="stylesheet")]
    assert hrefs == [static_url("shop.css")]


def test_catalogue_down_is_a_friendly_503(make_shop: Callable[..., Flask], unreachable_url: str):
    client = make_shop(COREAPI_URL=unreachable_url).test_client()
    response = client.get("/")
    assert response.status_code == 503
    soup = BeautifulSoup(response.get_data(as_text=True), "html5lib")
    assert soup.select_one("h1").get_text(strip=True) == "Catalogue indisponible"
    assert soup.select("article.product") == []


def test_add_buttons_work_with_a_store_and_say_why_they_are_disabled_without(shop_client: FlaskClient):
    soup = visit(shop_client)
    buttons = soup.select("article.product form[data-add-form] button[data-add-product]")
    assert len(buttons) == len(soup.select("article.product")) >= 12
    notice = soup.select_one("#choose-store-notice")
    assert notice is not None and "magasin" in notice.get_text()
    for button in buttons:
        assert button.has_attr("disabled")
        assert button["aria-describedby"] == "choose-store-notice"
        assert button["title"] == notice.get_text().strip()

    shop_client.post("/preferences", data={"store_id": "1001"})
    soup = visit(shop_client)
    assert soup.select_one("#choose-store-notice") is None
    tiles = soup.select("article.product")
    enabled = [tile for tile in tiles if not tile.select_one("button[data-add-product]").has_attr("disabled")]
    assert len(enabled) >= 12
    for tile in tiles:
        button = tile.select_one("button[data-add-product]")
        name = tile.select_one(".product__name").get_text().strip()
        assert button["aria-label"] == f"Ajouter {name} au panier"
        if button.has_attr("disabled"):  # a product the store does not sell: the reason is named
            assert soup.select_one(f"#{button['aria-describedby']}").get_text().strip()


def test_add_without_javascript_puts_one_in_the_cart_and_goes_back(shop_client: FlaskClient):
    shop_client.post("/preferences", data={"store_id": "1001"})
    form = visit(shop_client).select_one("article.product form[data-add-form]")
    fields = {field["name"]: field["value"] for field in form.select("input[type=hidden]")}
    for _ in range(2):
        response = shop_client.post(form["action"], data=fields)
        assert response.status_code == 303
        assert response.headers["Location"] == "/"
    lines = shop_client.get("/cart/lines").get_json()
    assert lines["lines"] == [{"id": fields["product_id"], "quantity": 2}]
    soup = visit(shop_client)
    assert soup.select_one("[data-cart-count]").get_text() == "2"

    # Another site as `next`, or a malformed product id: the cart does not change and the shop stays the target.
    response = shop_client.post(form["action"], data={"product_id": "<x>", "next": "//elsewhere.example/"})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert shop_client.get("/cart/lines").get_json()["count"] == 2


def test_the_cart_link_names_its_count_with_the_language_plural_rules(shop_client: FlaskClient):
    """ "1 article", "2 articles" and, French "one" covering 0, "0 article": not "article(s)"; the browser's
    Intl.PluralRules picks among the same forms (static/svc-setup.js)."""
    shop_client.post("/preferences", data={"store_id": "1001"})
    link = visit(shop_client).select_one("[data-cart-link]")
    assert link["aria-label"] == "Panier : 0 article dans le panier"
    assert link["data-label-one"] == "Panier : {count} article dans le panier"
    assert link["data-label-other"] == "Panier : {count} articles dans le panier"
    form = visit(shop_client).select_one("article.product form[data-add-form]")
    fields = {field["name"]: field["value"] for field in form.select("input[type=hidden]")}
    labels = []
    for _ in range(2):
        shop_client.post(form["action"], data=fields)
        labels.append(visit(shop_client).select_one("[data-cart-link]")["aria-label"])
    assert labels == ["Panier : 1 article dans le panier", "Panier : 2 articles dans le panier"]
    # In English, no space before the colon (the cart page's steppers are named the same way).
    shop_client.post("/preferences", data={"language": "en"})
    link = visit(shop_client).select_one("[data-cart-link]")
    assert (link["aria-label"], link["data-label-one"]) == (
        "Cart: 2 items in the cart",
        "Cart: {count} item in the cart",
    )
    steppers = soup_of(shop_client.get("/cart")).select(".cart-line [data-cart-action][aria-label]")
    assert steppers and all(": " in s["aria-label"] and " : " not in s["aria-label"] for s in steppers), steppers


def test_links_kept_from_an_earlier_page_are_left_out_when_prerender_stops_answering(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender], prerender_url: str
):
    """The shop keeps prerender's stylesheet links a minute. When prerender then stops answering, a page that
    still linked them would not be painted at all until a browser gave up on them (a stylesheet in <head> holds
    the first paint): the page without cards links none, and neither does a page without fragments (the cart)."""
    proxy = faulty()
    client = make_shop(PRERENDER_URL=proxy.url).test_client()
    first = visit(client)
    assert all_cards(first), "the first page has its cards"
    assert len(first.head.find_all("link", rel="stylesheet")) > 1, "and prerender's stylesheets"
    assert client.get("/cart").status_code == 200  # its links are kept too
    for path in ("/v1/recipe-card", "/v1/recipe-card/multiple", "/v2/svc-window-bootstrap"):
        proxy.faults[path] = problem_answer(503)
    for page in (visit(client), soup_of(client.get("/cart"))):
        hrefs = [link["href"] for link in page.head.find_all("link", rel="stylesheet")]
        assert hrefs == [static_url("shop.css")], hrefs


def test_a_new_visitors_identity_and_the_fragments_share_the_pages_budget(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    """A new visitor's authless id is asked of prerender first, then the fragments: all within the page's one
    budget. With prerender hung on the id, the budget is spent there: the visitor gets the shop's own id, and no
    fragment is asked (the page would otherwise wait the id's read timeout, then the fragments' budget)."""
    proxy = faulty()
    proxy.faults["/v1/generate-authless-token"] = proxy.slow
    client = make_shop(PRERENDER_URL=proxy.url, PRERENDER_READ_TIMEOUT=30.0, PRERENDER_PAGE_BUDGET=0.5).test_client()
    page = visit(client)
    assert page.select("ul.shelf article.product") and not all_cards(page)
    assert proxy.failed == ["/v1/generate-authless-token"]
    assert proxy.passed == []  # nothing sent once the budget was spent
    assert (shop_cookie_of(client, AUTHLESS_COOKIE) or "").startswith("anon-")


def test_a_form_action_is_no_page_its_calls_keep_their_own_timeouts(
    make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]
):
    """The login (a POST) asks prerender for its two merges one after the other: it has no page budget to share
    (with none left, they would not be sent, and the visitor's basket and menu would stay behind), and a HEAD of
    a page has the page's budget as its GET does."""
    proxy = faulty()
    client = make_shop(PRERENDER_URL=proxy.url, PRERENDER_PAGE_BUDGET=0.0).test_client()
    assert client.head("/").status_code == 200
    assert client.post("/preferences", data={"store_id": "1001"}).status_code == 303  # baskets are per store
    before = list(proxy.passed)
    assert client.post("/connexion").status_code == 303
    asked = [call for call in proxy.passed[len(before) :] if "merge-authless" in call]
    assert asked == ["GET /v2/menu/merge-authless-menu", "GET /v1/basket/merge-authless-basket"], proxy.passed

"""The shopper's own catalog pages against the real coreapi: favorites (GET /v1/catalog/favorites), my-space
with its tabs (GET /v2/catalog/my-space) and the basket preview (GET /v2/catalog/my-space/basket-preview):
their markup (the 2.8.0 container and tab classes, list vs grid, hidden tabs), every parameter and its bad
values, the login prompt, and history from really confirmed baskets."""

from __future__ import annotations

import itertools
import uuid
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup, Tag

from prerender import create_app
from tests.faulty_upstream import status

from .conftest import browser_headers, headers

SHOP = "http://127.0.0.1:8080"
STORE = "1001"
_users = itertools.count()


@pytest.fixture
def user() -> str:
    return f"space-user-{next(_users)}-{uuid.uuid4().hex[:6]}"


def page(client, path: str, *, hdrs: dict, **query) -> Tag:
    answer = client.get(path, query_string=query, headers=hdrs)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    root = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-catalog")
    assert isinstance(root, Tag)
    return root


def card_ids(scope: Tag) -> list[str]:
    return [str(card["recipe-id"]) for card in scope.find_all("svc-recipe-card")]


def like(client, user: str, *recipe_ids: str) -> None:
    hdrs = browser_headers(client, user=user)
    for recipe_id in recipe_ids:
        assert client.put(f"/v1/likes/{recipe_id}", headers=hdrs).status_code == 204


def confirm_basket(client, hdrs: dict, *recipe_ids: str, order_id: str) -> dict:
    """Recipes into the basket, then the retailer's paid cart confirms it (as a real checkout does)."""
    basket: dict = {}
    for recipe_id in recipe_ids:
        answer = client.post(
            "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": 4, "store_id": STORE}, headers=hdrs
        )
        assert answer.status_code == 200, answer.get_json()
        basket = answer.get_json()["basket"]
    cart = [{"id": p["id"], "quantity": p["quantity"]} for p in basket["products"]]
    paid = client.post(
        f"/v1/baskets/handle-payment?order-id={order_id}",
        json={"store_id": STORE, "totalPrice": basket["total"], "products": cart},
        headers=hdrs,
    )
    assert paid.status_code == 200 and paid.get_json()["confirmed"] is True, paid.get_json()
    return basket


# --- favorites (v1) ---------------------------------------------------------------------------------------


def test_favorites_are_the_users_liked_recipes_most_recent_first(client, user):
    like(client, user, "3", "12", "5")
    root = page(client, "/v1/catalog/favorites", hdrs=headers(user=user), store_id=STORE)
    assert root["page"] == "favorites"
    assert {"svc-ds-scope", "svc-catalog", "svc-catalog-favorites"} <= set(root["class"])
    assert card_ids(root.find("ul", class_="svc-catalog__grid")) == ["5", "12", "3"]
    count = root.find(class_="svc-catalog-favorites__count")
    assert count.contents[0].strip() == "3" and count.get_text(" ", strip=True) == "3 recettes"
    # Liked: the hearts are there for the connected user.
    assert len(root.select(".svc-like-button")) == 3


def test_favorites_apply_the_completion_filter_at_1002(client, user, upstream):
    everywhere = {str(r["id"]) for r in upstream.get("/recipes", per_page=100)["data"]}
    at_store = {str(r["id"]) for r in upstream.get("/recipes", per_page=100, store_id="1002")["data"]}
    hidden = sorted(everywhere - at_store)[0]
    shown = sorted(at_store)[0]
    like(client, user, hidden, shown)
    assert card_ids(page(client, "/v1/catalog/favorites", hdrs=headers(user=user), store_id="1002")) == [shown]
    assert set(card_ids(page(client, "/v1/catalog/favorites", hdrs=headers(user=user), store_id=STORE))) == {
        hidden,
        shown,
    }


def test_a_logged_out_shopper_is_asked_to_log_in_not_shown_an_error(client):
    root = page(client, "/v1/catalog/favorites", hdrs=headers(user=None))
    prompt = root.find(attrs={"data-role": "login-required"})
    assert prompt is not None and prompt.find("button", attrs={"data-action": "login"}) is not None
    assert root.find("svc-recipe-card") is None


def test_no_favorites_yet_says_so(client, user):
    root = page(client, "/v1/catalog/favorites", hdrs=headers(user=user))
    assert root.find(attrs={"data-role": "empty"}) is not None


def test_the_v2_favorites_page_is_gone_and_the_basket_preview_is_v2_only(client):
    """The specification's versioning names the basket preview among the routes of one version, not my-space."""
    assert client.get("/v2/catalog/favorites", headers=headers()).status_code == 410
    assert client.get("/v1/catalog/my-space/basket-preview", headers=headers()).status_code == 404


def test_v1_my_space_shows_the_history_as_a_grid_unless_asked_otherwise(client, user):
    """v2's history is a list by default (the specification), v1's a grid (the maker's integrations); each version's
    links leave out only its own default, so a link followed on the customer's page keeps its layout."""
    hdrs = browser_headers(client, user=user)
    confirm_basket(client, hdrs, "5", order_id=f"order-{user}-v1")
    root = page(client, "/v1/catalog/my-space", hdrs=headers(user=user), tab="history")
    assert root["route"] == "/v1/catalog/my-space"
    history = root.find("ul", class_="svc-my-space__history")
    assert "svc-my-space__history--grid" in history["class"]
    assert [li["data-recipe-id"] for li in history.find_all("li", recursive=False)] == ["5"]
    switch = {a.get_text(strip=True): a for a in root.select(".svc-my-space__history-style")}
    assert switch["Grille"]["href"] == "?tab=history" and switch["Liste"]["href"] == "?tab=history&history_style=list"
    listed = page(client, "/v1/catalog/my-space", hdrs=headers(user=user), tab="history", history_style="list")
    assert "svc-my-space__history--list" in listed.find("ul", class_="svc-my-space__history")["class"]
    # The favorites' pages keep the layout too (20 a page: 21 likes make a second).
    like(client, user, *[str(n) for n in range(1, 22)])
    for style, next_page in ((None, "?page=2"), ("list", "?history_style=list&page=2")):
        query = {"history_style": style} if style else {}
        favorites = page(client, "/v1/catalog/my-space", hdrs=headers(user=user), **query)
        assert favorites["tab"] == "favorites"
        assert favorites.find("a", rel="next")["href"] == next_page


# --- my-space ---------------------------------------------------------------------------------------------


def test_my_space_has_the_container_class_and_tab_classes(client, user):
    like(client, user, "7")
    root = page(client, "/v2/catalog/my-space", hdrs=headers(user=user))
    assert {"svc-ds-scope", "svc-catalog", "svc-my-space", "svc-my-space--favorites"} <= set(root["class"])
    # Links to two pages, the current one aria-current (not ARIA tabs: no arrow keys, a page load each).
    tabs = root.find("nav", class_="svc-my-space__tabs")
    assert not tabs.has_attr("role") and tabs["aria-labelledby"] == root.find(class_="svc-my-space__title")["id"]
    favorites, history = tabs.find_all("a", class_="svc-my-space__tab")
    assert "svc-my-space__tab--active" in favorites["class"] and favorites["aria-current"] == "page"
    assert not any(tab.has_attr(name) for tab in (favorites, history) for name in ("role", "aria-selected"))
    assert "svc-my-space__tab--active" not in history["class"] and not history.has_attr("aria-current")
    assert history["href"] == "?tab=history"
    panel = root.find("section", class_="svc-my-space__panel")
    assert not panel.has_attr("role") and panel["aria-labelledby"] == favorites["id"]
    assert card_ids(panel) == ["7"]
    assert root.find(class_="svc-my-space__title").get_text(strip=True) == "Mon espace"
    assert favorites.find(class_="svc-my-space__tab-count").get_text() == "1 recette"  # "1", and its unit unseen


@pytest.mark.parametrize("hidden", ["false", "0"])
def test_without_the_tab_selector_the_title_names_the_section(client, user, hidden):
    root = page(client, "/v2/catalog/my-space", hdrs=headers(user=user), tab="history", show_tab_selector=hidden)
    assert root.find(class_="svc-my-space__tabs") is None
    assert root.find(class_="svc-my-space__title").get_text(strip=True) == "Historique"
    assert "role" not in root.find("section", class_="svc-my-space__panel").attrs


def test_history_is_the_recipes_of_confirmed_baskets_newest_first(client, user):
    hdrs = browser_headers(client, user=user)
    confirm_basket(client, hdrs, "5", order_id=f"order-{user}-1")
    confirm_basket(client, hdrs, "12", "3", order_id=f"order-{user}-2")
    # An open basket is not history.
    client.post("/v1/basket/recipes", json={"recipe_id": "7", "guests": 2, "store_id": STORE}, headers=hdrs)

    root = page(client, "/v2/catalog/my-space", hdrs=headers(user=user), tab="history")
    assert "svc-my-space--history" in root["class"]
    history = root.find("ul", class_="svc-my-space__history")
    assert {"svc-my-space__history", "svc-my-space__history--list"} <= set(history["class"])
    groups = history.find_all("li", class_="svc-my-space__history-group", recursive=False)
    assert len(groups) == 2
    newest, oldest = ([item["data-recipe-id"] for item in g.select(".svc-my-space__history-item")] for g in groups)
    assert sorted(newest) == ["12", "3"] and oldest == ["5"]
    item = groups[1].find("li", class_="svc-my-space__history-item")
    assert item.find(class_="svc-my-space__history-title").get_text(strip=True)
    assert item.find(class_="svc-my-space__history-price").get_text(strip=True).endswith("€")
    assert item.find("button", attrs={"data-action": "open-details"})["data-recipe-id"] == "5"
    assert groups[0].find("time")["datetime"]
    # The history tab counts its orders (three recipes in two), and says so to a screen reader.
    active = root.find("a", class_="svc-my-space__tab--active")
    count = active.find(class_="svc-my-space__tab-count")
    assert active["data-tab"] == "history" and count.find(string=True, recursive=False) == "2"
    assert count.get_text() == "2 commandes" and "svc-ds-visually-hidden" in count.span["class"]


def test_history_as_a_grid(client, user):
    hdrs = browser_headers(client, user=user)
    confirm_basket(client, hdrs, "5", order_id=f"order-{user}-grid")
    root = page(client, "/v2/catalog/my-space", hdrs=headers(user=user), tab="history", history_style="grid")
    history = root.find("ul", class_="svc-my-space__history")
    assert {"svc-my-space__history--grid", "svc-ds-grid"} <= set(history["class"])
    assert "svc-my-space__history--list" not in history["class"]
    assert [li["data-recipe-id"] for li in history.find_all("li", recursive=False)] == ["5"]
    switch = {a.get_text(strip=True): a for a in root.select(".svc-my-space__history-style")}
    assert switch["Grille"].get("aria-current") == "true" and switch["Liste"]["href"] == "?tab=history"


def test_a_history_page_past_the_end_leads_back_to_the_last_one(client, user):
    hdrs = browser_headers(client, user=user)
    confirm_basket(client, hdrs, "5", order_id=f"order-{user}-past")
    past = page(client, "/v2/catalog/my-space", hdrs=headers(user=user), tab="history", page="4")
    assert past.find(class_="svc-catalog__empty-title").get_text(strip=True) == "Cette page est vide"
    back = past.find("a", rel="prev")
    assert back["href"] == "?tab=history" and back.get_text(strip=True) == "Aller à la dernière page"


def test_history_works_for_an_authless_visitor_and_starts_empty(client):
    visitor = f"space-visitor-{uuid.uuid4().hex[:8]}"
    hdrs = headers(user=None)
    hdrs["authless-id"] = visitor
    root = page(client, "/v2/catalog/my-space", hdrs=hdrs, tab="history")
    assert root.find(attrs={"data-role": "empty"}) is not None
    # Favorites need a user: the visitor is asked to log in.
    favorites = page(client, "/v2/catalog/my-space", hdrs=hdrs)
    assert favorites.find(attrs={"data-role": "login-required"}) is not None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"history_style": "table"}, "history_style"),
        ({"history_style": "table", "tab": "favorites"}, "history_style"),
        ({"tab": "orders"}, "tab"),
        ({"show_tab_selector": "nope"}, "show_tab_selector"),
        ({"page": "-1"}, "page"),
    ],
)
def test_bad_my_space_parameters_are_400_problems(client, query, field):
    answer = client.get("/v2/catalog/my-space", query_string=query, headers=headers())
    assert answer.status_code == 400
    assert answer.mimetype == "application/problem+json"
    assert field in answer.get_json()["errors"]["query"]


# --- basket preview ---------------------------------------------------------------------------------------


def test_the_basket_preview_lists_the_recipes_in_the_basket(client, user):
    hdrs = browser_headers(client, user=user)
    for recipe_id, guests in (("5", 4), ("12", 2)):
        answer = client.post(
            "/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": guests, "store_id": STORE}, headers=hdrs
        )
        assert answer.status_code == 200
    basket = answer.get_json()["basket"]
    root = page(client, "/v2/catalog/my-space/basket-preview", hdrs=headers(user=user), store_id=STORE)
    assert root["page"] == "basket-preview" and not root.has_attr("unknown-store")
    assert {"svc-my-space", "svc-basket-preview"} <= set(root["class"]) and "svc-basket-preview--embed" not in root[
        "class"
    ]
    items = root.select("ul.svc-basket-preview__list > li")
    assert [li["data-recipe-id"] for li in items] == [r["recipe_id"] for r in basket["recipes"]]
    by_id = {r["recipe_id"]: r for r in basket["recipes"]}
    for item in items:
        recipe = by_id[item["data-recipe-id"]]
        meta = item.find(class_="svc-basket-preview__meta").get_text(" ", strip=True)
        assert f"{recipe['guests']} pers." in meta and f"{len(recipe['lines'])} produit" in meta
        assert item.find("button", attrs={"data-action": "remove-recipe"})["aria-label"].startswith("Retirer")
    assert root.find(attrs={"data-role": "total"}).get_text(strip=True).endswith("€")
    assert root.find("a", class_="svc-basket-preview__cart")["href"] == f"{SHOP}/cart"
    assert root.find(class_="svc-basket-preview__title").get_text(strip=True) == "Mes repas"


def test_a_preview_row_counts_and_prices_what_the_store_sells(client, user):
    """Recipe 5 moved to store 1002, which does not sell its veal: the row says the 7 products the store sells and
    their price, as the drawer's "add the 7 products" does, not 8 products of which one is priced nothing."""
    hdrs = browser_headers(client, user=user)
    added = client.post("/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=hdrs)
    assert added.status_code == 200
    moved = client.get("/v1/basket", query_string={"store_id": "1002"}, headers=hdrs).get_json()
    (entry,) = moved["recipes"]
    sold = [line for line in entry["lines"] if line["available"]]
    assert 0 < len(sold) < len(entry["lines"])  # the store sells some of the recipe's products, not all
    root = page(client, "/v2/catalog/my-space/basket-preview", hdrs=headers(user=user), store_id="1002")
    (item,) = root.select("ul.svc-basket-preview__list > li")
    meta = item.find(class_="svc-basket-preview__meta").get_text(" ", strip=True)
    assert meta == f"4 pers. · {len(sold)} produits"
    price = sum(Decimal(str(line["price"])) for line in sold)
    assert (
        item.find(class_="svc-basket-preview__price").get_text(strip=True) == f"{price:.2f}".replace(".", ",") + "\xa0€"
    )
    # The summary counts the same products (the basket's `products` holds the veal too: the cart's content at the
    # store it was added at).
    assert len(moved["products"]) == len(entry["lines"])
    summary = root.find(attrs={"data-role": "summary"}).get_text(" ", strip=True)
    assert summary == f"1 recette · {len(sold)} produits", summary


@pytest.mark.parametrize("store_id", ["424242", "closed"])
def test_the_basket_preview_at_an_unknown_store_is_the_empty_basket(client, user, store_id, caplog):
    """The specification's "upstream 400 for an unknown point of sale during basket lookup: an empty basket is
    returned instead of an error", as GET /basket answers it; the shopper's basket is left where it is."""
    hdrs = browser_headers(client, user=user)
    added = client.post("/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": STORE}, headers=hdrs)
    assert added.status_code == 200
    root = page(client, "/v2/catalog/my-space/basket-preview", hdrs=headers(user=user), store_id=store_id)
    assert root.has_attr("unknown-store")  # the customer's server may drop its stale store
    assert not root.has_attr("store-id")  # the page's module asks again without it
    assert root.select("ul.svc-basket-preview__list > li") == []
    empty = root.find(attrs={"data-role": "empty"})
    assert empty is not None and not empty.has_attr("hidden")
    assert f"unknown store {store_id}" in caplog.text
    kept = client.get("/v1/basket", query_string={"store_id": STORE}, headers=hdrs).get_json()
    assert [r["recipe_id"] for r in kept["recipes"]] == ["5"]


def test_the_basket_preview_options(client, user):
    root = page(
        client,
        "/v2/catalog/my-space/basket-preview",
        hdrs=headers(user=user),
        title="Mes courses",
        show_tab_selector="true",
    )
    assert root.find(class_="svc-basket-preview__title").get_text(strip=True) == "Mes courses"
    tabs = root.find("nav", class_="svc-my-space__tabs")
    assert [a["href"] for a in tabs.find_all("a")] == [
        f"{SHOP}/idees/mon-espace?tab=favorites",
        f"{SHOP}/idees/mon-espace?tab=history",
    ]
    assert tabs.find(attrs={"aria-current": "page"}).get_text(strip=True) == "Mon panier"
    assert root.find(attrs={"data-role": "empty"}) is not None
    embedded = page(
        client, "/v2/catalog/my-space/basket-preview", hdrs=headers(user=user), embed="1", show_tab_selector="true"
    )
    assert "svc-basket-preview--embed" in embedded["class"]
    assert embedded.find(class_="svc-my-space__tabs") is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"embed": "sometimes"}, "embed"),
        ({"title": "x" * 121}, "title"),
        ({"title": "a\x07b"}, "title"),  # a control character: HTML may not carry it as text
        ({"show_tab_selector": "2"}, "show_tab_selector"),
    ],
)
def test_bad_basket_preview_parameters_are_400(client, query, field):
    answer = client.get("/v2/catalog/my-space/basket-preview", query_string=query, headers=headers())
    assert answer.status_code == 400
    assert field in answer.get_json()["errors"]["query"]


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/v1/catalog/favorites", {}),
        ("/v2/catalog/my-space", {"tab": "favorites"}),
        ("/v2/catalog/my-space", {"tab": "history"}),
        ("/v2/catalog/my-space/basket-preview", {}),
    ],
)
@pytest.mark.parametrize("user", ["space-outage-user", None], ids=["logged-in", "logged-out"])
def test_while_the_supplier_cannot_be_checked_the_page_says_it_is_unavailable(app_config, proxy, path, query, user):
    """The upstream does not answer the supplier lookup: a shopper's page says the recipes cannot be shown now, to
    try again, never "log in" (the shopper is logged in, and a login would change nothing), and is marked degraded.
    A logged-out visitor's favorites still ask for a login (they need one whatever the upstream does)."""
    client = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    proxy.faults["/api/v1/suppliers/me"] = status(503)
    hdrs = headers(user=user)  # logged out: an authless id
    answer = client.get(path, query_string={"store_id": STORE, **query}, headers=hdrs)
    assert answer.status_code == 200 and answer.headers["X-Degraded"] == "upstream"
    root = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-catalog")
    asks_login = root.find(attrs={"data-role": "login-required"}) is not None
    unavailable = root.find(attrs={"data-role": "failed"})
    favorites = path.endswith("favorites") or query.get("tab") == "favorites"
    if user is None and favorites:
        assert asks_login and unavailable is None
    else:
        assert not asks_login and unavailable is not None, root
        assert unavailable.get_text(strip=True).startswith("Les recettes ne peuvent pas être affichées")

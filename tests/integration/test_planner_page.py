"""The planner's current-menu page (GET /v2/planner/current-menu, GET /v2/planner) and its catalog panel
(GET /v2/planner/recipes) against the live coreapi, on both stacks: the menu the upstream creates or moves
(docs/upstream.md, "Menus"), the markup of the page (6 plate slots, the quick menu, the suggestions, products,
total and budget), who may call it (a customer's server, or a browser with its credential), its texts and its
fixed cost in upstream calls (README.md, "the current-menu page")."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask
from flask.testing import FlaskClient

from prerender import create_app
from prerender.gateway import get_upstream
from prerender.rendering.i18n import TextCatalog
from tests.problems import names

from .conftest import (
    RETAILER,
    as_browser,
    browser_headers,
    credential_in,
    fragment_headers,
    headers,
    record_upstream_calls,
)

FR = TextCatalog(overrides_dir=None).translator("fr")
EN = TextCatalog(overrides_dir=None).translator("en")
PAGE = "/v2/planner/current-menu"
RECIPES = "/v2/planner/recipes"
PLATES = 6
# The seed: store 1001 has the full assortment; recipe 5 (blanquette de veau) needs veal, which 1002 does not
# sell (README.md, "See each rule for yourself").
STORE, OTHER_STORE, NOT_AT_OTHER_STORE = "1001", "1002", "5"
MAIN_DISHES = [str(n) for n in range(25, 51)]  # 26 main dishes of the seed (coreapi/seed/data/recipes.json)
# Text groups of the specification the page shows (README.md).
SPEC_GROUPS = ("PLANNER_CURRENT_MENU", "PLANNER_RECIPE_LIST", "PLANNER_RECIPE_SUGGESTION", "PLANNER_QUICK_MENU")


# --- helpers --------------------------------------------------------------------------------------------


def unique(kind: str) -> str:
    """A shopper id of its own: menus persist in the stack's database for the whole session."""
    return f"planner-page-{kind}-{uuid.uuid4().hex[:12]}"


def visitor_headers(authless: str, *, token: str = RETAILER, language: str = "fr") -> dict[str, str]:
    """What a customer's server sends for a logged-out visitor."""
    return {**fragment_headers(None, token, authless), "language-id": language}


def user_headers(user: str, *, token: str | None = RETAILER, language: str = "fr") -> dict[str, str]:
    return headers(user=user, token=token, language=language)


def get_page(client: FlaskClient, hdrs: dict[str, str], path: str = PAGE, **query: str):
    return client.get(path, query_string=query, headers=hdrs)


def soup_of(response) -> BeautifulSoup:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/html"
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def page_of(client: FlaskClient, hdrs: dict[str, str], path: str = PAGE, **query: str) -> BeautifulSoup:
    return soup_of(get_page(client, hdrs, path, **query))


def root_of(soup: BeautifulSoup) -> Tag:
    root = soup.find("svc-planner")
    assert isinstance(root, Tag), "no <svc-planner> element"
    return root


def one(root: Tag, selector: str) -> Tag:
    found = root.select(selector)
    assert len(found) == 1, f"{selector}: {len(found)} elements"
    return found[0]


def text(tag: Tag) -> str:
    """The tag's text, ASCII white space collapsed (the no-break space of a French price kept)."""
    return re.sub(r"[ \t\n\r\f\v]+", " ", tag.get_text(" ", strip=True)).strip()


def menu_ids(soup: BeautifulSoup) -> list[str]:
    return [str(row["data-recipe-id"]) for row in soup.select(".svc-planner__menu-item")]


def suggestion_ids(soup: BeautifulSoup) -> list[str]:
    return [str(item["data-recipe-id"]) for item in soup.select("li.svc-planner__suggestion")]


def quick_slots(soup: BeautifulSoup) -> list[str]:
    """The quick menu's plates by kind: filled, empty or overflow (`+N`)."""
    kinds = []
    for slot in soup.select(".svc-quick-menu__slots > span.svc-quick-menu__slot"):
        (kind,) = [name.rsplit("--", 1)[1] for name in slot["class"] if name.startswith("svc-quick-menu__slot--")]
        kinds.append(kind if kind != "overflow" else text(slot))
    return kinds


def assert_problem(response, status: int) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    return response.get_json()


def menu_json(client: FlaskClient, browser: dict[str, str]) -> dict:
    """The shopper's menu as the browser routes answer it (no store_id: the menu stays where it is)."""
    answer = client.get("/v2/menu/current", headers=browser)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()


def add_recipes(client: FlaskClient, browser: dict[str, str], recipe_ids: Iterable[str]) -> dict:
    body: dict = {}
    for recipe_id in recipe_ids:
        answer = client.post("/v2/menu/current/recipes", json={"recipe_id": recipe_id}, headers=browser)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        body = answer.get_json()
    return body


def custom_menu(client: FlaskClient, user: str, recipe_ids: Iterable[str], *, store: str | None = STORE) -> dict:
    """A user's menu started from scratch by the page (at `store`), then the recipes added as the page's module
    does; the browser headers of that user."""
    query = {"mode": "custom", **({"store_id": store} if store else {})}
    soup = page_of(client, user_headers(user), **query)
    assert menu_ids(soup) == []
    browser = as_browser(credential_in(str(soup)), "fr", "it-session", {})
    add_recipes(client, browser, recipe_ids)
    return browser


def money(amount: object, t=FR) -> str:
    return t.money(Decimal(str(amount)))


def page_texts(soup: BeautifulSoup) -> str:
    """Everything a page says: its text and its attributes' values (aria-labels, data-* texts)."""
    values = [soup.get_text(" ")]
    for tag in soup.find_all(True):
        for value in tag.attrs.values():
            values.append(" ".join(value) if isinstance(value, list) else str(value))
    return "\n".join(values)


# --- a new visitor's page ----------------------------------------------------------------------------------


def test_a_new_visitors_page_is_the_menu_made_from_suggestions(client) -> None:
    authless = unique("visitor")
    response = get_page(client, visitor_headers(authless), store_id=STORE)
    assert response.headers["Cache-Control"].startswith("private")
    soup = soup_of(response)
    root = root_of(soup)
    assert root["class"] == ["svc-ds-scope", "svc-planner", "svc-planner--view-recipe"]
    assert (root["lang"], root["api-version"], root["view"], root["store-id"]) == ("fr", "v2", "recipe", STORE)
    assert root["guests"] == "4" and root["menu-id"] and root["cart-url"] == "http://127.0.0.1:8080/cart"
    assert not root.has_attr("unavailable")

    # The menu: created from the suggestions, up to 6 recipes; always 6 plates.
    rows = soup.select(".svc-planner__menu-item")
    assert 1 <= len(rows) <= PLATES and all(row["data-recipe-id"] for row in rows)
    slots = soup.select("li.svc-planner__menu-slot")
    assert len(rows) + len(slots) == max(PLATES, len(rows))
    assert text(one(root, ".svc-planner__menu-count")) == f"{len(rows)} " + FR(
        "PLANNER_RECIPE_LIST.MEAL_SINGULAR" if len(rows) == 1 else "PLANNER_RECIPE_LIST.MEAL_PLURAL"
    )
    assert not one(root, "button.svc-planner__finalize").has_attr("disabled")

    # The same menu as the browser's routes see it for that visitor.
    upstream_menu = menu_json(client, as_browser(credential_in(str(soup)), "fr", "it-session", {}))
    assert menu_ids(soup) == [r["id"] for r in upstream_menu["recipes"]]
    assert root["menu-id"] == upstream_menu["id"]

    # The rows' buttons are named with their recipe, as French writes a colon.
    first = rows[0]
    title = text(one(first, "button[data-action=see-recipe]"))
    see = FR("PLANNER_RECIPE_SUGGESTION.SEE_RECIPE")
    assert one(first, "button[data-action=see-recipe]")["aria-label"] == f"{see}\u00a0: {title}"
    swap = FR("PLANNER_RECIPE_SUGGESTION.SWAP")
    assert one(first, "button[data-action=swap]").get_text(strip=True) == f"{swap}\u00a0: {title}"

    # The quick menu: 6 plates, a filled one per recipe.
    assert quick_slots(soup) == ["filled"] * len(rows) + ["empty"] * (PLATES - len(rows))

    # The suggestions panel leaves out the menu's recipes.
    suggestions = suggestion_ids(soup)
    assert suggestions and not set(suggestions) & set(menu_ids(soup))
    assert text(one(root, "[data-role=panel-title]")) == FR("PLANNER_RECIPE_SUGGESTION.OUR_SUGGESTIONS")
    assert one(root, "[data-role=panel-title]").name == "h3"
    for item in soup.select("li.svc-planner__suggestion"):
        assert item.select_one("[data-action=add]") and item.select_one("[data-action=see-recipe]")
        # A card's title comes under the panel's (a headings list read both at one level).
        assert one(item, ".svc-recipe-card__title").name == "h4"
        # Recipes go to the menu here, not to the basket: no basket button, no heart.
        assert not item.select(".svc-recipe-card-cta, .svc-like-button, svc-like-button")
        assert item.select_one(".svc-recipe-pricing"), "priced at the store"

    # Prices with a store: the total, and each recipe's products with a checkbox.
    assert text(one(root, ".svc-planner__total-amount")) == money(upstream_menu["total"])
    products = soup.select(".svc-planner__product")
    assert products and len(products) == sum(len(r["products"]) for r in upstream_menu["recipes"])
    for product in products:
        box = one(product, "input.svc-planner__product-check[type=checkbox]")
        assert box.has_attr("checked") and box["data-product-id"]
        assert "svc-planner__product--unselected" not in product["class"]

    # The budget: its form, no gauge while it is null.
    assert upstream_menu["budget"] is None
    budget = one(root, ".svc-planner__budget")
    one(budget, "[data-role=budget-form][data-svc-form]")
    assert budget.select("[data-role=budget-gauge]") == [] and not budget.has_attr("style")
    assert root.select("[data-role=no-store]") == [] and root.select("[data-role=removed]") == []

    # The onboarding modal (hidden), the modules, then the visitor's credential, last.
    modal = soup.find("svc-planner-onboarding")
    assert isinstance(modal, Tag) and modal.has_attr("hidden") and modal["id"] == root["onboarding"]
    assert one(root, "[data-action=help]")["aria-controls"] == modal["id"]
    scripts = [str(script["src"]).split("/", 4)[-1] for script in soup.find_all("script")]
    assert all(script["type"] == "module" for script in soup.find_all("script"))
    assert [src.split("/", 1)[1] for src in scripts] == [
        "sdk/svc.js",
        "components/recipe-card.js",
        "components/planner-onboarding.js",
        "components/planner.js",
    ]
    elements = [child for child in soup.children if isinstance(child, Tag)]
    assert [child.name for child in elements][:2] == ["svc-planner", "svc-planner-onboarding"]
    shopper = elements[-1]
    assert shopper.name == "svc-shopper" and shopper["kind"] == "authless" and shopper["shopper-id"] == authless


def test_the_modules_of_the_page_are_served(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor")), store_id=STORE)
    for script in soup.find_all("script"):
        path = "/" + str(script["src"]).split("/", 3)[3]
        module = client.get(path)
        assert module.status_code == 200 and "javascript" in module.mimetype, path


def test_the_menu_view_for_phones(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor")), store_id=STORE, view="menu")
    root = root_of(soup)
    assert root["class"] == ["svc-ds-scope", "svc-planner", "svc-planner--view-menu"] and root["view"] == "menu"
    # The catalog form keeps the view without JavaScript. It is in a <noscript> (no form of ours inside a host page's
    # form where scripts run), and the search and the type chips name it.
    form = one(root, "noscript.svc-ds-form-holder > form[data-role=catalog-form]")
    assert one(form, "input[name=view]")["value"] == "menu"
    controls = root.select("[role=search] input[name=search], [role=search] button[type=submit]")
    assert len(controls) > 2 and {control["form"] for control in controls} == {form["id"]}
    assert root.select("form:not(noscript > form)") == []


def test_the_guests_of_a_new_menu(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor")), store_id=STORE, guests="3")
    assert root_of(soup)["guests"] == "3"
    assert {row["data-guests"] for row in soup.select(".svc-planner__menu-item")} == {"3"}


def test_a_new_menu_is_for_the_guests_the_shopper_prefers(client) -> None:
    """The "default number of people" a shopper saved (the catalog's preferences) makes its first menu, from the
    suggestions or from scratch; the guests the page names still win."""
    for kind, query, guests in (
        ("prefers", {}, "2"),
        ("custom", {"mode": "custom"}, "2"),
        ("names", {"guests": "5"}, "5"),
    ):
        user = unique(kind)
        saved = client.put("/v2/preferences", json={"guests": 2}, headers=browser_headers(client, user=user))
        assert saved.status_code == 200, saved.get_data(as_text=True)
        soup = page_of(client, user_headers(user), store_id=STORE, **query)
        assert root_of(soup)["guests"] == guests
        assert {row["data-guests"] for row in soup.select(".svc-planner__menu-item")} <= {guests}


# --- modes ------------------------------------------------------------------------------------------------


def test_the_custom_mode_starts_an_empty_menu_and_only_counts_at_creation(client) -> None:
    hdrs = visitor_headers(unique("visitor"))
    soup = page_of(client, hdrs, store_id=STORE, mode="custom")
    root = root_of(soup)
    assert root["mode"] == "custom"
    assert menu_ids(soup) == [] and len(soup.select("li.svc-planner__menu-slot")) == PLATES
    assert quick_slots(soup) == ["empty"] * PLATES
    assert one(root, "button.svc-planner__finalize").has_attr("disabled")
    assert text(one(root, ".svc-planner__menu-count")) == "0 " + FR("PLANNER_RECIPE_LIST.MEAL_PLURAL")
    assert suggestion_ids(soup)  # the panel still suggests recipes to add

    again = page_of(client, hdrs, store_id=STORE, mode="selection", guests="2")
    assert root_of(again)["menu-id"] == root["menu-id"] and menu_ids(again) == []
    assert root_of(again)["guests"] == "4"  # guests, like the mode, only count at creation


def test_the_landing_route_is_the_same_page(client) -> None:
    hdrs = visitor_headers(unique("visitor"))
    current = page_of(client, hdrs, store_id=STORE)
    landing = page_of(client, hdrs, "/v2/planner", store_id=STORE)
    assert root_of(landing)["menu-id"] == root_of(current)["menu-id"]
    assert menu_ids(landing) == menu_ids(current) and menu_ids(landing)
    assert root_of(landing)["class"] == root_of(current)["class"]


@pytest.mark.parametrize("path", [PAGE, "/v2/planner"])
def test_a_head_makes_no_menu(app: Flask, client, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """Both pages make the shopper's menu (or move it to `store_id`), so a HEAD, which link checkers and monitors
    send, is refused rather than run as the GET (prerender/web/routing.py): nothing reaches the menu service."""
    hdrs = user_headers(unique("user"))
    calls = record_upstream_calls(app, monkeypatch)
    head = client.head(path, query_string={"store_id": STORE}, headers=hdrs)
    assert head.status_code == 405 and sorted(head.headers["Allow"].split(", ")) == ["GET", "OPTIONS"]
    assert not [call for call in calls if "/menus" in call[1]], calls
    assert get_page(client, hdrs, path, store_id=STORE).status_code == 200
    assert [call for call in calls if "/menus" in call[1]]  # the GET makes (or reads) the menu


def test_the_page_and_the_catalog_are_v2_only(client) -> None:
    hdrs = visitor_headers(unique("visitor"))
    for path in ("/v1/planner/current-menu", "/v1/planner"):
        assert get_page(client, hdrs, path, store_id=STORE).status_code == 404, path
    browser = browser_headers(client, user=unique("user"))
    assert client.get("/v1/planner/recipes?recipe_type_id=dessert", headers=browser).status_code == 404


@pytest.mark.parametrize(
    ("environment", "token", "cart"),
    [
        ("local", RETAILER, "http://127.0.0.1:8080/cart"),
        ("local", "demo-publisher-token", "http://127.0.0.1:8090/cart"),
        ("production", RETAILER, "https://shop.example/panier"),
        # No retailer cart nor catalog home in that routing: the customer's base URL.
        ("production", "demo-nopers-token", "https://shop.example/"),
    ],
)
def test_finalize_leads_to_the_retailer_cart_of_the_routing(
    app_config: dict, environment: str, token: str, cart: str
) -> None:
    """The seed's routings (coreapi/seed/data/suppliers.json)."""
    client = create_app({**app_config, "ENVIRONMENT": environment}).test_client()
    soup = page_of(client, visitor_headers(unique("visitor"), token=token), store_id=STORE, mode="custom")
    assert root_of(soup)["cart-url"] == cart


# --- stores ------------------------------------------------------------------------------------------------


def test_a_menu_opened_at_another_store_moves_there_and_says_what_left(client) -> None:
    user = unique("user")
    kept = "3"  # ratatouille: available at both stores
    browser = custom_menu(client, user, [kept, NOT_AT_OTHER_STORE])
    before = page_of(client, user_headers(user), store_id=STORE)
    assert root_of(before)["store-id"] == STORE and menu_ids(before) == [kept, NOT_AT_OTHER_STORE]

    moved = page_of(client, user_headers(user), store_id=OTHER_STORE)
    root = root_of(moved)
    assert root["store-id"] == OTHER_STORE and root["menu-id"] == root_of(before)["menu-id"]
    assert menu_ids(moved) == [kept]
    notice = one(root, "[data-role=removed]")
    assert text(notice) == FR("PLANNER_PAGE.REMOVED_AT_STORE", count=1)
    assert text(notice) == "1 recette retirée du menu\u00a0: indisponible dans ce magasin."  # French plural, one
    assert menu_json(client, browser)["store_id"] == OTHER_STORE

    # The move happened once: the next page at that store says nothing more.
    again = page_of(client, user_headers(user), store_id=OTHER_STORE)
    assert root_of(again).select("[data-role=removed]") == [] and menu_ids(again) == [kept]


def test_without_a_store_no_products_prices_nor_budget(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor")))
    root = root_of(soup)
    assert not root.has_attr("store-id")
    assert menu_ids(soup), "the menu is still made from the suggestions"
    assert soup.select(".svc-planner__product") == [] and soup.select(".svc-planner__products") == []
    assert soup.select(".svc-planner__total, .svc-planner__total-amount, .svc-planner__menu-item-price") == []
    assert soup.select(".svc-planner__budget, [data-role=budget-form], [data-role=budget-gauge]") == []
    assert text(one(root, "[data-role=no-store]")) == FR("PLANNER_PAGE.NO_STORE")
    # The suggestion cards carry no price either.
    assert soup.select("li.svc-planner__suggestion") and not soup.select(
        "li.svc-planner__suggestion .svc-recipe-pricing"
    )


def test_without_a_store_a_menu_priced_elsewhere_shows_no_products_prices_nor_budget(client) -> None:
    """The menu keeps the store it was last priced at (with a budget): a page asked without `store_id` used to
    show that store's products, prices and budget; without a point of sale it shows none."""
    user = unique("user")
    browser = custom_menu(client, user, ["3", "4"])
    assert client.patch("/v2/menu/current", json={"budget": 80}, headers=browser).status_code == 200
    priced = menu_json(client, browser)
    assert priced["store_id"] == STORE and priced["total"] and priced["budget"] == 80
    at_store = page_of(client, user_headers(user), store_id=STORE)
    assert at_store.select(".svc-planner__product") and at_store.select(".svc-planner__budget")

    soup = page_of(client, user_headers(user))
    root = root_of(soup)
    assert menu_ids(soup) == ["3", "4"], "the recipes stay"
    assert not root.has_attr("store-id") and soup.select("input[name=store_id]") == []
    assert soup.select(".svc-planner__product, .svc-planner__products, .svc-planner__product-price") == []
    assert soup.select(".svc-planner__total, .svc-planner__total-amount, .svc-planner__menu-item-price") == []
    assert soup.select(".svc-planner__budget, [data-role=budget-form], [data-role=budget-gauge]") == []
    assert text(one(root, "[data-role=no-store]")) == FR("PLANNER_PAGE.NO_STORE")
    assert "€" not in root.get_text(), "no price anywhere on the page"
    assert soup.select("li.svc-planner__suggestion") and not soup.select(
        "li.svc-planner__suggestion .svc-recipe-pricing"
    )


def test_an_unknown_store_is_a_400_problem(client) -> None:
    response = get_page(client, visitor_headers(unique("visitor")), store_id="424242")
    assert_problem(response, 400)


# --- budget, recipes, products -------------------------------------------------------------------------------


def budget_of(soup: BeautifulSoup) -> Tag:
    return one(root_of(soup), ".svc-planner__budget")


def test_a_budget_shows_its_gauge(client) -> None:
    user = unique("user")
    browser = custom_menu(client, user, ["3", "4"])
    total = Decimal(str(menu_json(client, browser)["total"]))
    assert total > 0

    above = (total * 2).quantize(Decimal("0.01"))
    assert client.patch("/v2/menu/current", json={"budget": float(above)}, headers=browser).status_code == 200
    budget = budget_of(page_of(client, user_headers(user), store_id=STORE))
    assert "svc-planner__budget--over" not in budget["class"]
    assert budget.select("[data-role=budget-over]") == []
    assert not budget.has_attr("style")  # no inline style: a host page's strict style-src would block it
    # The gauge's fill in whole percent (rounded down from the ratio rounded to thousandths).
    assert int(str(budget["data-budget-percent"])) == pytest.approx(float(total / above * 100), abs=1)
    gauge = one(budget, "[data-role=budget-gauge]")
    assert text(one(gauge, ".svc-planner__budget-value")) == FR(
        "PLANNER_PAGE.BUDGET_OF", total=money(total), budget=money(above)
    )
    # The field writes the amount as the page's language does, as the gauge beside it does (no "40.00" there).
    field = one(budget, "input.svc-planner__budget-input")
    assert field["value"] == f"{above:.2f}".replace(".", ",")
    assert field["type"] == "text" and field["inputmode"] == "decimal"
    assert money(above).startswith(field["value"])

    below = (total / 2).quantize(Decimal("0.01"))
    client.patch("/v2/menu/current", json={"budget": float(below)}, headers=browser)
    budget = budget_of(page_of(client, user_headers(user), store_id=STORE))
    assert "svc-planner__budget--over" in budget["class"]
    assert budget["data-budget-percent"] == "100"  # full when over
    # Over budget in words, not by the colour alone.
    assert text(one(budget, "[data-role=budget-over]")) == FR("PLANNER_PAGE.BUDGET_OVER", amount=money(total - below))

    client.patch("/v2/menu/current", json={"budget": 0}, headers=browser)
    budget = budget_of(page_of(client, user_headers(user), store_id=STORE))
    assert budget.select("[data-role=budget-gauge]") == [] and not budget.has_attr("style")
    assert "svc-planner__budget--over" not in budget["class"]
    one(budget, "[data-role=budget-form][data-svc-form]")


def test_more_than_six_recipes_fill_every_plate_and_overflow_the_quick_menu(client) -> None:
    user = unique("user")
    custom_menu(client, user, MAIN_DISHES[:8])
    soup = page_of(client, user_headers(user), store_id=STORE)
    assert menu_ids(soup) == MAIN_DISHES[:8]
    assert soup.select("li.svc-planner__menu-slot") == []
    assert quick_slots(soup) == ["filled"] * 5 + ["+3"]
    assert text(one(root_of(soup), ".svc-quick-menu__count")) == "8 " + FR("PLANNER_RECIPE_LIST.MEAL_PLURAL")


def test_six_recipes_fill_the_six_plates_without_overflow(client) -> None:
    user = unique("user")
    custom_menu(client, user, MAIN_DISHES[:6])
    soup = page_of(client, user_headers(user), store_id=STORE)
    assert len(menu_ids(soup)) == 6 and soup.select("li.svc-planner__menu-slot") == []
    assert quick_slots(soup) == ["filled"] * 6


def test_a_full_menu_of_twenty_recipes(client) -> None:
    user = unique("user")
    browser = custom_menu(client, user, MAIN_DISHES[:20])
    full = client.post("/v2/menu/current/recipes", json={"recipe_id": MAIN_DISHES[20]}, headers=browser)
    assert assert_problem(full, 409).get("reason") == "menu-full"
    soup = page_of(client, user_headers(user), store_id=STORE)
    assert menu_ids(soup) == MAIN_DISHES[:20] and quick_slots(soup) == ["filled"] * 5 + ["+15"]
    assert suggestion_ids(soup) and not set(suggestion_ids(soup)) & set(MAIN_DISHES[:20])


def test_an_unselected_product_is_unchecked_and_leaves_the_total(client) -> None:
    user = unique("user")
    browser = custom_menu(client, user, ["3", "4"])
    before_menu = menu_json(client, browser)
    recipe = before_menu["recipes"][0]
    product = recipe["products"][0]
    before = page_of(client, user_headers(user), store_id=STORE)
    assert text(one(root_of(before), ".svc-planner__total-amount")) == money(before_menu["total"])

    answer = client.delete(f"/v2/menu/current/recipes/{recipe['id']}/products/{product['id']}", headers=browser)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    after_menu = answer.get_json()
    assert after_menu["total"] < before_menu["total"]

    after = page_of(client, user_headers(user), store_id=STORE)
    row = one(root_of(after), f".svc-planner__menu-item[data-recipe-id='{recipe['id']}']")
    box = one(row, f"input[data-product-id='{product['id']}']")
    assert not box.has_attr("checked")
    line = box.find_parent("li")
    assert isinstance(line, Tag) and "svc-planner__product--unselected" in line["class"]
    # The others are still checked, the total and the recipe's price are those of the selected products.
    assert all(b.has_attr("checked") for b in after.select("input.svc-planner__product-check") if b is not box)
    assert text(one(root_of(after), ".svc-planner__total-amount")) == money(after_menu["total"])
    selected = sum(Decimal(str(p["price"])) for p in recipe["products"] if p["id"] != product["id"])
    assert text(one(row, ".svc-planner__menu-item-price")) == money(selected)
    count = len(recipe["products"])
    meta = text(one(row, ".svc-planner__menu-item-meta"))
    assert FR("PLANNER_PAGE.PRODUCTS_SELECTED", selected=count - 1, count=count) in meta


# --- callers --------------------------------------------------------------------------------------------------


def test_a_browser_opens_its_page_with_its_credential(client) -> None:
    authless = unique("visitor")
    from_server = page_of(client, visitor_headers(authless), store_id=STORE)
    browser = as_browser(credential_in(str(from_server)), "fr", "it-session", {})
    from_browser = page_of(client, browser, store_id=STORE)
    assert root_of(from_browser)["menu-id"] == root_of(from_server)["menu-id"]
    assert menu_ids(from_browser) == menu_ids(from_server)
    assert suggestion_ids(from_browser)
    # The browser holds its credential already: no server vouched here, so the page brings none.
    assert from_browser.find("svc-shopper") is None

    # panel=false: the module's refresh of the menu, without the panel's recipes.
    refreshed = page_of(client, browser, store_id=STORE, panel="false")
    assert menu_ids(refreshed) == menu_ids(from_server)
    assert one(root_of(refreshed), "[data-role=panel-items]").find_all("li") == []


def test_a_browsers_credential_wins_over_a_claimed_identity(client) -> None:
    mine, theirs = unique("visitor"), unique("visitor")
    their_page = page_of(client, visitor_headers(theirs), store_id=STORE, mode="custom")
    my_page = page_of(client, visitor_headers(mine), store_id=STORE)
    browser = {**as_browser(credential_in(str(my_page)), "fr", "it-session", {}), "authless-id": theirs}
    soup = page_of(client, browser, store_id=STORE)
    assert root_of(soup)["menu-id"] == root_of(my_page)["menu-id"] != root_of(their_page)["menu-id"]


def test_a_forged_credential_is_a_401(client) -> None:
    forged = {**browser_headers(client, user=unique("user")), "authorization": "Bearer made.up.credential"}
    response = get_page(client, forged, store_id=STORE)
    assert_problem(response, 401)
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def unavailable(soup: BeautifulSoup, t=FR) -> Tag:
    root = root_of(soup)
    assert root.has_attr("unavailable")
    assert text(one(root, "[data-role=unavailable]")) == t("PLANNER_ENTRY.UNAVAILABLE")
    assert soup.select(".svc-planner__menu, .svc-planner__menu-item, .svc-planner__suggestion") == []
    assert soup.select(".svc-quick-menu, .svc-planner__budget, [data-role=no-store]") == []
    assert not root.has_attr("menu-id") and not root.has_attr("cart-url")
    assert soup.find("svc-shopper") is None
    return root


@pytest.mark.parametrize("token", [None, "not-a-supplier-token"], ids=["no-token", "unknown-token"])
def test_without_a_known_supplier_the_page_says_the_planner_is_unavailable(
    app, client, monkeypatch, token: str | None
) -> None:
    """A bare claim (an identity header without a valid supplier-token) reaches no menu."""
    calls = record_upstream_calls(app, monkeypatch)
    response = get_page(client, user_headers(unique("user"), token=token, language="en"), store_id=STORE)
    assert response.headers["Cache-Control"].startswith("private")
    root = unavailable(soup_of(response), EN)
    assert root["lang"] == "en"
    assert [path for _, path, _ in calls if "/menus" in path or "/recipes" in path] == []
    # The help and its modal still work.
    assert soup_of(get_page(client, visitor_headers(unique("visitor"), token=token or ""))).find(
        "svc-planner-onboarding"
    )


# An upstream that fails (down, hung, 5xx, malformed, circuit open): tests/integration/test_planner_degrades.py.


@pytest.mark.usefixtures("one_credential_step")
def test_the_page_revalidates(client) -> None:
    hdrs = visitor_headers(unique("visitor"))
    first = get_page(client, hdrs, store_id=STORE)
    assert first.status_code == 200 and first.headers["ETag"]
    again = get_page(client, {**hdrs, "If-None-Match": first.headers["ETag"]}, store_id=STORE)
    assert again.status_code == 304 and again.headers["Cache-Control"].startswith("private")
    # Once the menu changed, the page is new.
    browser = as_browser(credential_in(first.get_data(as_text=True)), "fr", "it-session", {})
    client.delete(f"/v2/menu/current/recipes/{menu_ids(soup_of(first))[0]}", headers=browser)
    changed = get_page(client, {**hdrs, "If-None-Match": first.headers["ETag"]}, store_id=STORE)
    assert changed.status_code == 200 and changed.headers["ETag"] != first.headers["ETag"]


# --- the catalog panel ---------------------------------------------------------------------------------------


def catalog(client: FlaskClient, browser: dict[str, str], **query: str):
    return client.get(RECIPES, query_string=query, headers=browser)


def items_of(response) -> list[Tag]:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/html" and response.headers["Cache-Control"].startswith("private")
    return BeautifulSoup(response.get_data(as_text=True), "html.parser").select("li.svc-planner__suggestion")


def test_the_catalog_filters_by_type_and_pages(client, upstream) -> None:
    browser = browser_headers(client, user=unique("user"))
    desserts = {r["id"] for r in upstream.get("/recipes", type="dessert", store_id=STORE, per_page=100)["data"]}
    assert len(desserts) > 12, "the seed has more than two pages of desserts"
    seen: list[str] = []
    page = 1
    while True:
        response = catalog(client, browser, recipe_type_id="dessert", store_id=STORE, page=str(page))
        items = items_of(response)
        assert 1 <= len(items) <= 6 and {item["data-recipe-type"] for item in items} == {"dessert"}
        seen += [str(item["data-recipe-id"]) for item in items]
        if response.headers["X-Has-More"] == "false":
            break
        assert response.headers["X-Has-More"] == "true" and len(items) == 6
        page += 1
    assert len(seen) == len(set(seen)) and set(seen) == desserts
    # Each item is a card with the planner's actions and no basket button.
    item = items_of(catalog(client, browser, recipe_type_id="dessert", store_id=STORE))[0]
    assert item.select_one("[data-action=add]") and item.select_one("[data-action=see-recipe]")
    assert item.select_one(".svc-recipe-pricing"), "priced at the store"


def test_the_catalog_takes_several_types(client) -> None:
    browser = browser_headers(client, user=unique("user"))
    items = items_of(catalog(client, browser, recipe_type_id="drink,starter", page="1"))
    assert {item["data-recipe-type"] for item in items} <= {"drink", "starter"} and items


def test_the_catalog_searches_and_leaves_out_the_menus_recipes(client, upstream) -> None:
    browser = browser_headers(client, user=unique("user"))
    expected = {r["id"] for r in upstream.get("/recipes", q="chocolat", store_id=STORE, per_page=100)["data"]}
    assert {"10", "54"} <= expected  # mousse au chocolat, fondant au chocolat
    found = {str(i["data-recipe-id"]) for i in items_of(catalog(client, browser, search="chocolat", store_id=STORE))}
    assert found == expected or (len(found) == 6 and found <= expected)
    assert "Mousse au chocolat" in " ".join(
        text(i) for i in items_of(catalog(client, browser, search="  Chocolat ", store_id=STORE))
    )
    left = items_of(catalog(client, browser, search="chocolat", store_id=STORE, exclude_ids="10,54"))
    assert not {"10", "54"} & {str(i["data-recipe-id"]) for i in left}
    none = catalog(client, browser, search="zzzz-no-such-recipe")
    assert items_of(none) == [] and none.headers["X-Has-More"] == "false"


def test_the_panels_own_recipes_are_drawn_again_for_new_guests(client) -> None:
    """After a guest change the page asks for the cards it shows again, by id (`recipe_ids`): the same recipes in
    the same order, each the card the catalog draws for those guests; an unknown recipe, or one the store does not
    show, is left out."""
    browser = browser_headers(client, user=unique("user"))
    desserts = items_of(catalog(client, browser, recipe_type_id="dessert", store_id=STORE, guests="6"))
    wanted = [str(item["data-recipe-id"]) for item in reversed(desserts)]
    response = catalog(client, browser, recipe_ids=",".join([*wanted, "999999"]), store_id=STORE, guests="6")
    assert response.headers["X-Has-More"] == "false"
    again = items_of(response)
    assert [str(item["data-recipe-id"]) for item in again] == wanted
    assert [str(item) for item in again] == [str(item) for item in reversed(desserts)]
    card = again[0].select_one(".svc-recipe-card")
    assert card is not None and card["guests"] == "6"
    assert text(card.select_one(".svc-recipe-card__guests")) == "6 pers."
    # Recipe 5 needs veal, which the other store does not sell: it is not shown there.
    at_other = items_of(catalog(client, browser, recipe_ids=f"{NOT_AT_OTHER_STORE},10", store_id=OTHER_STORE))
    assert [str(item["data-recipe-id"]) for item in at_other] == ["10"]


def test_the_browser_may_read_whether_there_is_more(client) -> None:
    """The panel's module reads X-Has-More from another origin (the customer's page): CORS exposes it."""
    browser = {**browser_headers(client, user=unique("user")), "Origin": "http://localhost:8080"}
    response = catalog(client, browser, recipe_type_id="dessert")
    assert response.status_code == 200 and response.headers["Access-Control-Allow-Origin"] == "http://localhost:8080"
    exposed = {name.strip().lower() for name in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert "x-has-more" in exposed


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({}, "_schema"),
        ({"search": "   "}, "_schema"),
        ({"recipe_type_id": "soup"}, "recipe_type_id"),
        ({"recipe_type_id": "dessert", "page": "0"}, "page"),
        ({"search": "x" * 101}, "search"),
        ({"recipe_type_id": "dessert", "store_id": "../1001"}, "store_id"),
        ({"recipe_type_id": "dessert", "guests": "0"}, "guests"),
        ({"recipe_ids": "10", "recipe_type_id": "dessert"}, "recipe_ids"),
        ({"recipe_ids": "10", "search": "chocolat"}, "recipe_ids"),
        ({"recipe_ids": "10", "page": "2"}, "recipe_ids"),
        ({"recipe_ids": "10", "exclude_ids": "54"}, "recipe_ids"),
        ({"recipe_ids": ",".join(str(n) for n in range(1, 102))}, "recipe_ids"),
        ({"recipe_ids": "10,../54"}, "recipe_ids"),
    ],
)
def test_the_catalogs_query_is_checked(client, query: dict[str, str], field: str) -> None:
    problem = assert_problem(catalog(client, browser_headers(client, user=unique("user")), **query), 400)
    assert names(problem["errors"]["query"], field), problem


def test_the_catalog_is_the_browsers(client) -> None:
    for hdrs in (user_headers(unique("user")), visitor_headers(unique("visitor"))):
        response = catalog(client, hdrs, recipe_type_id="dessert")
        assert_problem(response, 401)
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_unknown_store_in_the_catalog_is_a_400(client) -> None:
    browser = browser_headers(client, user=unique("user"))
    assert_problem(catalog(client, browser, recipe_type_id="dessert", store_id="424242"), 400)


# --- the page's query ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"view": "grid"}, "view"),
        ({"mode": "auto"}, "mode"),
        ({"guests": "0"}, "guests"),
        ({"guests": "51"}, "guests"),
        ({"guests": "many"}, "guests"),
        ({"store_id": "../1001"}, "store_id"),
        ({"recipe_type_id": "soup"}, "recipe_type_id"),
        ({"page": "0"}, "page"),
        ({"search": "x" * 101}, "search"),
        ({"panel": "maybe"}, "panel"),
    ],
)
def test_the_pages_query_is_checked(client, query: dict[str, str], field: str) -> None:
    response = get_page(client, visitor_headers(unique("visitor")), **query)
    assert names(assert_problem(response, 400)["errors"]["query"], field)


def test_the_page_opens_the_catalog_without_javascript(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor")), store_id=STORE, recipe_type_id="dessert")
    root = root_of(soup)
    assert text(one(root, "[data-role=panel-title]")) == FR("PLANNER_RECIPE_LIST.CHOOSE_FROM_RECIPES")
    items = soup.select("li.svc-planner__suggestion")
    assert items and {item["data-recipe-type"] for item in items} == {"dessert"}
    pressed = {str(b["value"]): b["aria-pressed"] for b in root.select("button[data-action=filter]")}
    assert pressed == {"main-dish": "false", "starter": "false", "dessert": "true", "drink": "false"}
    assert not one(root, "[data-action=more]").has_attr("hidden")  # more desserts than a page
    assert not one(root, "[data-action=suggestions]").has_attr("hidden")


def test_the_pages_catalog_leaves_out_the_menus_recipes(client) -> None:
    user = unique("user")
    custom_menu(client, user, MAIN_DISHES[:4])
    soup = page_of(client, user_headers(user), store_id=STORE, recipe_type_id="main-dish")
    items = suggestion_ids(soup)
    assert items and not set(items) & set(MAIN_DISHES[:4])
    assert {item["data-recipe-type"] for item in soup.select("li.svc-planner__suggestion")} == {"main-dish"}


def test_the_search_is_echoed_escaped(client) -> None:
    hostile = '"><script>alert(1)</script>'
    soup = page_of(client, visitor_headers(unique("visitor")), store_id=STORE, search=hostile)
    field = one(root_of(soup), "input[name=search].svc-planner__search-input")
    assert field["value"] == hostile and soup.find("script", src=False) is None
    # The views form carries it to the other view, escaped the same (templates/planner/current_menu.html).
    assert one(root_of(soup), "[data-role=views-form] input[name=search]")["value"] == hostile
    assert text(one(root_of(soup), "[data-role=panel-empty]")) == FR("PLANNER_PAGE.NO_RESULTS")


# --- texts ---------------------------------------------------------------------------------------------------------


def test_every_text_of_the_specifications_groups_is_on_the_page(client) -> None:
    soup = page_of(client, visitor_headers(unique("visitor"), language="en"), store_id=STORE)
    assert root_of(soup)["lang"] == "en" and len(menu_ids(soup)) > 1 and suggestion_ids(soup)
    said = page_texts(soup)
    base = json.loads((Path(__file__).resolve().parents[2] / "prerender/i18n/en.json").read_text(encoding="utf-8"))
    missing = [
        f"{group}.{key}"
        for group in SPEC_GROUPS
        for key in base[group]
        if key != "MEAL_SINGULAR" and EN(f"{group}.{key}") not in said
    ]
    assert not missing, f"texts not on the page: {missing}"
    assert text(one(root_of(soup), ".svc-planner__menu-count")).endswith(EN("PLANNER_RECIPE_LIST.MEAL_PLURAL"))

    # The singular, with a menu of one recipe.
    user = unique("user")
    custom_menu(client, user, ["3"])
    single = page_of(client, user_headers(user, language="en"), store_id=STORE)
    assert text(one(root_of(single), ".svc-planner__menu-count")) == "1 " + EN("PLANNER_RECIPE_LIST.MEAL_SINGULAR")


def test_a_retailer_override_applies_to_the_page(app_config: dict, tmp_path: Path) -> None:
    (tmp_path / "en-demo.json").write_text(
        json.dumps(
            {
                "PLANNER_CURRENT_MENU": {"ADD_MENU": "Send it all to my cart"},
                "PLANNER_QUICK_MENU": {"SEE_MENU": "My week"},
                "PLANNER_PAGE": {"TITLE": "Dinner plans"},
            }
        ),
        encoding="utf-8",
    )
    client = create_app({**app_config, "I18N_OVERRIDES_DIR": str(tmp_path)}).test_client()
    soup = page_of(client, visitor_headers(unique("visitor"), language="en-demo"), store_id=STORE)
    root = root_of(soup)
    assert root["lang"] == "en"
    assert text(one(root, "button.svc-planner__finalize")) == "Send it all to my cart"
    assert text(one(root, ".svc-quick-menu__see-menu")) == "My week"
    assert text(one(root, ".svc-planner__title")) == "Dinner plans"
    # The other keys keep the base texts.
    assert text(one(root, "[data-role=panel-title]")) == EN("PLANNER_RECIPE_SUGGESTION.OUR_SUGGESTIONS")


# --- cost ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("panel", "panel_call"),
    [({}, "/api/v1/menus/current/suggestions"), ({"recipe_type_id": "main-dish"}, "/api/v1/recipes")],
    ids=["suggestions", "catalog"],
)
def test_the_page_costs_the_same_upstream_calls_for_1_or_12_recipes(
    app: Flask, client, monkeypatch, panel: dict[str, str], panel_call: str
) -> None:
    small, large = unique("user"), unique("user")
    custom_menu(client, small, MAIN_DISHES[:1])
    custom_menu(client, large, MAIN_DISHES[:12])
    calls = record_upstream_calls(app, monkeypatch)
    counts: dict[str, list[str]] = {}
    for user in (small, large):
        with app.app_context():  # each page with a cold cache
            get_upstream().recipes.cache.clear()
        calls.clear()
        soup = page_of(client, user_headers(user), store_id=STORE, **panel)
        assert len(menu_ids(soup)) == (1 if user == small else 12) and suggestion_ids(soup)
        counts[user] = sorted(path for _, path, _ in calls)
    assert counts[small] == counts[large], counts
    # The supplier (cold cache), then the three of the page: the menu, the panel's recipes, their cards.
    assert counts[large] == sorted(
        ["/api/v1/suppliers/me", "/api/v1/menus/current", panel_call, "/api/v1/recipes/batch"]
    ), counts[large]

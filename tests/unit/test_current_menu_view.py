"""The current-menu page's view model (prerender/rendering/current_menu.py): the quick menu's plates, the budget
and its gauge, a menu recipe's price (its selected products only), where finalize leads, and the page's markup
rendered from a view model (escaping, plates, overflow, budget gauge, the unavailable page)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask

import prerender
from prerender.gateway import Routing, Supplier
from prerender.rendering.current_menu import (
    EMPTY_PANEL,
    PLATE_SLOTS,
    CurrentMenuView,
    MenuRecipeView,
    QuickMenuView,
    budget_input_text,
    budget_view,
    cart_destination,
    menu_recipe,
    render_page,
    retry_page,
    unavailable_page,
)
from prerender.rendering.i18n import TextCatalog
from prerender.web.context import RequestContext

FR = TextCatalog(overrides_dir=None).translator("fr")
EN = TextCatalog(overrides_dir=None).translator("en")


def recipe_view(n: int, **changes: Any) -> MenuRecipeView:
    view = MenuRecipeView(
        id=str(n),
        title=f"Recette {n}",
        picture_url=f"http://up/media/recipes/{n}.svg",
        type="main-dish",
        guests=4,
        position=n,
        price_text=None,
        products=(),
    )
    return replace(view, **changes)


# --- the quick menu ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "avatars", "empty", "overflow"),
    [(0, 0, 6, 0), (1, 1, 5, 0), (5, 5, 1, 0), (6, 6, 0, 0), (7, 5, 0, 2), (12, 5, 0, 7), (20, 5, 0, 15)],
)
def test_the_quick_menu_shows_six_plates_and_overflows_past_six(
    count: int, avatars: int, empty: int, overflow: int
) -> None:
    recipes = [recipe_view(n) for n in range(1, count + 1)]
    quick = QuickMenuView.of(recipes)
    assert (len(quick.avatars), quick.empty_slots, quick.overflow) == (avatars, empty, overflow)
    assert [r.id for r in quick.avatars] == [r.id for r in recipes[:avatars]]  # the first ones, in menu order
    # Always 6 plates: avatars, empty plates and the +N badge together.
    assert len(quick.avatars) + quick.empty_slots + (1 if quick.overflow else 0) == PLATE_SLOTS
    # Every recipe counts once: shown, or in +N.
    assert len(quick.avatars) + quick.overflow == count


# --- the budget ---------------------------------------------------------------------------------------------


def test_no_budget_without_a_store() -> None:
    assert budget_view({"store_id": None, "budget": 60, "total": 30}, FR) is None
    assert budget_view({"store_id": "", "budget": None, "total": None}, FR) is None
    assert budget_view({}, FR) is None


def test_a_total_absurdly_over_a_tiny_budget_is_a_full_gauge_said_over() -> None:
    """Well-formed numbers both, from an upstream gone wrong: the page is drawn (the ratio is capped), never a 500."""
    view = budget_view({"store_id": "1001", "budget": 0.01, "total": 1e27}, FR)
    assert view is not None and view.over and view.percent == 100


@pytest.mark.parametrize("budget", [None, 0, 0.0])
def test_no_gauge_while_the_budget_is_null_or_zero(budget: float | None) -> None:
    view = budget_view({"store_id": "1001", "budget": budget, "total": 42.5}, FR)
    assert view is not None
    assert not view.gauge and view.ratio is None and not view.over and view.amount_text is None


@pytest.mark.parametrize(
    ("amount", "french", "english", "shown"),
    [
        (Decimal("40"), "40,00", "40.00", "40,00\u00a0€"),
        (Decimal("12.345"), "12,35", "12.35", "12,35\u00a0€"),
        # The field holds what a shopper types back (no grouping); the amount shown groups the thousands.
        (Decimal("100000"), "100000,00", "100000.00", "100\u202f000,00\u00a0€"),
        (Decimal("0"), "", "", None),
        (None, "", "", None),
    ],
)
def test_the_budget_field_writes_the_amount_as_the_language_does(
    amount: Decimal | None, french: str, english: str, shown: str | None
) -> None:
    assert budget_input_text(amount, "fr") == french
    assert budget_input_text(amount, "en") == english
    view = budget_view({"store_id": "1001", "budget": amount, "total": 10}, FR)
    assert view is not None and view.input_text == french
    assert view.amount_text == shown


@pytest.mark.parametrize(
    ("total", "budget", "ratio", "percent", "over"),
    [
        (30, 60, "0.500", 50, False),
        (60, 60, "1.000", 100, False),
        (75, 60, "1.250", 100, True),
        (60.01, 60, "1.000", 100, True),  # over by a cent, though the ratio rounds to 1.000
        (59.99, 60, "1.000", 100, False),  # the ratio rounds up to the budget: full, not over
        (59.5, 60, "0.992", 99, False),  # rounded down: the gauge is full at the budget only
        (10, 30, "0.333", 33, False),
        (0.01, 50, "0.000", 0, False),
        (None, 50, "0.000", 0, False),  # a menu without selected products
        (0, 50, "0.000", 0, False),
    ],
)
def test_the_gauge_is_the_total_against_the_budget(
    total: float | None, budget: float, ratio: str, percent: int, over: bool
) -> None:
    view = budget_view({"store_id": "1001", "budget": budget, "total": total}, FR)
    assert view is not None and view.gauge
    assert view.ratio == Decimal(ratio) and str(view.ratio) == ratio
    assert view.percent == percent  # the gauge's data-budget-percent
    assert view.over is over
    # The overrun in words (beside the gauge's colour), None within the budget.
    by = Decimal(str(total or 0)) - Decimal(str(budget))
    assert view.over_text == (FR.money(by) if over else None)
    assert view.amount == Decimal(str(budget)) and view.amount_text == FR.money(Decimal(str(budget)))


def test_the_budget_is_written_in_the_language() -> None:
    view = budget_view({"store_id": "1001", "budget": 60.5, "total": 30}, EN)
    assert view is not None and view.amount_text == "€60.50"


# --- a menu recipe ------------------------------------------------------------------------------------------


def product(pid: str, price: float | None, selected: bool | None = True, **extra: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"id": pid, "name": f"Produit {pid}", "brand": "Marque", "size": "500 g", "quantity": 2}
    raw["price"] = price
    if selected is not None:
        raw["selected"] = selected
    return {**raw, **extra}


def raw_recipe(*products: Any, **extra: Any) -> dict[str, Any]:
    return {
        "id": "41",
        "title": "Filet mignon",
        "picture_url": "http://up/media/recipes/41.svg",
        "type": "main-dish",
        "guests": 3,
        "position": 2,
        "products": list(products),
        **extra,
    }


def test_a_recipes_price_is_that_of_its_selected_products() -> None:
    view = menu_recipe(
        raw_recipe(product("1", 16.98), product("2", 3.10, selected=False), product("3", 1.25), product("4", None)),
        FR,
    )
    assert view.price_text == FR.money(Decimal("18.23"))
    assert view.selected_count == 3  # "4" has no price but stays selected
    assert [(p.id, p.selected) for p in view.products] == [("1", True), ("2", False), ("3", True), ("4", True)]
    assert [p.price_text for p in view.products] == [
        FR.money(Decimal("16.98")),
        FR.money(Decimal("3.10")),
        FR.money(Decimal("1.25")),
        None,
    ]
    assert (view.id, view.title, view.type, view.guests, view.position) == ("41", "Filet mignon", "main-dish", 3, 2)


def test_a_product_without_a_selected_flag_counts_as_selected() -> None:
    view = menu_recipe(raw_recipe(product("1", 2.5, selected=None), product("2", 1.5)), FR)
    assert all(p.selected for p in view.products) and view.price_text == FR.money(Decimal("4.00"))


def test_decimal_sums_do_not_drift() -> None:
    view = menu_recipe(raw_recipe(*(product(str(n), 0.1) for n in range(3))), EN)
    assert view.price_text == "€0.30"


def test_a_recipe_without_products_has_no_price() -> None:
    """Without a store the upstream lists no products (docs/upstream.md, "Menus")."""
    view = menu_recipe(raw_recipe(), FR)
    assert view.products == () and view.price_text is None and view.selected_count == 0


def test_malformed_products_and_unsafe_pictures_are_left_out() -> None:
    view = menu_recipe(
        raw_recipe(product("1", 1.0), {"name": "no id"}, "not an object", picture_url="javascript:alert(1)"), FR
    )
    assert [p.id for p in view.products] == ["1"] and view.picture_url is None


# --- where finalize leads -------------------------------------------------------------------------------------


def supplier(**routing: Routing) -> Supplier:
    return Supplier(
        id="9", name="x", kind="retailer", personalization=True, affiliated_supplier_id=None, routing=routing
    )


def routing(
    *,
    base: str = "https://shop.example",
    planner: str | None = "/planner",
    current: str | None = "/planner/current-menu",
    cart: str | None = "/cart",
    catalog: str | None = "/catalogue",
) -> Routing:
    return Routing(base, planner, current, cart, catalog)


@pytest.mark.parametrize(
    ("routes", "expected"),
    [
        (routing(), "https://shop.example/cart"),
        (routing(cart="panier"), "https://shop.example/panier"),
        (routing(base="https://shop.example/fr/", cart="/cart"), "https://shop.example/fr/cart"),
        (routing(cart=None), "https://shop.example/catalogue"),
        (routing(cart=""), "https://shop.example/catalogue"),
        (routing(cart=None, catalog=None), "https://shop.example/"),
        (routing(cart="", catalog=""), "https://shop.example/"),
        # A cart that is not a path on the customer's site is never a destination.
        (routing(cart="https://evil.example/cart"), "https://shop.example/catalogue"),
        (routing(cart="//evil.example/cart", catalog="javascript:alert(1)"), "https://shop.example/"),
        # No planner in that routing (or an unusable one): no destination at all.
        (routing(planner=None, current=None), None),
        (routing(planner="", current=""), None),
        (routing(base="javascript:alert(1)//"), None),
        (routing(base="shop.example"), None),
    ],
)
def test_the_cart_destination(routes: Routing, expected: str | None) -> None:
    assert cart_destination(supplier(local=routes), "local") == expected


def test_no_cart_destination_without_a_supplier_or_a_routing_for_the_environment() -> None:
    assert cart_destination(None, "local") is None
    assert cart_destination(supplier(production=routing()), "local") is None
    assert cart_destination(supplier(), "local") is None


# --- the page's markup from a view model ----------------------------------------------------------------------


CTX = RequestContext(
    api_version="v2",
    request_id="r",
    session_id="s",
    language="fr",
    i18n_variant=None,
    user_id="u-1",
    authless_id=None,
    supplier=supplier(local=routing()),
)


def page(count: int, **changes: Any) -> CurrentMenuView:
    recipes = tuple(recipe_view(n) for n in range(1, count + 1))
    view = CurrentMenuView(
        available=True,
        menu_id="7",
        store_id="1001",
        guests=4,
        recipes=recipes,
        empty_slots=max(0, PLATE_SLOTS - count),
        quick_menu=QuickMenuView.of(recipes),
        budget=budget_view({"store_id": "1001", "budget": None, "total": 10}, FR),
        total_text=FR.money(Decimal("10")),
        panel=EMPTY_PANEL,
        view="recipe",
        removed_count=0,
        cart_url="https://shop.example/cart",
        onboarding_id="svc-planner-onboarding",
        mode=None,
    )
    return replace(view, **changes)


def rendered(app: Flask, view: CurrentMenuView) -> BeautifulSoup:
    with app.test_request_context("/v2/planner/current-menu"):
        html = render_page(view, CTX, api_version="v2")
    return BeautifulSoup(html, "html5lib")


def one(soup: BeautifulSoup | Tag, selector: str) -> Tag:
    found = soup.select(selector)
    assert len(found) == 1, f"{selector}: {len(found)} elements"
    return found[0]


def quick_kinds(soup: BeautifulSoup) -> list[str]:
    return [
        next(name.rsplit("--", 1)[1] for name in slot["class"] if "--" in name)
        for slot in soup.select(".svc-quick-menu__slots > .svc-quick-menu__slot")
    ]


@pytest.mark.parametrize("count", [0, 5, 6, 7, 12])
def test_the_page_shows_six_plates_whatever_the_menu_holds(app: Flask, count: int) -> None:
    soup = rendered(app, page(count))
    rows = soup.select(".svc-planner__menu-item")
    assert [row["data-recipe-id"] for row in rows] == [str(n) for n in range(1, count + 1)]
    assert len(soup.select("li.svc-planner__menu-slot")) == max(0, PLATE_SLOTS - count)
    if count > PLATE_SLOTS:
        assert quick_kinds(soup) == ["filled"] * 5 + ["overflow"]
        assert one(soup, ".svc-quick-menu__slot--overflow").get_text(strip=True) == f"+{count - 5}"
    else:
        assert quick_kinds(soup) == ["filled"] * count + ["empty"] * (PLATE_SLOTS - count)
    # The preview button's name, as a screen reader reads it (the +N drawn only): the number of meals, once.
    preview = soup.select_one("button.svc-quick-menu__preview")
    assert isinstance(preview, Tag)
    for drawn in preview.select("[aria-hidden=true]"):
        drawn.decompose()
    # The colon as French writes it: after a no-break space.
    assert re.fullmatch(rf"Aperçu du menu\u00a0: {count} repas", preview.get_text(" ", strip=True)), preview
    finalize = soup.select_one("button.svc-planner__finalize")
    assert isinstance(finalize, Tag) and finalize.has_attr("disabled") is (count == 0)


def test_upstream_text_is_escaped(app: Flask) -> None:
    hostile = '<img src=x onerror="alert(1)">'
    view = page(1, recipes=(recipe_view(1, title=hostile),))
    soup = rendered(app, replace(view, quick_menu=QuickMenuView.of(view.recipes)))
    assert soup.find("img", src="x") is None
    assert one(soup, ".svc-planner__menu-item-title").get_text() == hostile


def test_every_percent_of_the_gauge_has_its_fill_in_the_planners_sheet() -> None:
    # The fill follows data-budget-percent through one rule per value (no inline style): none may be missing.
    sheet = (Path(prerender.__file__).parent / "static" / "css" / "planner.css").read_text(encoding="utf-8")
    rules = re.findall(
        r'\.svc-planner__budget\[data-budget-percent="(\d+)"\] \{ --svc-budget-ratio: ([\d.]+); \}', sheet
    )
    assert {int(percent): Decimal(ratio) for percent, ratio in rules} == {
        percent: Decimal(percent) / 100 for percent in range(101)
    }
    assert len(rules) == 101


def test_the_gauges_fill_and_over_budget_class(app: Flask) -> None:
    over = budget_view({"store_id": "1001", "budget": 40, "total": 50}, FR)
    budget = rendered(app, page(2, budget=over)).select_one(".svc-planner__budget")
    assert isinstance(budget, Tag)
    assert budget["data-budget-percent"] == "100" and "svc-planner__budget--over" in budget["class"]
    assert not budget.has_attr("style")  # a host page's strict style-src would block it
    assert budget.select_one("[data-role=budget-gauge]") is not None
    under = budget_view({"store_id": "1001", "budget": 0, "total": 50}, FR)
    budget = rendered(app, page(2, budget=under)).select_one(".svc-planner__budget")
    assert isinstance(budget, Tag) and not budget.has_attr("style")
    assert budget.select_one("[data-role=budget-gauge]") is None
    assert budget.select_one("[data-role=budget-form][data-svc-form]") is not None


def test_the_unavailable_page_has_no_menu(app: Flask) -> None:
    soup = rendered(app, unavailable_page(view="menu", onboarding_id="svc-planner-onboarding"))
    root = soup.find("svc-planner")
    assert isinstance(root, Tag) and root.has_attr("unavailable")
    assert "svc-planner--view-menu" in root["class"]
    assert one(soup, "[data-role=unavailable]").get_text(strip=True) == FR("PLANNER_ENTRY.UNAVAILABLE")
    assert not soup.select(".svc-planner__menu, .svc-quick-menu, .svc-planner__budget, [data-role=no-store]")
    assert soup.find("svc-planner-onboarding") is not None


def retry_view(app: Flask, ctx: RequestContext, **query: Any) -> CurrentMenuView:
    parsed = {
        "store_id": None,
        "mode": None,
        "guests": None,
        "view": None,
        "recipe_type_id": [],
        "search": "",
        "page": 1,
        **query,
    }
    with app.test_request_context("/v2/planner/current-menu"):
        return retry_page(ctx, parsed)


def test_the_try_again_page_keeps_the_query_it_retries_with(app: Flask) -> None:
    view = retry_view(app, CTX, store_id="1001", view="menu", search='"><script>x</script>', page=2, guests=6)
    assert view.retry == "fetch" and view.available
    soup = rendered(app, view)
    root = soup.find("svc-planner")
    assert isinstance(root, Tag) and root["retry"] == "fetch" and "svc-planner--view-menu" in root["class"]
    assert root.find("script") is None  # the search is an attribute value, escaped
    assert json.loads(root["data-retry-query"]) == {
        "store_id": "1001",
        "view": "menu",
        "search": '"><script>x</script>',
        "page": "2",
        "guests": "6",
    }
    assert one(soup, "[data-role=retry] h3").get_text(strip=True) == FR("PLANNER_PAGE.RETRY_TITLE")
    assert not soup.select(".svc-planner__budget, [data-role=no-store], [data-role=unavailable], .svc-planner__menu")


def test_without_a_supplier_the_try_again_page_reloads(app: Flask) -> None:
    view = retry_view(app, replace(CTX, supplier=None, supplier_lookup_failed=True))
    assert view.retry == "reload" and view.retry_query == {}

"""The planner's menu routes (v2 only), through prerender, against the real coreapi: the current-menu page's
calls for the shopper of a credential, and the merge of a visitor's menu (docs/browser-api.md, "Menus")."""

from __future__ import annotations

import itertools

import pytest

from tests.problems import names

from .conftest import RETAILER, browser_headers, headers, shopper_credential

NOPERS = "demo-nopers-token"
_shoppers = itertools.count()


@pytest.fixture
def shopper() -> str:
    return f"menu-user-{next(_shoppers)}"


def menu(client, hdrs: dict[str, str], query: str = "") -> dict:
    answer = client.get(f"/v2/menu/current{query}", headers=hdrs)
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Cache-Control"].startswith("private")
    return answer.get_json()


def recipe_ids(body: dict) -> list[str]:
    return [recipe["id"] for recipe in body["recipes"]]


def assert_problem(answer, status: int) -> dict:
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    return answer.get_json()


def test_menus_are_v2_only_and_for_a_credential_only(client, shopper: str) -> None:
    assert client.get("/v1/menu/current", headers=browser_headers(client, user=shopper)).status_code == 404
    for token in (None, RETAILER):
        answer = client.get("/v2/menu/current", headers=headers(user=shopper, token=token))
        assert_problem(answer, 401)
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_new_menu_starts_from_suggestions_or_from_scratch(client, shopper: str) -> None:
    suggested = menu(client, browser_headers(client, user=shopper), "?store_id=1001&guests=3")
    assert 1 <= suggested["recipe_count"] <= 6 and suggested["guests"] == 3 and suggested["store_id"] == "1001"
    assert all(recipe["guests"] == 3 and recipe["products"] for recipe in suggested["recipes"])
    assert suggested["total"] == pytest.approx(
        sum(p["price"] for r in suggested["recipes"] for p in r["products"] if p["selected"])
    )
    empty = menu(client, browser_headers(client, user=f"{shopper}-b"), "?from=scratch")
    assert empty["recipes"] == [] and empty["store_id"] is None and empty["total"] is None
    # The same menu afterwards: `from` only counts at creation.
    assert menu(client, browser_headers(client, user=f"{shopper}-b"), "?from=suggestions")["id"] == empty["id"]


def test_building_a_menu(client, shopper: str) -> None:
    me = browser_headers(client, user=shopper)
    start = menu(client, me, "?store_id=1001&from=scratch")
    added = client.post("/v2/menu/current/recipes", json={"recipe_id": "5", "guests": 2}, headers=me).get_json()
    added = client.post("/v2/menu/current/recipes", json={"recipe_id": "1"}, headers=me).get_json()
    assert added["id"] == start["id"] and recipe_ids(added) == ["5", "1"]

    rescaled = client.patch("/v2/menu/current/recipes/5", json={"guests": 6}, headers=me).get_json()
    assert next(r for r in rescaled["recipes"] if r["id"] == "5")["guests"] == 6

    swapped = client.post("/v2/menu/current/recipes/1/swap", json={"recipe_id": "2"}, headers=me).get_json()
    assert recipe_ids(swapped) == ["5", "2"]

    product = next(r for r in swapped["recipes"] if r["id"] == "5")["products"][0]["id"]
    unselected = client.delete(f"/v2/menu/current/recipes/5/products/{product}", headers=me).get_json()
    line = next(p for r in unselected["recipes"] if r["id"] == "5" for p in r["products"] if p["id"] == product)
    assert line["selected"] is False and unselected["total"] < swapped["total"]
    reselected = client.put(f"/v2/menu/current/recipes/5/products/{product}", headers=me).get_json()
    assert reselected["total"] == pytest.approx(swapped["total"])

    budget = client.patch("/v2/menu/current", json={"budget": 60, "guests": 4}, headers=me).get_json()
    assert budget["budget"] == 60 and all(r["guests"] == 4 for r in budget["recipes"])

    removed = client.delete("/v2/menu/current/recipes/2", headers=me).get_json()
    assert recipe_ids(removed) == ["5"]


def test_the_upstreams_refusals_reach_the_page_with_their_reason(client, shopper: str) -> None:
    me = browser_headers(client, user=shopper)
    menu(client, me, "?from=scratch")
    no_store = assert_problem(client.patch("/v2/menu/current", json={"budget": 20}, headers=me), 409)
    assert no_store.get("reason") == "no-store"
    assert_problem(client.post("/v2/menu/current/recipes", json={"recipe_id": "999999"}, headers=me), 404)
    assert_problem(client.delete("/v2/menu/current/recipes/5", headers=me), 404)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v2/menu/current/recipes", {"recipe_id": "5", "guests": "2"}, "guests"),
        ("/v2/menu/current/recipes", {"recipe_id": "5", "guests": 51}, "guests"),
        ("/v2/menu/current/recipes", {"guests": 2}, "recipe_id"),
        ("/v2/menu/current/recipes", {"recipe_id": "5", "extra": 1}, "extra"),
    ],
)
def test_bodies_are_checked_before_the_upstream(client, shopper: str, path: str, body: dict, field: str) -> None:
    problem = assert_problem(client.post(path, json=body, headers=browser_headers(client, user=shopper)), 400)
    assert field in problem["errors"]["json"]


def test_patch_checks_its_fields(client, shopper: str) -> None:
    me = browser_headers(client, user=shopper)
    assert (
        "budget"
        in assert_problem(client.patch("/v2/menu/current", json={"budget": "12"}, headers=me), 400)["errors"]["json"]
    )
    assert_problem(client.patch("/v2/menu/current", json={}, headers=me), 400)


def test_moving_the_menu_to_another_store_says_what_it_removed(client, shopper: str) -> None:
    me = browser_headers(client, user=shopper)
    menu(client, me, "?store_id=1001&from=scratch")
    for recipe in ("1", "2", "3", "4", "5", "6"):
        client.post("/v2/menu/current/recipes", json={"recipe_id": recipe}, headers=me)
    moved = menu(client, me, "?store_id=1002")
    assert moved["store_id"] == "1002"
    assert set(moved["removed_recipe_ids"]).isdisjoint(recipe_ids(moved))
    assert len(moved["removed_recipe_ids"]) + moved["recipe_count"] == 6


def test_two_suppliers_two_menus(client, shopper: str) -> None:
    at_retailer = browser_headers(client, user=shopper, token=RETAILER)
    at_nopers = browser_headers(client, user=shopper, token=NOPERS)
    mine = menu(client, at_retailer, "?from=scratch")
    client.post("/v2/menu/current/recipes", json={"recipe_id": "5"}, headers=at_retailer)
    theirs = menu(client, at_nopers, "?from=scratch")
    assert theirs["id"] != mine["id"] and theirs["recipes"] == []


def test_finalize_needs_a_user_and_fills_the_basket(client, shopper: str) -> None:
    visitor = browser_headers(client, user=None, authless=f"{shopper}-visitor")
    menu(client, visitor, "?store_id=1001")
    refused = assert_problem(client.post("/v2/menu/current/finalize", headers=visitor), 403)
    # What the caller must do, in this route's terms (a user's credential), not the upstream's header.
    assert "needs a logged-in user" in refused["detail"] and "Log the shopper in" in refused["detail"]
    assert "credential of the user" in refused["detail"]
    assert "Authorization: user_id" not in refused["detail"] and "connected users only" not in refused["detail"]

    me = browser_headers(client, user=shopper)
    built = menu(client, me, "?store_id=1001&from=scratch")
    client.post("/v2/menu/current/recipes", json={"recipe_id": "5", "guests": 4}, headers=me)
    done = client.post("/v2/menu/current/finalize", headers={**me, "Idempotency-Key": f"{shopper}-finalize"})
    assert done.status_code == 200, done.get_json()
    assert done.get_json()["changes"] and all(change["quantity"] > 0 for change in done.get_json()["changes"])
    again = client.post("/v2/menu/current/finalize", headers={**me, "Idempotency-Key": f"{shopper}-finalize"})
    assert again.get_json() == done.get_json()  # the same key: the first outcome, not a second finalize
    basket = client.get("/v1/basket?store_id=1001", headers=me).get_json()
    assert [recipe["recipe_id"] for recipe in basket["recipes"]] == ["5"]
    assert menu(client, me)["id"] != built["id"]  # the menu was done: a new one


def visitor_menu(client, authless: str) -> dict:
    visitor = browser_headers(client, user=None, authless=authless)
    menu(client, visitor, "?from=scratch")
    return client.post("/v2/menu/current/recipes", json={"recipe_id": "3"}, headers=visitor).get_json()


def test_the_customers_server_merges_the_visitors_menu_into_the_user(client, shopper: str) -> None:
    authless = f"{shopper}-visitor"
    visitors = visitor_menu(client, authless)
    me = browser_headers(client, user=shopper)
    menu(client, me, "?from=scratch")
    client.post("/v2/menu/current/recipes", json={"recipe_id": "5"}, headers=me)
    merged = client.get(f"/v2/menu/merge-authless-menu?authless_id={authless}", headers=headers(user=shopper))
    assert merged.status_code == 200, merged.get_json()
    assert merged.headers["Cache-Control"] == "no-store"
    assert recipe_ids(merged.get_json()) == recipe_ids(visitors) == ["3"]  # replaced, not merged
    assert recipe_ids(menu(client, me)) == ["3"]


def test_a_browser_merges_with_both_credentials_only(client, shopper: str) -> None:
    authless = f"{shopper}-visitor"
    visitor_menu(client, authless)
    me = browser_headers(client, user=shopper)
    query = f"/v2/menu/merge-authless-menu?authless_id={authless}"
    assert_problem(client.get(query, headers=me), 401)
    server = client.get(query, headers=headers(user=shopper, token="not-a-supplier-token"))
    assert_problem(server, 401)
    # Either credential would do: the challenge names both (RFC 9110, section 11.6.1).
    assert server.headers["WWW-Authenticate"] == 'Bearer realm="prerender", SupplierToken realm="prerender"'
    head = client.head(query, headers=headers(user=shopper))
    assert head.status_code == 405  # a HEAD would merge too
    proof = shopper_credential(client, user=None, authless=authless)
    merged = client.get(query, headers={**me, "authless-credential": proof})
    assert merged.status_code == 200 and recipe_ids(merged.get_json()) == ["3"]


def test_suggestions_leave_out_the_menus_recipes(client, shopper: str) -> None:
    me = browser_headers(client, user=shopper)
    current = menu(client, me, "?store_id=1001")
    answer = client.get("/v2/menu/current/suggestions?store_id=1001&type=dessert,main-dish&limit=4", headers=me)
    assert answer.status_code == 200, answer.get_json()
    suggested = answer.get_json()["data"]
    assert len(suggested) <= 4 and {r["type"] for r in suggested} <= {"dessert", "main-dish"}
    assert not {r["id"] for r in suggested} & set(recipe_ids(current))
    bad = client.get("/v2/menu/current/suggestions?type=soup", headers=me)
    assert names(assert_problem(bad, 400)["errors"]["query"], "type")


def test_the_shoppers_preferences_make_the_new_menu_and_the_suggestions(client, upstream, shopper: str) -> None:
    vegetarian = {str(r["id"]) for r in upstream.get("/recipes", category="vegetarien", per_page=100)["data"]}
    suggestions = "/v2/menu/current/suggestions?store_id=1001&limit=20"
    plain = browser_headers(client, user=f"{shopper}-plain")
    assert {r["id"] for r in client.get(suggestions, headers=plain).get_json()["data"]} - vegetarian

    for user, origin in ((shopper, "suggestions"), (f"{shopper}-scratch", "scratch")):
        me = browser_headers(client, user=user)
        saved = client.put("/v2/preferences", json={"diets": ["vegetarien"], "guests": 2}, headers=me)
        assert saved.status_code == 200, saved.get_json()
        new = menu(client, me, f"?store_id=1001&from={origin}")
        assert new["guests"] == 2 and all(recipe["guests"] == 2 for recipe in new["recipes"])
        assert set(recipe_ids(new)) <= vegetarian
    # What the planner's swap takes: the shopper's suggestions, kept by its preferences.
    kept = client.get(suggestions, headers=browser_headers(client, user=shopper)).get_json()["data"]
    assert kept and {r["id"] for r in kept} <= vegetarian
    # The guests a page names still win.
    me = browser_headers(client, user=f"{shopper}-asked")
    client.put("/v2/preferences", json={"guests": 2}, headers=me)
    assert menu(client, me, "?from=scratch&guests=5")["guests"] == 5

"""POST /suggestions: candidates, scoring, seeded randomness, filters, batches."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from flask.testing import FlaskClient

SESSIONS = [f"session-{n}" for n in range(40)]


def suggest(
    client: FlaskClient,
    contexts: list[dict[str, Any]],
    *,
    session: str = "session-0",
    headers: dict[str, str] | None = None,
    **body: Any,
) -> Any:
    response = client.post(
        "/api/v1/suggestions",
        json={"contexts": contexts, **body},
        headers={"Session-Id": session, **(headers or {})},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json["data"]


def context(key: str, surrounding: list[str], current: list[str] | None = None) -> dict[str, Any]:
    return {
        "key": key,
        "surrounding_product_ids": surrounding,
        "current_product_ids": current or [],
    }


def one(client: FlaskClient, surrounding: list[str], current: list[str] | None = None, **kw: Any) -> Any:
    return suggest(client, [context("0", surrounding, current)], **kw)[0]["recipe_id"]


def plain(text: str) -> str:
    """Lower case without accents, the way the search compares."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("œ", "oe"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def popular_products(seed, minimum: int) -> list[str]:
    """Products that at least ``minimum`` recipes need, most needed first."""
    counts = {p: len(seed.recipes_needing(p)) for p in seed.products}
    products = [p for p in sorted(counts, key=lambda p: (-counts[p], int(p))) if counts[p] >= minimum]
    if not products:
        pytest.fail(f"the seed must keep a product needed by {minimum} recipes for this test")
    return products


def disjoint_products(seed) -> tuple[str, str]:
    """Two products needed by different recipes (no recipe needs both)."""
    products = popular_products(seed, 2)
    for a in products:
        for b in products:
            if not seed.recipes_needing(a) & seed.recipes_needing(b):
                return a, b
    pytest.fail("the seed must keep two products needed by disjoint recipes for this test")


# --- candidates and randomness ---------------------------------------------------------------


def test_answer_follows_the_contexts(client: FlaskClient, seed) -> None:
    a, b = disjoint_products(seed)
    data = suggest(client, [context("x", [a]), context("7", [b]), context("x2", ["999999999"])])
    assert [item["key"] for item in data] == ["x", "7", "x2"]
    assert data[0]["recipe_id"] in seed.recipes_needing(a)
    assert data[1]["recipe_id"] in seed.recipes_needing(b)
    assert data[2]["recipe_id"] is None


def test_nothing_fits_is_null(client: FlaskClient) -> None:
    assert one(client, ["999999999", "not-a-product"]) is None
    assert suggest(client, []) == []


def test_same_session_same_products_same_recipe(client: FlaskClient, seed) -> None:
    product = popular_products(seed, 3)[0]
    for session in SESSIONS[:10]:
        first = one(client, [product], session=session)
        assert first in seed.recipes_needing(product)
        assert one(client, [product], session=session) == first


def test_different_sessions_vary_among_the_best(client: FlaskClient, seed) -> None:
    product = popular_products(seed, 3)[0]
    chosen = {one(client, [product], session=session) for session in SESSIONS}
    assert len(chosen) >= 2
    assert chosen <= seed.recipes_needing(product)


def test_order_of_the_products_does_not_matter(client: FlaskClient, seed) -> None:
    a, b = popular_products(seed, 2)[:2]
    for session in SESSIONS[:5]:
        assert one(client, [a, b], session=session) == one(client, [b, a], session=session)


def test_more_matching_products_score_higher(client: FlaskClient, seed) -> None:
    products = popular_products(seed, 2)
    pair = next(
        (
            (a, b)
            for a in products
            for b in products
            if a != b
            and seed.recipes_needing(a) & seed.recipes_needing(b)
            and seed.recipes_needing(a) - seed.recipes_needing(b)
        ),
        None,
    )
    if pair is None:
        pytest.fail("the seed must keep a recipe needing two products no other recipe needs, for this test")
    a, b = pair
    both = seed.recipes_needing(a) & seed.recipes_needing(b)
    for session in SESSIONS[:15]:
        assert one(client, [a, b], session=session) in both


def test_current_products_weigh_more(client: FlaskClient, seed) -> None:
    a, b = disjoint_products(seed)
    for session in SESSIONS[:15]:
        assert one(client, [a], [b], session=session) in seed.recipes_needing(b)
        assert one(client, [b], [a], session=session) in seed.recipes_needing(a)


# --- profiling -------------------------------------------------------------------------------


RETAILER = {"Supplier-Token": "demo-retailer-token"}
PUBLISHER = {"Supplier-Token": "demo-publisher-token"}


def liked_setup(client: FlaskClient, seed) -> tuple[str, str, str, str]:
    """A product, a session, the recipe it suggests without likes, and another recipe to like."""
    product = popular_products(seed, 2)[0]
    session = "profiling-session"
    baseline = one(client, [product], session=session)
    liked = sorted(seed.recipes_needing(product) - {baseline}, key=int)[0]
    return product, session, baseline, liked


def test_a_liked_recipe_wins_only_with_profiling_and_a_connected_user(client: FlaskClient, seed, user_id: str) -> None:
    product, session, baseline, liked = liked_setup(client, seed)
    user = {"Authorization": f"user_id {user_id}", **RETAILER}
    assert client.put(f"/api/v1/likes/{liked}", headers=user).status_code == 204

    assert one(client, [product], session=session, headers=user) == liked
    assert one(client, [product], session=session, headers={**user, "Profiling": "true"}) == liked
    assert one(client, [product], session=session, headers={**user, "Profiling": "false"}) == baseline
    authless = {"Authorization": f"authless_id {user_id}", **RETAILER}
    assert one(client, [product], session=session, headers=authless) == baseline


def test_the_liked_bonus_follows_the_supplier(client: FlaskClient, seed, user_id: str) -> None:
    product, session, baseline, liked = liked_setup(client, seed)
    user = {"Authorization": f"user_id {user_id}"}
    assert client.put(f"/api/v1/likes/{liked}", headers={**user, **PUBLISHER}).status_code == 204

    assert one(client, [product], session=session, headers={**user, **PUBLISHER}) == liked
    # The same user id under another supplier is another user; no supplier, no user to read.
    assert one(client, [product], session=session, headers={**user, **RETAILER}) == baseline
    assert one(client, [product], session=session, headers=user) == baseline


def test_an_unknown_supplier_token_is_401(client: FlaskClient) -> None:
    response = client.post(
        "/api/v1/suggestions",
        json={"contexts": [context("0", ["1"])]},
        headers={"Supplier-Token": "no-such-token"},
    )
    assert response.status_code == 401


# --- batches ---------------------------------------------------------------------------------


def test_one_batch_does_not_repeat_a_recipe_when_another_fits(client: FlaskClient, seed) -> None:
    product = popular_products(seed, 3)[0]
    for session in SESSIONS[:5]:
        data = suggest(client, [context(str(k), [product]) for k in range(3)], session=session)
        chosen = [item["recipe_id"] for item in data]
        assert len(set(chosen)) == 3
        assert set(chosen) <= seed.recipes_needing(product)


def test_a_batch_repeats_a_recipe_rather_than_answering_nothing(client: FlaskClient, seed) -> None:
    single = [p for p in seed.products if len(seed.recipes_needing(p)) == 1]
    if not single:
        pytest.fail("the seed must keep a product needed by one recipe only, for this test")
    (only,) = seed.recipes_needing(single[0])
    data = suggest(client, [context("a", [single[0]]), context("b", [single[0]])])
    assert [item["recipe_id"] for item in data] == [only, only]


def test_batch_costs_a_fixed_number_of_queries(client: FlaskClient, seed, user_id: str, count_queries) -> None:
    products = list(seed.products)
    headers = {"Session-Id": "s", "Authorization": f"user_id {user_id}", **RETAILER}

    def body(n: int) -> dict[str, Any]:
        contexts = [
            context(str(k), products[k % len(products) : k % len(products) + 2], products[:3]) for k in range(n)
        ]
        return {"contexts": contexts, "store_id": "1002", "category_id": None, "keyword": None}

    with count_queries() as one_context:
        client.post("/api/v1/suggestions", json=body(1), headers=headers)
    with count_queries() as hundred:
        response = client.post("/api/v1/suggestions", json=body(100), headers=headers)
    assert len(response.json["data"]) == 100
    assert len(hundred) == len(one_context) <= 4


# --- filters ---------------------------------------------------------------------------------


def test_completion_filter_at_the_store(client: FlaskClient, seed) -> None:
    removed = {r for r in seed.recipes if not seed.is_complete_at("1002", r)}
    assert removed
    recipe_id = sorted(removed, key=int)[0]
    product = seed.ranked_products(seed.primary_ingredient(recipe_id))[0]
    for session in SESSIONS[:15]:
        chosen = one(client, [product], session=session, store_id="1002")
        assert chosen not in removed
        assert chosen is None or chosen in seed.recipes_needing(product)
    kept = seed.recipes_needing(product) - removed
    if not kept:
        assert one(client, [product], store_id="1002") is None


def test_category_filter(client: FlaskClient, seed) -> None:
    product = popular_products(seed, 3)[0]
    for category in seed.categories:
        expected = {r for r in seed.recipes_needing(product) if category["id"] in seed.recipes[r]["categories"]}
        chosen = one(client, [product], category_id=category["id"])
        assert (chosen in expected) if expected else chosen is None


def test_keyword_filter(client: FlaskClient, seed) -> None:
    product = popular_products(seed, 3)[0]
    target = sorted(seed.recipes_needing(product), key=int)[0]
    keyword = max(seed.recipes[target]["title"].split(), key=len)
    for session in SESSIONS[:10]:
        chosen = one(client, [product], session=session, keyword=keyword.upper())
        assert chosen in seed.recipes_needing(product)
        recipe = seed.recipes[chosen]
        text = " ".join(recipe.get(k) or "" for k in ("title", "title_en", "description", "description_en"))
        assert plain(keyword) in plain(text)


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"contexts": [context(str(k), ["1"]) for k in range(101)]}, "contexts"),
        ({"contexts": [context("0", [])]}, "contexts.0.surrounding_product_ids"),
        (
            {"contexts": [context("0", [str(n) for n in range(11)])]},
            "contexts.0.surrounding_product_ids",
        ),
        (
            {"contexts": [context("0", ["1"], [str(n) for n in range(21)])]},
            "contexts.0.current_product_ids",
        ),
        ({"contexts": [{"surrounding_product_ids": ["1"]}]}, "contexts.0.key"),
        ({"contexts": [context("0", ["1"])], "store_id": "4242"}, "store_id"),
        ({}, "contexts"),
    ],
)
def test_invalid_requests_are_400(client: FlaskClient, body: dict[str, Any], field: str) -> None:
    response = client.post("/api/v1/suggestions", json=body)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert field in response.json["errors"]["json"]

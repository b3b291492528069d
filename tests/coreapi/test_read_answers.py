"""Whole answers of the read paths of prerender's cards, computed from the seed JSON alone.

Recipe details (single and batch) and suggestions are compared in full, values and order, with
what docs/upstream.md says they are, for every recipe, with and without a store, for several
numbers of guests and both languages: any change to how coreapi reads or builds them (queries,
serialisation) must leave every byte of them as it is.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import pytest
from flask.testing import FlaskClient

from coreapi import create_app
from coreapi.schemas.fields import picture_url, picture_urls
from tests.coreapi.test_recipes import expected_pricing, expected_tags

BASE = "http://localhost"
MEASURES = {
    "c. à soupe": (Decimal(15), {"fr": ("c. à soupe", "c. à soupe"), "en": ("tbsp", "tbsp")}),
    "c. à café": (Decimal(5), {"fr": ("c. à café", "c. à café"), "en": ("tsp", "tsp")}),
    "pincée": (Decimal(1), {"fr": ("pincée", "pincées"), "en": ("pinch", "pinches")}),
}
PIECES = {"fr": ("pièce", "pièces"), "en": ("piece", "pieces")}


# --- the contract, from the seed ---------------------------------------------------------------


def rounded(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def number(value: Decimal, language: str, places: int = 2) -> str:
    text = format(rounded(value, places), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", ",") if language == "fr" else text


def halves(value: Decimal) -> Decimal:
    return max(rounded(value * 2, 0) / 2, Decimal("0.5"))


def metric(value: Decimal, unit: str, language: str) -> str:
    if unit == "piece":
        names = PIECES[language]
        return f"{number(value, language)} {names[1] if value > 1 else names[0]}"
    if unit in ("g", "ml") and value >= 1000:
        return f"{number(value / 1000, language)} {'kg' if unit == 'g' else 'l'}"
    return f"{number(value, language, 0 if value >= 10 else 1)} {unit}"


def display(quantity: Decimal, unit: str, language: str, display_unit: str | None) -> str:
    if display_unit in MEASURES:
        size, names = MEASURES[display_unit]
        count = halves(quantity / size)
        return f"{number(count, language)} {names[language][1 if count > 1 else 0]}"
    if unit == "piece":
        return number(halves(quantity), language)
    return metric(quantity, unit, language)


def json_quantity(value: Decimal) -> int | float:
    value = rounded(value, 3)
    return int(value) if value == value.to_integral_value() else float(value)


def text(row: dict[str, Any], key: str, language: str) -> Any:
    return (row.get(f"{key}_en") or row[key]) if language == "en" else row[key]


def expected_ingredient_pictures(seed, recipe_id: str, store_id: str | None) -> list[str]:
    """The first 4 distinct products of the recipe's ingredients, in its order: the one priced at the store,
    else the first ranked."""
    products: dict[str, None] = {}
    for item in seed.recipes[recipe_id]["ingredients"]:
        ranked = seed.ranked_products(item["id"])
        if len(products) == 4 or not ranked:
            continue
        chosen = seed.first_available(store_id, item["id"]) if store_id else None
        products[chosen or ranked[0]] = None
    return [f"{BASE}/media/products/{product_id}.svg" for product_id in products]


def expected_detail(seed, recipe_id: str, store_id: str | None, serves: int | None, language: str) -> dict[str, Any]:
    recipe = seed.recipes[recipe_id]
    guests = serves or recipe["guests"]
    ingredients = []
    for item in recipe["ingredients"]:
        ingredient = seed.ingredients[item["id"]]
        quantity = Decimal(item["quantity"]) * guests / recipe["guests"]
        needed = Fraction(str(item["quantity"])) * guests / recipe["guests"]
        products = []
        for product_id in seed.ranked_products(item["id"]):
            product = seed.products[product_id]
            size = Decimal(str(product["size_value"]))
            at_store = store_id is not None
            products.append(
                {
                    "id": product_id,
                    "name": product["name"],
                    "brand": product.get("brand"),
                    "size": metric(size, product["size_unit"], language),
                    "picture_url": f"{BASE}/media/products/{product_id}.svg",
                    "price": float(seed.shelf_price(store_id, product_id)) if at_store else None,
                    "available": seed.is_available(store_id, product_id) if at_store else None,
                    "promoted": product_id in seed.stores[store_id]["promoted_product_ids"] if at_store else None,
                    "packages": math.ceil(needed / Fraction(str(product["size_value"]))),
                }
            )
        ingredients.append(
            {
                "id": item["id"],
                "name": text(ingredient, "name", language),
                "quantity": json_quantity(quantity),
                "unit": ingredient["unit"],
                "display": display(quantity, ingredient["unit"], language, item["display_unit"]),
                "primary": item["primary"],
                "products": products,
            }
        )
    if store_id is None:
        available = promoted = None
    else:
        promotions = set(seed.stores[store_id]["promoted_product_ids"])
        chosen = [seed.first_available(store_id, item["id"]) for item in recipe["ingredients"]]
        available = seed.is_complete_at(store_id, recipe_id)
        promoted = bool(set(chosen) & promotions)
    return {
        "id": recipe_id,
        "external_id": recipe["external_id"],
        "title": text(recipe, "title", language),
        "description": text(recipe, "description", language),
        "picture_url": f"{BASE}/media/recipes/{recipe_id}.svg",
        "type": recipe["type"],
        "categories": list(dict.fromkeys(recipe["categories"])),
        "tags": expected_tags(seed, recipe_id, language),
        "ingredient_pictures": expected_ingredient_pictures(seed, recipe_id, store_id),
        "equipment": seed.equipment_of(recipe_id),
        "difficulty": recipe["difficulty"],
        "preparation_time": recipe["preparation_time"],
        "cooking_time": recipe["cooking_time"],
        "total_time": recipe["preparation_time"] + recipe["cooking_time"],
        "guests": guests,
        "steps": [
            {"position": position, "text": step}
            for position, step in enumerate(text(recipe, "steps", language), start=1)
        ],
        "ingredients": ingredients,
        "available": available,
        "promoted": promoted,
        "pricing": expected_pricing(seed, recipe_id, store_id, serves) if store_id else None,
    }


def plain(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value.casefold().replace("œ", "oe"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def expected_suggestions(
    seed,
    contexts: list[dict[str, Any]],
    session: str,
    *,
    liked: frozenset[str] = frozenset(),
    store_id: str | None = None,
    category_id: str | None = None,
    keyword: str | None = None,
) -> list[dict[str, Any]]:
    """The documented draw: scores, near ties drawn by SHA-256, no repeat when another fits."""

    def passes(recipe_id: str) -> bool:
        recipe = seed.recipes[recipe_id]
        searchable = " ".join(recipe.get(k) or "" for k in ("title", "title_en", "description", "description_en"))
        return (
            (store_id is None or seed.is_complete_at(store_id, recipe_id))
            and (not category_id or category_id in recipe["categories"])
            and (not keyword or plain(keyword) in plain(searchable))
        )

    chosen: list[str] = []
    answer = []
    for ctx in contexts:
        weights = {p: 1.0 for p in ctx["surrounding_product_ids"]}
        weights.update({p: 2.0 for p in ctx["current_product_ids"]})
        scores: dict[str, float] = {}
        for product_id, weight in weights.items():
            for recipe_id in seed.recipes_needing(product_id):
                if passes(recipe_id):
                    scores[recipe_id] = scores.get(recipe_id, 0.0) + weight
        for recipe_id in liked & scores.keys():
            scores[recipe_id] += 1.5
        pool = {r: s for r, s in scores.items() if r not in chosen} or scores
        recipe_id = None
        if pool:
            best = max(pool.values())

            def draw(candidate: str, ctx: dict[str, Any] = ctx) -> bytes:
                material = "\x1f".join(
                    (
                        session,
                        ",".join(sorted(set(ctx["surrounding_product_ids"]))),
                        ",".join(sorted(set(ctx["current_product_ids"]))),
                        candidate,
                    )
                )
                return hashlib.sha256(material.encode()).digest()

            recipe_id = min((r for r, s in pool.items() if s >= best - 0.75), key=draw)
            chosen.append(recipe_id)
        answer.append({"key": ctx["key"], "recipe_id": recipe_id})
    return answer


# --- recipe details ------------------------------------------------------------------------------

COMBINATIONS = [
    (None, None, "fr"),
    (None, 7, "en"),
    ("1001", None, "fr"),
    ("1001", 1, "en"),
    ("1002", 3, "fr"),
    ("1002", 50, "en"),
]


def query(store_id: str | None, serves: int | None) -> str:
    parts = [f"store_id={store_id}"] if store_id else []
    parts += [f"serves={serves}"] if serves else []
    return "&".join(parts)


@pytest.mark.parametrize(("store_id", "serves", "language"), COMBINATIONS)
def test_every_detail_is_the_documented_one(
    client: FlaskClient, seed, store_id: str | None, serves: int | None, language: str
) -> None:
    headers = {"Language-Id": language}
    ids = sorted(seed.recipes, key=int)
    batch = client.get(f"/api/v1/recipes/batch?ids={','.join(ids)}&{query(store_id, serves)}", headers=headers)
    assert batch.status_code == 200
    expected = [expected_detail(seed, r, store_id, serves, language) for r in ids]
    assert batch.json == {"data": expected}
    for recipe_id, detail in zip(ids[:12], expected, strict=False):
        path = f"/api/v1/recipes/{recipe_id}?{query(store_id, serves)}"
        assert client.get(path, headers=headers).json == detail


def test_batch_answers_in_the_order_asked(client: FlaskClient, seed) -> None:
    ids = sorted(seed.recipes, key=int)
    asked = [ids[9], "abc", ids[2], ids[9], "0", "999999", f" {ids[30]}", ids[0], "99999999999"]
    body = client.get(f"/api/v1/recipes/batch?ids={','.join(asked)}&store_id=1002&serves=5").json
    order = [ids[9], ids[2], ids[30], ids[0]]
    assert body == {"data": [expected_detail(seed, r, "1002", 5, "fr") for r in order]}


def test_a_batch_of_unknown_ids_is_empty(client: FlaskClient) -> None:
    assert client.get("/api/v1/recipes/batch?ids=999999,abc,0").json == {"data": []}


@pytest.mark.parametrize("public_url", [None, "https://cdn.example/shop"])
def test_picture_urls_of_details_are_those_of_url_for(tmp_path, public_url: str | None) -> None:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'none.sqlite'}",
            "PUBLIC_URL": public_url,
        }
    )
    for base in ("http://localhost", "https://shop.example:8443/prefix"):
        with app.test_request_context("/api/v1/recipes/batch", base_url=base):
            for endpoint, argument in (
                ("media.recipe_picture", "recipe_id"),
                ("media.product_picture", "product_id"),
            ):
                built = picture_urls(endpoint, argument)
                for value in (1, 42, 100001, 918273645, 2**31 - 1):
                    assert built(value) == picture_url(endpoint, argument, value)


# --- suggestions ---------------------------------------------------------------------------------


def pair(k: int) -> list[str]:
    return [str(100001 + 2 * k), str(100002 + 2 * k)]


def page(seed, n: int, offset: int = 0, current: bool = False) -> list[dict[str, Any]]:
    products = sorted(seed.products, key=int)
    contexts = []
    for k in range(n):
        surrounding = [p for p in pair(k + offset) if p in seed.products] or [products[k]]
        contexts.append(
            {
                "key": str(k),
                "surrounding_product_ids": surrounding,
                "current_product_ids": [products[(7 * k + offset) % len(products)]] if current else [],
            }
        )
    return contexts


FILTERS = [
    {},
    {"store_id": "1001"},
    {"store_id": "1002"},
    {"category_id": "rapide"},
    {"store_id": "1002", "category_id": "vegetarien"},
    {"keyword": "Tomate"},
    {"store_id": "1001", "category_id": "familial", "keyword": "crème"},
]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize(("offset", "current"), [(0, False), (40, True), (120, False)])
def test_suggestions_are_the_documented_draw(
    client: FlaskClient, seed, filters: dict[str, str], offset: int, current: bool
) -> None:
    contexts = page(seed, 24, offset, current)
    for session in ("s", "session-7"):
        response = client.post(
            "/api/v1/suggestions",
            json={"contexts": contexts, **filters},
            headers={"Session-Id": session, "Supplier-Token": "demo-retailer-token"},
        )
        assert response.status_code == 200
        assert response.json == {"data": expected_suggestions(seed, contexts, session, **filters)}


def test_suggestions_count_the_likes_of_the_user(client: FlaskClient, seed, user_id: str) -> None:
    contexts = page(seed, 24, 10, True)
    headers = {
        "Session-Id": "s",
        "Authorization": f"user_id {user_id}",
        "Supplier-Token": "demo-retailer-token",
    }
    without = expected_suggestions(seed, contexts, "s", store_id="1002")
    liked = {r for r in seed.recipes if int(r) % 3 == 0}
    for recipe_id in liked:
        assert client.put(f"/api/v1/likes/{recipe_id}", headers=headers).status_code == 204
    expected = expected_suggestions(seed, contexts, "s", liked=liked, store_id="1002")
    assert expected != without, "the likes must change some suggestion for this test"
    body = {"contexts": contexts, "store_id": "1002"}
    assert client.post("/api/v1/suggestions", json=body, headers=headers).json == {"data": expected}
    unprofiled = {**headers, "Profiling": "false"}
    answer = client.post("/api/v1/suggestions", json=body, headers=unprofiled).json
    assert answer == {"data": without}


@pytest.mark.parametrize("params", [{}, {"store_id": "1001"}, {"store_id": "1002", "serves": "3"}])
def test_summary_view_is_the_detail_without_its_lists(client, params):
    """`view=summary` (cards) leaves out ingredients and steps, and nothing else."""
    ids = ",".join(str(n) for n in range(1, 70))
    full = client.get("/api/v1/recipes/batch", query_string={"ids": ids, **params}).get_json()["data"]
    summary = client.get("/api/v1/recipes/batch", query_string={"ids": ids, "view": "summary", **params}).get_json()[
        "data"
    ]
    assert summary == [{k: v for k, v in d.items() if k not in ("ingredients", "steps")} for d in full]
    one = client.get("/api/v1/recipes/5", query_string={"view": "summary", **params}).get_json()
    assert one == summary[4]


def test_an_unknown_view_is_a_400(client):
    response = client.get("/api/v1/recipes/5", query_string={"view": "everything"})
    assert response.status_code == 400 and "view" in response.get_json()["errors"]["query"]

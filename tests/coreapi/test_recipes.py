"""Recipe summaries, details, pricing, serves, completion filter, batches."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

import pytest
from flask.testing import FlaskClient

CENT = Decimal("0.01")
SUMMARY_FIELDS = {
    "id", "external_id", "title", "description", "picture_url", "type", "categories", "tags", "equipment",
    "difficulty", "preparation_time", "cooking_time", "total_time", "guests",
}  # fmt: skip
DETAIL_FIELDS = SUMMARY_FIELDS | {"steps", "ingredients", "ingredient_pictures", "available", "promoted", "pricing"}


def all_pages(client: FlaskClient, path: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        body = client.get(f"{path}&per_page=7&page={page}").json
        items += body["data"]
        if page * body["per_page"] >= body["total"]:
            return items
        page += 1


def expected_pricing(seed, recipe_id: str, store_id: str, serves: int | None = None) -> Any:
    """Pricing computed from the seed JSON alone: first available product, prorated."""
    recipe = seed.recipes[recipe_id]
    guests = serves or recipe["guests"]
    total = Decimal(0)
    for item in recipe["ingredients"]:
        product_id = seed.first_available(store_id, item["id"])
        if product_id is None:
            return None
        quantity = Decimal(item["quantity"]) * guests / recipe["guests"]
        size = Decimal(seed.products[product_id]["size_value"])
        total += seed.shelf_price(store_id, product_id) * quantity / size
    total = total.quantize(CENT, rounding=ROUND_HALF_UP)
    per_guest = (total / guests).quantize(CENT, rounding=ROUND_HALF_UP)
    return {"guests": guests, "total": float(total), "price_per_guest": float(per_guest),
            "currency": "EUR"}  # fmt: skip


def incomplete_at(seed, store_id: str) -> set[str]:
    return {r for r in seed.recipes if not seed.is_complete_at(store_id, r)}


# --- summaries -----------------------------------------------------------------------------


def test_summaries(client: FlaskClient, seed) -> None:
    body = client.get("/api/v1/recipes").json
    assert (body["page"], body["per_page"], body["total"]) == (1, 20, len(seed.recipes))
    for summary in body["data"]:
        assert set(summary) == SUMMARY_FIELDS
        expected = seed.recipes[summary["id"]]
        assert summary["title"] == expected["title"]
        assert summary["external_id"] == expected["external_id"]
        assert summary["categories"] == expected["categories"]
        assert summary["equipment"] == seed.equipment_of(summary["id"])
        assert summary["total_time"] == expected["preparation_time"] + expected["cooking_time"]
        assert summary["guests"] == expected["guests"]
        assert summary["picture_url"].endswith(f"/media/recipes/{summary['id']}.svg")


TYPE_LABELS = {
    "fr": {"starter": "Entrée", "main-dish": "Plat principal", "dessert": "Dessert", "drink": "Boisson"},
    "en": {"starter": "Starter", "main-dish": "Main course", "dessert": "Dessert", "drink": "Drink"},
}


def expected_tags(seed, recipe_id: str, language: str) -> list[str]:
    """The type's label, then the recipe's diet categories, then its other ones, named in the language."""
    recipe = seed.recipes[recipe_id]
    categories = {category["id"]: category for category in seed.categories}
    ordered = [categories[c] for c in recipe["categories"] if categories[c]["diet"]]
    ordered += [categories[c] for c in recipe["categories"] if not categories[c]["diet"]]
    names = [(c["name_en"] or c["name"]) if language == "en" else c["name"] for c in ordered]
    return [TYPE_LABELS[language][recipe["type"]], *names][:6]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_tags_are_the_type_then_the_diets_then_the_themes(client: FlaskClient, seed, language: str) -> None:
    headers = {"Language-Id": language}
    ids = sorted(seed.recipes, key=int)
    summaries = all_pages(client, "/api/v1/recipes?")
    assert {s["id"]: s["tags"] for s in summaries} == {r: expected_tags(seed, r, "fr") for r in ids}
    for view in ("detail", "summary"):
        batch = client.get(
            "/api/v1/recipes/batch", query_string={"ids": ",".join(ids[:100]), "view": view}, headers=headers
        ).json["data"]
        assert {d["id"]: d["tags"] for d in batch} == {r: expected_tags(seed, r, language) for r in ids[:100]}
    listed = client.get("/api/v1/recipes?per_page=100", headers=headers).json["data"]
    assert all(s["tags"] == expected_tags(seed, s["id"], language) for s in listed)
    # A diet listed after a theme still comes first after the type.
    late_diet = next(r for r in ids if seed.recipes[r]["categories"][-1] == "vegetarien")
    assert client.get(f"/api/v1/recipes/{late_diet}", headers=headers).json["tags"][1] == (
        "Végétarien" if language == "fr" else "Vegetarian"
    )


def test_pagination_covers_every_recipe_once(client: FlaskClient, seed) -> None:
    ids = [summary["id"] for summary in all_pages(client, "/api/v1/recipes?")]
    assert sorted(ids, key=int) == sorted(seed.recipes, key=int)
    assert len(ids) == len(set(ids))


def test_page_past_the_end_is_empty(client: FlaskClient, seed) -> None:
    body = client.get("/api/v1/recipes?page=1000&per_page=100").json
    assert body["data"] == [] and body["total"] == len(seed.recipes)


@pytest.mark.parametrize("query", ["per_page=101", "per_page=0", "page=0", "page=x"])
def test_bad_pagination_is_400(client: FlaskClient, query: str) -> None:
    assert client.get(f"/api/v1/recipes?{query}").status_code == 400


@pytest.mark.parametrize("recipe_type", ["starter", "main-dish", "dessert", "drink"])
def test_type_filter(client: FlaskClient, seed, recipe_type: str) -> None:
    ids = {s["id"] for s in all_pages(client, f"/api/v1/recipes?type={recipe_type}")}
    assert ids == {r for r, recipe in seed.recipes.items() if recipe["type"] == recipe_type}


def test_category_filter(client: FlaskClient, seed) -> None:
    for category in seed.categories:
        ids = {s["id"] for s in all_pages(client, f"/api/v1/recipes?category={category['id']}")}
        expected = {r for r, recipe in seed.recipes.items() if category["id"] in recipe["categories"]}
        assert ids == expected
    assert client.get("/api/v1/recipes?category=no-such-category").json["total"] == 0


def test_search_in_titles_ignores_case_and_accents(client: FlaskClient, seed) -> None:
    recipe_id, recipe = next(
        (r, recipe) for r, recipe in seed.recipes.items() if any(c in recipe["title"] for c in "éèçô")
    )
    plain = recipe["title"].upper().translate(str.maketrans("ÉÈÇÔ", "EECO"))
    ids = {s["id"] for s in all_pages(client, f"/api/v1/recipes?q={plain}")}
    assert recipe_id in ids
    assert len(ids) < len(seed.recipes)


def test_completion_filter_at_store_1002(client: FlaskClient, seed) -> None:
    removed = incomplete_at(seed, "1002")
    assert removed, "the seed must make store 1002 lack some primary ingredients"
    ids = {s["id"] for s in all_pages(client, "/api/v1/recipes?store_id=1002")}
    assert ids == set(seed.recipes) - removed


def test_full_assortment_at_store_1001(client: FlaskClient, seed) -> None:
    ids = {s["id"] for s in all_pages(client, "/api/v1/recipes?store_id=1001")}
    assert ids == set(seed.recipes)


def test_recipes_unknown_store_is_400(client: FlaskClient) -> None:
    response = client.get("/api/v1/recipes?store_id=4242")
    assert response.status_code == 400
    assert response.json["errors"]["query"]["store_id"] == ["Unknown store."]


def test_by_external_id(client: FlaskClient, seed) -> None:
    recipe_id, recipe = next(iter(seed.recipes.items()))
    body = client.get(f"/api/v1/recipes/by-external-id/{recipe['external_id']}").json
    assert body["id"] == recipe_id and set(body) == SUMMARY_FIELDS
    assert client.get("/api/v1/recipes/by-external-id/no-such-recipe").status_code == 404


# --- details -------------------------------------------------------------------------------


def test_detail_without_store(client: FlaskClient, seed) -> None:
    recipe_id = next(iter(seed.recipes))
    body = client.get(f"/api/v1/recipes/{recipe_id}").json
    assert set(body) == DETAIL_FIELDS
    assert body["available"] is None and body["promoted"] is None and body["pricing"] is None
    for ingredient in body["ingredients"]:
        for product in ingredient["products"]:
            assert (product["price"], product["available"], product["promoted"]) == (None,) * 3


def test_detail_ingredients_and_ranked_products(client: FlaskClient, seed) -> None:
    recipe_id, recipe = next(iter(seed.recipes.items()))
    body = client.get(f"/api/v1/recipes/{recipe_id}?store_id=1001").json
    assert [i["id"] for i in body["ingredients"]] == [i["id"] for i in recipe["ingredients"]]
    for ingredient, item in zip(body["ingredients"], recipe["ingredients"], strict=True):
        assert ingredient["primary"] is item["primary"]
        assert ingredient["unit"] == seed.ingredients[item["id"]]["unit"]
        assert ingredient["quantity"] == item["quantity"]
        assert [p["id"] for p in ingredient["products"]] == seed.ranked_products(item["id"])
    assert [s["text"] for s in body["steps"]] == recipe["steps"]
    assert [s["position"] for s in body["steps"]] == list(range(1, len(recipe["steps"]) + 1))


def test_pricing_matches_the_seed_for_every_recipe(client: FlaskClient, seed) -> None:
    for store_id in ("1001", "1002"):
        ids = list(seed.recipes)
        for start in range(0, len(ids), 100):
            chunk = ids[start : start + 100]
            body = client.get(f"/api/v1/recipes/batch?store_id={store_id}&ids={','.join(chunk)}")
            for detail in body.json["data"]:
                assert detail["pricing"] == expected_pricing(seed, detail["id"], store_id), (
                    store_id,
                    detail["id"],
                )


def test_pricing_is_null_when_an_ingredient_cannot_be_bought(client: FlaskClient, seed) -> None:
    unpriced = [r for r in seed.recipes if expected_pricing(seed, r, "1002") is None]
    assert unpriced, "store 1002 should leave some recipe without a price"
    body = client.get(f"/api/v1/recipes/{unpriced[0]}?store_id=1002").json
    assert body["pricing"] is None


def test_available_follows_the_primary_ingredient(client: FlaskClient, seed) -> None:
    removed = sorted(incomplete_at(seed, "1002"), key=int)
    kept = sorted(set(seed.recipes) - set(removed), key=int)
    assert client.get(f"/api/v1/recipes/{removed[0]}?store_id=1002").json["available"] is False
    assert client.get(f"/api/v1/recipes/{kept[0]}?store_id=1002").json["available"] is True
    assert client.get(f"/api/v1/recipes/{removed[0]}?store_id=1001").json["available"] is True


def test_promoted_when_a_chosen_product_is_promoted(client: FlaskClient, seed) -> None:
    for store_id in ("1001", "1002"):
        promoted = set(seed.stores[store_id]["promoted_product_ids"])
        ids = list(seed.recipes)[:100]
        body = client.get(f"/api/v1/recipes/batch?store_id={store_id}&ids={','.join(ids)}").json
        for detail in body["data"]:
            chosen = {seed.first_available(store_id, i["id"]) for i in detail["ingredients"]}
            assert detail["promoted"] is bool(chosen & promoted), (store_id, detail["id"])


def test_product_availability_at_the_store(client: FlaskClient, seed) -> None:
    unavailable = set(seed.stores["1002"]["unavailable_product_ids"])
    recipe_id = sorted(incomplete_at(seed, "1002"), key=int)[0]
    body = client.get(f"/api/v1/recipes/{recipe_id}?store_id=1002").json
    products = [p for i in body["ingredients"] for p in i["products"]]
    assert any(not p["available"] for p in products)
    for product in products:
        assert product["available"] is (product["id"] not in unavailable)
        assert product["price"] == float(seed.shelf_price("1002", product["id"]))


@pytest.mark.parametrize("serves", [1, 3, 7, 50])
def test_serves_scales_quantities_and_pricing(client: FlaskClient, seed, serves: int) -> None:
    recipe_id, recipe = next(iter(seed.recipes.items()))
    body = client.get(f"/api/v1/recipes/{recipe_id}?store_id=1001&serves={serves}").json
    assert body["guests"] == serves
    for ingredient, item in zip(body["ingredients"], recipe["ingredients"], strict=True):
        expected = Decimal(item["quantity"]) * serves / recipe["guests"]
        assert ingredient["quantity"] == pytest.approx(float(expected), abs=0.001)
    assert body["pricing"] == expected_pricing(seed, recipe_id, "1001", serves)
    assert body["pricing"]["guests"] == serves


@pytest.mark.parametrize("serves", ["0", "51", "-1", "two", "1.5"])
def test_bad_serves_is_400(client: FlaskClient, seed, serves: str) -> None:
    recipe_id = next(iter(seed.recipes))
    response = client.get(f"/api/v1/recipes/{recipe_id}?serves={serves}")
    assert response.status_code == 400
    assert "serves" in response.json["errors"]["query"]


def _gram_text(grams: Decimal, decimal_mark: str) -> str:
    if grams >= 1000:
        kilos = f"{(grams / 1000).quantize(CENT, rounding=ROUND_HALF_UP)}".rstrip("0").rstrip(".")
        return kilos.replace(".", decimal_mark) + " kg"
    return f"{grams.quantize(Decimal(1), rounding=ROUND_HALF_UP)} g"


def test_display_text_of_quantities(client: FlaskClient, seed) -> None:
    recipe_id, recipe = next(
        (r, recipe)
        for r, recipe in seed.recipes.items()
        if any(
            seed.ingredients[i["id"]]["unit"] == "g" and not i.get("display_unit") and i["quantity"] >= 100
            for i in recipe["ingredients"]
        )
    )
    item = next(
        i
        for i in recipe["ingredients"]
        if seed.ingredients[i["id"]]["unit"] == "g" and not i.get("display_unit") and i["quantity"] >= 100
    )
    position = recipe["ingredients"].index(item)
    serves = 50  # large enough to read in kilograms
    for language, mark in (("fr", ","), ("en", ".")):
        for guests in (recipe["guests"], serves):
            body = client.get(f"/api/v1/recipes/{recipe_id}?serves={guests}", headers={"Language-Id": language}).json
            grams = Decimal(item["quantity"]) * guests / recipe["guests"]
            assert body["ingredients"][position]["display"] == _gram_text(grams, mark)


def test_display_unit_reads_in_spoons(client: FlaskClient, seed) -> None:
    found = [
        (r, recipe["ingredients"].index(i), i)
        for r, recipe in seed.recipes.items()
        for i in recipe["ingredients"]
        if i.get("display_unit") == "c. à soupe"
    ]
    if not found:
        pytest.fail("the seed must keep an ingredient read in tablespoons for this test; none reads in tablespoons")
    recipe_id, position, item = found[0]
    spoons = Decimal(item["quantity"]) / 15
    french = client.get(f"/api/v1/recipes/{recipe_id}").json["ingredients"][position]
    english = client.get(f"/api/v1/recipes/{recipe_id}", headers={"Language-Id": "en"}).json["ingredients"][position]
    halves = max((spoons * 2).quantize(Decimal(1), rounding=ROUND_HALF_UP), Decimal(1))
    number = f"{halves / 2:.1f}".removesuffix(".0")
    assert french["display"] == f"{number.replace('.', ',')} c. à soupe"
    assert english["display"] == f"{number} tbsp"


def test_english_texts_fall_back_to_french(client: FlaskClient, seed) -> None:
    recipe_id, recipe = next(iter(seed.recipes.items()))
    body = client.get(f"/api/v1/recipes/{recipe_id}", headers={"Language-Id": "en"}).json
    assert body["title"] == (recipe.get("title_en") or recipe["title"])
    assert body["description"] == (recipe.get("description_en") or recipe["description"])
    assert [s["text"] for s in body["steps"]] == (recipe.get("steps_en") or recipe["steps"])
    for ingredient in body["ingredients"]:
        source = seed.ingredients[ingredient["id"]]
        assert ingredient["name"] == (source.get("name_en") or source["name"])


def test_detail_404_and_400(client: FlaskClient, seed) -> None:
    assert client.get("/api/v1/recipes/999999").status_code == 404
    assert client.get("/api/v1/recipes/not-an-id").status_code == 404
    recipe_id = next(iter(seed.recipes))
    assert client.get(f"/api/v1/recipes/{recipe_id}?store_id=77").status_code == 400


# --- batch ---------------------------------------------------------------------------------


def test_batch_in_the_order_asked_without_unknown_ids(client: FlaskClient, seed) -> None:
    ids = sorted(seed.recipes, key=int)
    asked = [ids[4], ids[0], "999999", ids[2], "nope", ids[4]]
    body = client.get(f"/api/v1/recipes/batch?store_id=1001&ids={','.join(asked)}").json
    assert [d["id"] for d in body["data"]] == [ids[4], ids[0], ids[2]]
    for detail in body["data"]:
        assert set(detail) == DETAIL_FIELDS
        assert detail["pricing"] == expected_pricing(seed, detail["id"], "1001")


def test_batch_is_the_same_as_single_details(client: FlaskClient, seed) -> None:
    ids = list(seed.recipes)[:5]
    batch = client.get(f"/api/v1/recipes/batch?store_id=1002&serves=3&ids={','.join(ids)}").json
    singles = [client.get(f"/api/v1/recipes/{i}?store_id=1002&serves=3").json for i in ids]
    assert batch["data"] == singles


def test_batch_limits(client: FlaskClient) -> None:
    too_many = ",".join(str(i) for i in range(1, 102))
    assert client.get(f"/api/v1/recipes/batch?ids={too_many}").status_code == 400
    assert client.get("/api/v1/recipes/batch").status_code == 400
    assert client.get("/api/v1/recipes/batch?ids=1&serves=51").status_code == 400
    assert client.get("/api/v1/recipes/batch?ids=1&store_id=9").status_code == 400


def test_batch_costs_a_fixed_number_of_queries(client: FlaskClient, seed, count_queries) -> None:
    ids = list(seed.recipes)[:100]
    with count_queries() as one:
        client.get(f"/api/v1/recipes/batch?store_id=1001&ids={ids[0]}")
    with count_queries() as many:
        response = client.get(f"/api/v1/recipes/batch?store_id=1001&ids={','.join(ids)}")
    assert len(response.json["data"]) == len(ids)
    assert len(many) == len(one) <= 10


@pytest.mark.parametrize("serves", [None, 1, 9])
def test_candidate_products_carry_the_packages_the_ingredient_needs(client: FlaskClient, seed, serves) -> None:
    """packages = ceil(quantity for the guests / product size), from the seed JSON alone."""
    query = f"?store_id=1001&serves={serves}" if serves else "?store_id=1001"
    for recipe_id in ("1", "5", "30"):
        detail = client.get(f"/api/v1/recipes/{recipe_id}{query}").get_json()
        recipe = seed.recipes[recipe_id]
        guests = serves or recipe["guests"]
        for item, ingredient in zip(recipe["ingredients"], detail["ingredients"], strict=True):
            needed = Fraction(str(item["quantity"])) * guests / recipe["guests"]
            for product in ingredient["products"]:
                size = Fraction(str(seed.products[product["id"]]["size_value"]))
                assert product["packages"] == max(1, math.ceil(needed / size))

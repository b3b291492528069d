"""The demo catalog in coreapi/seed/data, read directly (no app), and the pictures coreapi.drawing draws of it."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from coreapi import drawing

DATA = Path(__file__).resolve().parents[2] / "coreapi" / "seed" / "data"
UNITS = {"g", "ml", "piece"}
TYPES = {"starter", "main-dish", "dessert", "drink"}
PACKAGES = {"bag", "box", "bottle", "jar", "can", "tray", "loose", "carton", "pack"}
HEX = re.compile(r"^#[0-9a-f]{6}$")
SVG_NS = "http://www.w3.org/2000/svg"


def load(name: str) -> list[dict]:
    with open(DATA / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def categories() -> list[dict]:
    return load("categories")


@pytest.fixture(scope="module")
def equipment() -> list[dict]:
    return load("equipment")


@pytest.fixture(scope="module")
def ingredients() -> dict[str, dict]:
    return {i["id"]: i for i in load("ingredients")}


@pytest.fixture(scope="module")
def products() -> list[dict]:
    return load("products")


@pytest.fixture(scope="module")
def recipes() -> list[dict]:
    return load("recipes")


@pytest.fixture(scope="module")
def stores() -> dict[str, dict]:
    return {s["id"]: s for s in load("stores")}


@pytest.fixture(scope="module")
def suppliers() -> list[dict]:
    return load("suppliers")


def products_of(products: list[dict]) -> dict[str, list[dict]]:
    by_ingredient: dict[str, list[dict]] = {}
    for product in products:
        for link in product["ingredients"]:
            by_ingredient.setdefault(link["id"], []).append(product)
    return by_ingredient


def primary_of(recipe: dict) -> str:
    return next(i["id"] for i in recipe["ingredients"] if i["primary"])


def recipe_colors(recipe: dict, ingredients: dict[str, dict]) -> list[str]:
    return [ingredients[i["id"]]["color"] for i in recipe["ingredients"]]


def unique(ids: list[str]) -> bool:
    return len(ids) == len(set(ids))


# --------------------------------------------------------------------------- counts and ids


def test_counts(recipes, products, ingredients, categories):
    assert len(recipes) >= 60
    assert len(products) >= 300
    assert len(ingredients) >= 100
    assert 8 <= len(categories) <= 15
    mapped = {p["id"] for p in products if p["ingredients"]}
    assert len(mapped) >= 50


def test_ids_are_unique_strings(recipes, products, categories, stores, suppliers):
    for rows in (recipes, products, categories, list(stores.values()), suppliers):
        ids = [row["id"] for row in rows]
        assert all(isinstance(i, str) and i for i in ids)
        assert unique(ids)
    assert [r["id"] for r in recipes] == [str(n) for n in range(1, len(recipes) + 1)]
    assert all(int(p["id"]) >= 100001 for p in products)
    assert unique([r["external_id"] for r in recipes])
    assert all(re.fullmatch(r"pub-[a-z0-9-]+", r["external_id"]) for r in recipes)
    ingredient_ids = [i["id"] for i in load("ingredients")]
    assert unique(ingredient_ids)


def test_categories_are_named_in_both_languages(categories):
    for category in categories:
        assert category["name"] and category["name_en"]


def test_the_diets_are_vegetarien_and_sans_gluten(categories):
    assert all(isinstance(category["diet"], bool) for category in categories)
    assert [category["id"] for category in categories if category["diet"]] == ["vegetarien", "sans-gluten"]


def test_equipment(equipment):
    assert [row["id"] for row in equipment] == ["four", "mixeur", "cocotte"]
    for row in equipment:
        assert set(row) == {"id", "name", "name_en"}
        assert row["name"] and row["name_en"]


def test_ingredients(ingredients):
    for ingredient in ingredients.values():
        assert ingredient["name"] and ingredient["name_en"]
        assert ingredient["unit"] in UNITS
        assert HEX.match(ingredient["color"]), ingredient


# --------------------------------------------------------------------------- products


def test_products_are_well_formed(products, ingredients):
    for product in products:
        assert product["name"] and product["brand"]
        assert product["package"] in PACKAGES
        assert product["aisle"]
        assert isinstance(product["price"], (int, float)) and 0 < product["price"] < 100
        assert round(product["price"], 2) == product["price"]
        assert isinstance(product["size_value"], (int, float)) and product["size_value"] > 0
        assert product["size_unit"] in UNITS
        assert product["ingredients"], product
        for link in product["ingredients"]:
            assert link["id"] in ingredients, link
            assert link["rank"] >= 1
            assert ingredients[link["id"]]["unit"] == product["size_unit"], product


def test_product_names_are_real(products):
    assert not [p for p in products if re.search(r"\bproduct\s*\d+\b", p["name"], re.I)]
    assert unique([(p["name"], p["brand"]) for p in products])


def test_every_ingredient_has_a_rank_1_product_and_at_most_4(ingredients, products):
    by_ingredient = products_of(products)
    for ingredient_id in ingredients:
        ranks = sorted(
            link["rank"]
            for p in by_ingredient.get(ingredient_id, [])
            for link in p["ingredients"]
            if link["id"] == ingredient_id
        )
        assert ranks[:1] == [1], ingredient_id
        assert ranks == list(range(1, len(ranks) + 1)), (ingredient_id, ranks)
        assert len(ranks) <= 4


def test_most_ingredients_have_alternatives(ingredients, products):
    by_ingredient = products_of(products)
    several = [i for i in ingredients if len(by_ingredient[i]) >= 2]
    assert len(several) >= 0.7 * len(ingredients)


# --------------------------------------------------------------------------- recipes


def test_all_types_are_present(recipes):
    counts = Counter(r["type"] for r in recipes)
    assert set(counts) == TYPES
    assert counts["starter"] >= 10 and counts["main-dish"] >= 25 and counts["dessert"] >= 10 and counts["drink"] >= 5


def test_recipes_are_well_formed(recipes, categories):
    category_ids = {c["id"] for c in categories}
    for recipe in recipes:
        assert recipe["title"] and recipe["title_en"]
        assert recipe["description"] and recipe["description_en"]
        assert recipe["type"] in TYPES
        assert 1 <= len(recipe["categories"]) <= 5
        assert set(recipe["categories"]) <= category_ids, recipe["id"]
        assert recipe["difficulty"] in (1, 2, 3)
        assert recipe["preparation_time"] > 0 and recipe["cooking_time"] >= 0
        assert recipe["guests"] >= 1
        assert 4 <= len(recipe["ingredients"]) <= 8, recipe["id"]
        assert 3 <= len(recipe["steps"]) <= 7
        assert len(recipe["steps_en"]) == len(recipe["steps"])
        assert all(s.strip() for s in recipe["steps"] + recipe["steps_en"])


def test_every_category_is_used(recipes, categories):
    used = {c for r in recipes for c in r["categories"]}
    assert used == {c["id"] for c in categories}


def test_recipe_ingredients_resolve_and_one_is_primary(recipes, ingredients):
    for recipe in recipes:
        ids = [i["id"] for i in recipe["ingredients"]]
        assert unique(ids), recipe["id"]
        for item in recipe["ingredients"]:
            assert item["id"] in ingredients, (recipe["id"], item)
            assert isinstance(item["quantity"], (int, float)) and item["quantity"] > 0
            assert item["display_unit"] in (None, "c. à soupe", "c. à café")
            assert isinstance(item["primary"], bool)
        assert sum(i["primary"] for i in recipe["ingredients"]) == 1, recipe["id"]


# What the French steps say when a recipe needs each piece of equipment (coreapi/seed/README.md).
EQUIPMENT_WORDS = {
    "four": re.compile(r"\bfour\b|enfourn", re.I),
    "mixeur": re.compile(r"\bmix", re.I),
    "cocotte": re.compile(r"\bcocotte\b", re.I),
}


def test_recipe_equipment_resolves(recipes, equipment):
    known = {row["id"] for row in equipment}
    for recipe in recipes:
        assert isinstance(recipe["equipment"], list), recipe["id"]
        assert unique(recipe["equipment"]), recipe["id"]
        assert set(recipe["equipment"]) <= known, recipe["id"]
    needing = Counter(equipment_id for recipe in recipes for equipment_id in recipe["equipment"])
    assert set(needing) == known  # no equipment that nothing needs
    assert needing["four"] >= 12


def test_recipe_equipment_is_what_the_steps_say(recipes):
    """A recipe needs a piece of equipment exactly when one of its French steps uses it."""
    for recipe in recipes:
        steps = " ".join(recipe["steps"])
        said = {equipment_id for equipment_id, words in EQUIPMENT_WORDS.items() if words.search(steps)}
        assert set(recipe["equipment"]) == said, (recipe["id"], recipe["title"])


def test_every_ingredient_is_used_by_a_recipe(recipes, ingredients):
    used = {i["id"] for r in recipes for i in r["ingredients"]}
    assert used == set(ingredients)


# --------------------------------------------------------------------------- stores


def test_stores(stores, products):
    product_ids = {p["id"] for p in products}
    assert set(stores) >= {"1001", "1002"}
    for store in stores.values():
        assert store["name"] and store["city"]
        assert store["price_factor"] > 0
        assert -90 <= store["latitude"] <= 90 and -180 <= store["longitude"] <= 180
        assert all(round(store[axis], 4) == store[axis] for axis in ("latitude", "longitude"))  # 4 decimals
        assert set(store["unavailable_product_ids"]) <= product_ids
        assert set(store["promoted_product_ids"]) <= product_ids
        assert unique(store["unavailable_product_ids"]) and unique(store["promoted_product_ids"])
        assert not set(store["promoted_product_ids"]) & set(store["unavailable_product_ids"])
    paris = stores["1001"]
    assert paris["name"] == "Demo Market Paris Bastille" and paris["price_factor"] == 1.0
    assert paris["unavailable_product_ids"] == []
    assert len(paris["promoted_product_ids"]) >= 10
    lyon = stores["1002"]
    assert lyon["name"] == "Demo Market Lyon Part-Dieu" and lyon["price_factor"] > 1
    assert lyon["promoted_product_ids"]
    # Where their names say: Place de la Bastille in Paris, La Part-Dieu in Lyon.
    assert (paris["latitude"], paris["longitude"]) == (48.8533, 2.3692)
    assert (lyon["latitude"], lyon["longitude"]) == (45.7606, 4.8594)


def test_store_1002_makes_recipes_incomplete(stores, recipes, products):
    unavailable = set(stores["1002"]["unavailable_product_ids"])
    by_ingredient = products_of(products)

    def complete(recipe: dict) -> bool:
        return any(p["id"] not in unavailable for p in by_ingredient[primary_of(recipe)])

    incomplete = [r["id"] for r in recipes if not complete(r)]
    assert len(incomplete) >= 8
    assert len(incomplete) <= len(recipes) // 3  # the store still has plenty to show
    # the whole primary assortment is missing, not just the best product
    assert len({primary_of(r) for r in recipes if r["id"] in incomplete}) >= 5


# --------------------------------------------------------------------------- suppliers


def test_suppliers(suppliers):
    by_token = {s["token"]: s for s in suppliers}
    assert set(by_token) == {"demo-retailer-token", "demo-nopers-token", "demo-publisher-token"}
    retailer, nopers, publisher = (
        by_token[t] for t in ("demo-retailer-token", "demo-nopers-token", "demo-publisher-token")
    )
    assert (retailer["id"], retailer["kind"], retailer["personalization"]) == ("1", "retailer", True)
    assert (nopers["id"], nopers["kind"], nopers["personalization"]) == ("2", "retailer", False)
    assert (publisher["id"], publisher["kind"], publisher["personalization"]) == ("3", "publisher", True)
    assert publisher["affiliated_supplier_id"] == retailer["id"]
    assert retailer["affiliated_supplier_id"] is None and nopers["affiliated_supplier_id"] is None
    # The demo publisher's blog (examples/publisher) is a site of its own.
    assert publisher["routing"]["local"]["baseUrl"] == "http://127.0.0.1:8090"
    # The demo retailer's catalog home: where the planner leads without a retailer cart.
    assert retailer["routing"]["local"]["features"]["catalog"] == "/idees"
    assert retailer["routing"]["production"]["features"]["catalog"] == "/recettes"
    for supplier in suppliers:
        local, production = supplier["routing"]["local"], supplier["routing"]["production"]
        assert supplier["name"]
        if supplier["kind"] == "retailer":
            assert local["baseUrl"] == "http://127.0.0.1:8080"
        assert local["features"]["planner"] == "/planner"
        assert local["planner"]["current"] == "/planner/current-menu"
        assert local["retailerCart"] == "/cart"
        assert production["baseUrl"].startswith("https://")
        assert production["features"]["planner"] == "/planificateur"
        assert production["planner"]["current"] == ""
    # at least one production routing leaves the cart out, to exercise the fallback
    assert any("retailerCart" not in s["routing"]["production"] for s in suppliers)


# --------------------------------------------------------------------------- pictures


def check_svg(svg: str, width: int, height: int) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert root.get("viewBox") == f"0 0 {width} {height}"
    assert root.get("width") is None and root.get("height") is None
    urls = re.findall(r"https?://[^\s\"'<>)]*", svg)
    assert set(urls) <= {SVG_NS}, urls
    assert "<script" not in svg.lower() and "href" not in svg
    return root


def test_every_recipe_picture_is_valid_svg(recipes, ingredients):
    for recipe in recipes:
        svg = drawing.recipe_picture_svg(
            recipe_id=recipe["id"], recipe_type=recipe["type"], colors=recipe_colors(recipe, ingredients)
        )
        root = check_svg(svg, 800, 600)
        assert not [e for e in root.iter() if e.tag.endswith("text")], recipe["id"]


def test_every_product_picture_is_valid_svg(products, ingredients):
    for product in products:
        svg = drawing.product_picture_svg(
            product_id=product["id"],
            package=product["package"],
            brand=product["brand"],
            name=product["name"],
            color=ingredients[product["ingredients"][0]["id"]]["color"],
        )
        root = check_svg(svg, 400, 400)
        texts = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
        assert product["brand"].upper()[:6] in texts.upper(), product["id"]


def test_pictures_are_deterministic_and_vary(recipes, ingredients):
    first, second = recipes[0], recipes[1]
    args = dict(recipe_id=first["id"], recipe_type=first["type"], colors=recipe_colors(first, ingredients))
    assert drawing.recipe_picture_svg(**args) == drawing.recipe_picture_svg(**args)
    other = drawing.recipe_picture_svg(
        recipe_id=second["id"], recipe_type=second["type"], colors=recipe_colors(second, ingredients)
    )
    assert other != drawing.recipe_picture_svg(**args)


def test_product_text_is_escaped():
    brand = 'Evil <script>alert("x")</script> & Co\'s'
    name = 'Tomates <b>grappe</b> & "cerises"'
    svg = drawing.product_picture_svg(product_id="1", package="jar", brand=brand, name=name, color="#d7392b")
    root = check_svg(svg, 400, 400)
    assert "<script" not in svg and "<b>" not in svg
    texts = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
    assert "EVIL <SCRIPT>" in texts  # the brand is drawn upper-case (and shortened), as text
    assert '<b>grappe</b> & "cerises"' in texts
    svg = drawing.product_picture_svg(product_id="2", package="bag", brand="A & B", name="x", color="#d7392b")
    assert "A &amp; B" in svg


def test_pictures_tolerate_bad_input():
    # an unknown type/package, a hostile colour, no colours at all: still a clean picture
    svg = drawing.recipe_picture_svg(recipe_id='"><script>', recipe_type="brunch", colors=['red"/><script>', None])
    check_svg(svg, 800, 600)
    assert "<script" not in svg and "red" not in svg
    svg = drawing.product_picture_svg(product_id="x", package="crate", brand="", name="", color="url(javascript:1)")
    check_svg(svg, 400, 400)
    assert "javascript" not in svg


# What each seed recipe is drawn as: what its title says it is (coreapi.drawing.dish_of).
DRAWN_AS = {
    "Salade niçoise": "salad",
    "Verrines avocat et crevettes": "verrines",
    "Mousse au chocolat": "verrines",
    "Velouté de potiron": "soup",
    "Quiche lorraine": "savory-tart",
    "Tarte fine tomates et moutarde": "savory-tart",
    "Tarte Tatin": "tart",
    "Crêpes de la Chandeleur": "crepes",
    "Galettes bretonnes complètes": "galette",
    "Croque-monsieur": "toast",
    "Burger maison au cheddar": "burger",
    "Spaghetti à la carbonara": "pasta",
    "Poke bowl au saumon": "bowl",
    "Œufs mimosa": "eggs",
    "Houmous maison": "dip",
    "Salade de fruits frais à la menthe": "fruit-salad",
    "Hachis parmentier": "gratin",
    "Bœuf bourguignon": "stew",
    "Crème brûlée à la vanille": "ramekins",
    "Pavé de saumon au citron et riz basmati": "plated",
    "Virgin mojito": "drink",
}


def test_every_seed_recipe_is_drawn_as_the_dish_its_title_names(recipes, ingredients):
    titles = {recipe["title"]: recipe for recipe in recipes}
    assert set(DRAWN_AS) <= set(titles)
    for recipe in recipes:
        dish = drawing.dish_of(recipe["title"], recipe["type"])
        assert dish in drawing.DISHES, recipe["title"]  # no seed recipe left to a random bowl or plate
        assert dish == DRAWN_AS.get(recipe["title"], dish), recipe["title"]
        svg = drawing.recipe_picture_svg(
            recipe_id=recipe["id"], recipe_type=recipe["type"], colors=recipe_colors(recipe, ingredients), dish=dish
        )
        root = check_svg(svg, 800, 600)
        assert root.get("data-dish") == (None if dish == "drink" else dish), recipe["title"]


def test_a_dish_changes_the_drawing_not_its_validity(recipes, ingredients):
    recipe = recipes[0]
    args = dict(recipe_id=recipe["id"], recipe_type=recipe["type"], colors=recipe_colors(recipe, ingredients))
    drawn = {dish: drawing.recipe_picture_svg(**args, dish=dish) for dish in drawing.DISHES if dish != "drink"}
    assert len(set(drawn.values())) == len(drawn)
    for svg in drawn.values():
        check_svg(svg, 800, 600)
    # An unknown dish is the recipe type's picture, as before.
    assert drawing.recipe_picture_svg(**args, dish="unknown") == drawing.recipe_picture_svg(**args)

"""The blog's own recipes: they agree with the partner's catalog (coreapi's seed, where the blog's ids are
the publisher's external ids), their pictures exist, and their texts read as French."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from examples.publisher.recipes import (
    BY_ID,
    CATEGORIES,
    FEATURED_ID,
    RECIPES,
    Ingredient,
    date_text,
    duration_text,
    quantity_text,
    related,
)

ROOT = Path(__file__).resolve().parents[2]
SEED = {recipe["external_id"]: recipe for recipe in json.loads((ROOT / "coreapi/seed/data/recipes.json").read_text())}
ILLUSTRATIONS = ROOT / "examples/publisher/static/illustrations"
# The blog's recipe the partner does not have yet: its page goes without the add-to-cart button.
NOT_IN_THE_CATALOG = "pub-gateau-basque"
# prerender's ids (README.md, Limits): what the button's `recipe_id` may be.
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")


def test_eight_recipes_of_the_catalog_and_one_of_the_blog_alone():
    in_catalog = [recipe.id for recipe in RECIPES if recipe.id in SEED]
    assert len(in_catalog) == 8
    assert [recipe.id for recipe in RECIPES if recipe.id not in SEED] == [NOT_IN_THE_CATALOG]
    assert len(BY_ID) == len(RECIPES)
    assert all(ID.match(recipe.id) for recipe in RECIPES)


@pytest.mark.parametrize("recipe", [r for r in RECIPES if r.id in SEED], ids=lambda r: r.id)
def test_a_recipe_agrees_with_the_catalog(recipe):
    seeded = SEED[recipe.id]
    assert recipe.title == seeded["title"]
    assert recipe.servings == seeded["guests"]
    assert (recipe.preparation, recipe.cooking) == (seeded["preparation_time"], seeded["cooking_time"])


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.id)
def test_a_recipe_has_its_content_and_picture(recipe):
    assert recipe.category in CATEGORIES
    assert recipe.intro and recipe.tip and recipe.author and recipe.kicker
    assert len(recipe.ingredients) >= 4 and len(recipe.steps) >= 3
    assert (ILLUSTRATIONS / recipe.picture).is_file()
    assert recipe.picture_alt.endswith(".")
    assert 1 <= recipe.servings <= 50


def test_the_featured_recipe_exists_and_related_recipes_are_others():
    assert FEATURED_ID in BY_ID
    for recipe in RECIPES:
        others = related(recipe)
        assert len(others) == 3 and recipe not in others
        assert len(set(others)) == 3


def test_ingredient_lines_in_french():
    assert Ingredient("de lardons fumés", 200, "g").line() == "200 g de lardons fumés"
    assert Ingredient("œufs", 3, one="œuf").line() == "3 œufs"
    assert Ingredient("œufs", 3, one="œuf").line(1) == "1 œuf"
    assert Ingredient("de rhum", 2, "c. à soupe").line(1.5) == "1,5 c. à soupe de rhum"
    assert Ingredient("Sel, poivre").line() == "Sel, poivre"


def test_quantities_durations_and_dates():
    assert [quantity_text(q) for q in (3, 3.0, 1.5, 0.25)] == ["3", "3", "1,5", "0,25"]
    assert [duration_text(m) for m in (25, 60, 70, 205)] == ["25 min", "1 h", "1 h 10", "3 h 25"]
    assert date_text(date(2025, 9, 1)) == "1er septembre 2025"
    assert date_text(date(2025, 11, 18)) == "18 novembre 2025"

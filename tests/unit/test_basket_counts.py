"""What the basket preview counts (prerender/rendering/my_space.py): a row, the lines its store sells; the summary,
the products those lines put in the cart, each once. The browser counts the same (tests/js/basket-counts.test.mjs
holds the same cases)."""

from __future__ import annotations

from typing import Any

from prerender.rendering.my_space import _sold_lines, _sold_products


def line(product_id: object, available: bool = True) -> dict[str, Any]:
    return {"product_id": product_id, "available": available, "quantity": 1}


def test_a_row_counts_the_lines_its_store_sells() -> None:
    assert len(_sold_lines({"lines": [line(1), line(2, False), line(3)]})) == 2
    assert _sold_lines({"lines": [None, "x", line(4)]}) == [line(4)]  # what is no line is left out
    assert _sold_lines({}) == []


def test_the_summary_counts_each_product_sold_once_however_many_recipes_use_it() -> None:
    recipes = [
        {"lines": [line(1), line(2), line(3, False)]},
        {"lines": [line(2), line(4)]},  # 2 again: the cart holds it once
        {"lines": [line(3, False)]},  # not sold at this store: not in the count
        "not a recipe",
    ]
    assert _sold_products(recipes) == 3
    assert _sold_products([{"lines": [line("7"), line(7)]}]) == 1  # an id is an id, string or number
    assert _sold_products([]) == 0

"""Unit tests of the shelf layout: where cards go, which products surround them, the band's order."""

from __future__ import annotations

from examples.shop.catalog_client import Product
from examples.shop.shelf import (
    BAND_AFTER,
    BAND_POSITIONS,
    FIRST_SCREEN_PRODUCTS,
    SINGLE_SLOTS,
    BandItem,
    CardItem,
    ProductItem,
    after_first_screen,
    alternative_pairs,
    assemble,
    band_contexts,
    recipe_id_of,
    single_requests,
)


def products(count: int) -> list[Product]:
    return [
        Product(
            id=str(100001 + i),
            name=f"P{i}",
            brand="B",
            size="1 kg",
            picture_url=None,
            price=None,
            available=None,
            promoted=False,
        )
        for i in range(count)
    ]


def test_single_cards_ask_for_their_left_and_right_products():
    shelf = products(24)
    asked = single_requests(shelf)
    assert [slot for slot, _ in asked] == list(SINGLE_SLOTS)
    for slot, (left, right) in asked:
        assert (left, right) == (shelf[slot.after - 1].id, shelf[slot.after].id)


def test_page_uses_variants_1_2_3_and_one_horizontal_card():
    assert {slot.display_variant for slot in SINGLE_SLOTS} == {1, 2, 3}
    assert [slot.orientation for slot in SINGLE_SLOTS].count("horizontal") == 1


def test_short_shelf_skips_the_slots_it_cannot_surround():
    assert [slot.after for slot, _ in single_requests(products(8))] == [3, 7]
    assert single_requests(products(1)) == []
    assert band_contexts(products(BAND_AFTER)) == []


def test_band_has_four_contexts_of_two_products_with_unique_positions():
    contexts = band_contexts(products(24))
    assert len(contexts) == 4
    assert [c.position for c in contexts] == list(BAND_POSITIONS)
    assert all(len(c.product_ids) == 2 for c in contexts)
    assert contexts[0].product_ids == ("100016", "100017")


def test_assemble_puts_cards_between_their_products_and_the_band_in_position_order():
    shelf = products(24)
    singles = {slot: (ids, f"<card {slot.after}>") for slot, ids in single_requests(shelf)}
    band = {40: "<d>", 10: "<a>", 30: "", 20: "<b>"}
    items = assemble(shelf, singles, band)
    assert sum(isinstance(item, ProductItem) for item in items) == 24
    for index, item in enumerate(items):
        if isinstance(item, CardItem):
            left, right = items[index - 1], items[index + 1]
            assert isinstance(left, ProductItem) and isinstance(right, ProductItem)
            assert item.product_ids == (left.product.id, right.product.id)
    (band_item,) = [item for item in items if isinstance(item, BandItem)]
    assert [card.position for card in band_item.cards] == [10, 20, 40]
    assert [card.html for card in band_item.cards] == ["<a>", "<b>", "<d>"]


def test_assemble_leaves_out_empty_slots_and_an_empty_band():
    shelf = products(24)
    items = assemble(shelf, {slot: (ids, "") for slot, ids in single_requests(shelf)}, {})
    assert all(isinstance(item, ProductItem) for item in items)
    assert len(items) == 24


def test_what_follows_the_first_screen_is_the_band():
    shelf = products(24)
    singles = {slot: (ids, f"<card {slot.after}>") for slot, ids in single_requests(shelf)}
    items = assemble(shelf, singles, {position: "<card>" for position in BAND_POSITIONS})
    after = after_first_screen(items)
    assert after is not None and isinstance(items[after], BandItem)
    assert sum(isinstance(item, ProductItem) for item in items[:after]) == FIRST_SCREEN_PRODUCTS
    assert sum(isinstance(item, CardItem) for item in items[:after]) == len(SINGLE_SLOTS)


def test_without_the_band_the_next_product_follows_the_first_screen():
    items = assemble(products(24), {}, {})
    assert after_first_screen(items) == FIRST_SCREEN_PRODUCTS
    assert isinstance(items[FIRST_SCREEN_PRODUCTS], ProductItem)


def test_a_shelf_no_longer_than_a_first_screen_has_nothing_after_it():
    assert after_first_screen(assemble(products(FIRST_SCREEN_PRODUCTS), {}, {})) is None


def test_recipe_id_of_reads_the_id_attribute_of_the_card():
    html = (
        '<svc-recipe-card id="svc-recipe-card-42" class="svc-recipe-card" recipe-id="42">'
        '<button data-recipe-id="42"></button></svc-recipe-card><script type="module" src="x"></script>'
    )
    assert recipe_id_of(html) == "42"
    assert recipe_id_of('<acme-recipe-card id="acme-recipe-card-a-7">') == "a-7"
    assert recipe_id_of("<p>no card</p>") is None


def test_alternative_pairs_stay_on_the_shelf():
    shelf = products(24)
    slot = SINGLE_SLOTS[0]
    pairs = alternative_pairs(shelf, slot)
    assert pairs and all(a in {p.id for p in shelf} and b in {p.id for p in shelf} for a, b in pairs)
    assert (shelf[slot.after - 1].id, shelf[slot.after].id) not in pairs

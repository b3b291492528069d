"""Unit tests of how a shelf page gathers its fragments: concurrently, and never the same recipe twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from examples.shop.fragments import fetch_shelf_fragments
from examples.shop.recipe_hints import RecipeHints
from examples.shop.shelf import SINGLE_SLOTS, band_contexts
from examples.shop.visitor import Visitor

from .test_shelf_layout import products

VISITOR = Visitor(session_id="s", authless_id="a", store_id="1001")


def card(recipe_id: str) -> str:
    return f'<svc-recipe-card id="svc-recipe-card-{recipe_id}"></svc-recipe-card>'


class FakePrerender:
    """Answers a card per pair of surrounding products from a table (default: a recipe named after them)."""

    def __init__(
        self, singles: dict[tuple[str, str], str] | None = None, band: dict[int, str] | None = None, fail: bool = False
    ) -> None:
        self.singles = singles or {}
        self.band = band or {}
        self.fail = fail
        self.asked: list[tuple[tuple[str, str], str | None, int, str]] = []

    def recipe_card(self, visitor, ids, *, store_id, display_variant, orientation, request_id=None):
        self.asked.append((tuple(ids), store_id, display_variant, orientation))
        if self.fail:
            return ""
        return self.singles.get(tuple(ids), card("-".join(ids)))

    def recipe_cards(self, visitor, contexts, *, store_id, display_variant, request_id=None):
        # like the real client: only the positions that got a card
        return {} if self.fail else {c.position: self.band[c.position] for c in contexts if c.position in self.band}

    def styles(self, visitor, name, *, request_id=None):
        return "" if self.fail else f"<link {name}>"


@pytest.fixture
def pool():
    with ThreadPoolExecutor(4) as executor:
        yield executor


def test_every_slot_and_the_styles_are_fetched(pool):
    shelf = products(24)
    fake = FakePrerender(band={c.position: card(f"band{c.position}") for c in band_contexts(shelf)})
    result = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5)
    assert list(result.singles) == list(SINGLE_SLOTS)
    assert sorted(result.band) == [10, 20, 30, 40]
    assert result.styles_html == "<link base><link recipe-card>"
    assert {(variant, orientation) for _, store, variant, orientation in fake.asked} == {
        (s.display_variant, s.orientation) for s in SINGLE_SLOTS
    }
    assert all(store == "1001" for _, store, _, _ in fake.asked)


def test_a_repeated_recipe_is_asked_again_with_other_products(pool):
    shelf = products(24)
    first, second = SINGLE_SLOTS[0], SINGLE_SLOTS[1]

    def pair(slot):
        return (shelf[slot.after - 1].id, shelf[slot.after].id)

    fake = FakePrerender(singles={pair(first): card("7"), pair(second): card("7")})
    result = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5)
    ids, html = result.singles[second]
    assert html != card("7") and ids != pair(second)
    assert result.singles[first] == (pair(first), card("7"))


def test_a_slot_stays_empty_when_every_choice_repeats_a_recipe(pool):
    shelf = products(24)
    fake = FakePrerender(band={10: card("7")})
    fake.singles = {(a.id, b.id): card("7") for a in shelf for b in shelf}
    result = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5)
    assert result.singles == {}
    assert result.band == {10: card("7")}


def test_prerender_down_gives_an_empty_page_of_fragments(pool):
    result = fetch_shelf_fragments(FakePrerender(fail=True), pool, VISITOR, products(24), budget=5)
    assert (result.singles, result.band, result.styles_html) == ({}, {}, "")


def test_the_visitors_next_shelf_asks_once_the_pairs_that_gave_new_recipes(pool):
    """The first shelf learns which pairs repeat a recipe (recipe_hints.py); the same visitor's next shelf asks
    one card a slot, no second wave, and shows the same cards."""
    shelf = products(24)
    first, second = SINGLE_SLOTS[0], SINGLE_SLOTS[1]
    pair = {slot: (shelf[slot.after - 1].id, shelf[slot.after].id) for slot in SINGLE_SLOTS}
    fake = FakePrerender(singles={pair[first]: card("7"), pair[second]: card("7")})
    hints = RecipeHints(ttl=60)
    shown = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5, hints=hints)
    assert len(fake.asked) > len(SINGLE_SLOTS)  # the repeat was asked again with other products

    fake.asked.clear()
    again = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5, hints=hints)
    assert again.singles == shown.singles
    assert len(fake.asked) == len(SINGLE_SLOTS)
    asked_pairs = {ids for ids, *_ in fake.asked}
    assert asked_pairs == {ids for ids, _ in shown.singles.values()}
    assert pair[second] not in asked_pairs


def test_hints_are_the_visitors_own(pool):
    """Another visitor's shelf (its own session) asks the first pairs again: the draw is per session."""
    shelf = products(24)
    first, second = SINGLE_SLOTS[0], SINGLE_SLOTS[1]
    pair = {slot: (shelf[slot.after - 1].id, shelf[slot.after].id) for slot in SINGLE_SLOTS}
    fake = FakePrerender(singles={pair[first]: card("7"), pair[second]: card("7")})
    hints = RecipeHints(ttl=60)
    fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5, hints=hints)

    fake.asked.clear()
    other = Visitor(session_id="s2", authless_id="b", store_id="1001")
    fetch_shelf_fragments(fake, pool, other, shelf, budget=5, hints=hints)
    assert pair[second] in {ids for ids, *_ in fake.asked}
    assert len(fake.asked) > len(SINGLE_SLOTS)


def test_a_wrong_hint_costs_only_the_second_wave(pool):
    """A hint that no longer holds (the recipe changed) is checked like any card: the repeat is asked again."""
    shelf = products(24)
    first, second = SINGLE_SLOTS[0], SINGLE_SLOTS[1]
    pair = {slot: (shelf[slot.after - 1].id, shelf[slot.after].id) for slot in SINGLE_SLOTS}
    fake = FakePrerender(singles={pair[first]: card("7"), pair[second]: card("7")})
    hints = RecipeHints(ttl=60)
    learned = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5, hints=hints)
    chosen_ids, _ = learned.singles[second]
    fake.singles[chosen_ids] = card("7")  # the pair that gave a new recipe now repeats the first card's

    shown = fetch_shelf_fragments(fake, pool, VISITOR, shelf, budget=5, hints=hints)
    ids, html = shown.singles[second]
    assert html != card("7") and ids not in (chosen_ids, pair[second])
    assert shown.singles[first] == (pair[first], card("7"))

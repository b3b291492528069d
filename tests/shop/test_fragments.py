"""Unit tests of how a shelf page gathers its fragments: concurrently, and never the same recipe twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from examples.shop.fragments import fetch_shelf_fragments
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

"""Unit tests of the shelf's recipe hints (examples/shop/recipe_hints.py): kept a while, at most so many."""

from __future__ import annotations

from examples.shop.recipe_hints import HintKey, RecipeHints


def key(left: str, right: str = "2") -> HintKey:
    return HintKey("single", "authless:a", "s", "1001", "fr", (left, right))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_hint_is_kept_its_lifetime_then_forgotten():
    clock = Clock()
    hints = RecipeHints(ttl=60, clock=clock)
    hints.put(key("1"), "7")
    clock.now = 59
    assert hints.get(key("1")) == "7"
    clock.now = 60
    assert hints.get(key("1")) is None


def test_the_least_recently_used_hint_goes_first():
    hints = RecipeHints(ttl=60, size=2)
    hints.put(key("1"), "7")
    hints.put(key("2"), "8")
    assert hints.get(key("1")) == "7"  # used: key 2 is now the oldest
    hints.put(key("3"), "9")
    assert (hints.get(key("1")), hints.get(key("2")), hints.get(key("3"))) == ("7", None, "9")


def test_no_lifetime_keeps_nothing():
    hints = RecipeHints(ttl=0)
    hints.put(key("1"), "7")
    assert hints.get(key("1")) is None


def test_every_part_of_the_context_counts():
    hints = RecipeHints(ttl=60)
    hints.put(key("1"), "7")
    assert hints.get(HintKey("band", "authless:a", "s", "1001", "fr", ("1", "2"))) is None
    assert hints.get(HintKey("single", "user:u", "s", "1001", "fr", ("1", "2"))) is None
    assert hints.get(HintKey("single", "authless:a", "s", None, "fr", ("1", "2"))) is None

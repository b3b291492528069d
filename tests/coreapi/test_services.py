"""Unit tests of the pure services: pricing, quantities, identity, suggestion choice, text."""

from __future__ import annotations

from decimal import Decimal

import pytest

from coreapi.services.catalog import database_ids
from coreapi.services.identity import (
    Identity,
    IdentityKind,
    RequestContext,
    parse_authorization,
    parse_language,
)
from coreapi.services.pricing import (
    Line,
    Offer,
    Pricing,
    is_promoted,
    price_recipe,
    shelf_price,
)
from coreapi.services.quantities import format_quantity, format_size, scale
from coreapi.services.suggestions import (
    ProductContext,
    choose,
    choose_recipes,
    draw_key,
    score_candidates,
)
from coreapi.services.text import localized, search_key

D = Decimal


def offer(product_id: int, size: str, price: str | None, available: bool = True, promoted: bool = False) -> Offer:
    return Offer(product_id, D(size), D(price) if price is not None else None, available, promoted)


# --- pricing -------------------------------------------------------------------------------


def test_shelf_price_rounds_half_up_to_the_cent() -> None:
    assert shelf_price(D("2.49"), D("1.05")) == D("2.61")  # 2.6145
    assert shelf_price(D("1.10"), D("1.05")) == D("1.16")  # 1.155
    assert shelf_price(D("3.00"), D("1")) == D("3.00")


def test_price_recipe_prorates_the_first_available_product() -> None:
    lines = [
        Line(D(600), [offer(1, "500", "2.49", available=False), offer(2, "1000", "3.00")]),
        Line(D(2), [offer(3, "6", "1.80")]),
    ]
    # 3.00 * 600 / 1000 + 1.80 * 2 / 6 = 1.80 + 0.60
    assert price_recipe(lines, 4) == Pricing(guests=4, total=D("2.40"), price_per_guest=D("0.60"))


def test_price_recipe_rounds_the_total_then_the_share() -> None:
    lines = [Line(D(100), [offer(1, "300", "1.00")])]  # 0.3333...
    assert price_recipe(lines, 3) == Pricing(guests=3, total=D("0.33"), price_per_guest=D("0.11"))


def test_no_price_when_an_ingredient_cannot_be_bought() -> None:
    assert price_recipe([Line(D(1), [offer(1, "1", "1.00", available=False)])], 2) is None
    assert price_recipe([Line(D(1), [offer(1, "1", None)])], 2) is None
    assert price_recipe([Line(D(1), [])], 2) is None


def test_promoted_looks_at_the_chosen_products_only() -> None:
    hidden = Line(D(1), [offer(1, "1", "1", promoted=False), offer(2, "1", "1", promoted=True)])
    chosen = Line(D(1), [offer(1, "1", "1", available=False), offer(2, "1", "1", promoted=True)])
    assert is_promoted([hidden]) is False
    assert is_promoted([hidden, chosen]) is True


# --- quantities ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quantity", "unit", "language", "display_unit", "text"),
    [
        ("600", "g", "fr", None, "600 g"),
        ("1500", "g", "fr", None, "1,5 kg"),
        ("1500", "g", "en", None, "1.5 kg"),
        ("1000", "g", "fr", None, "1 kg"),
        ("7.5", "g", "fr", None, "7,5 g"),
        ("333.333", "g", "fr", None, "333 g"),
        ("250", "ml", "fr", None, "250 ml"),
        ("1250", "ml", "fr", None, "1,25 l"),
        ("3", "piece", "fr", None, "3"),
        ("4.5", "piece", "fr", None, "4,5"),
        ("3.7", "piece", "en", None, "3.5"),
        ("30", "ml", "fr", "c. à soupe", "2 c. à soupe"),
        ("22.5", "ml", "fr", "c. à soupe", "1,5 c. à soupe"),
        ("30", "ml", "en", "c. à soupe", "2 tbsp"),
        ("5", "g", "fr", "c. à café", "1 c. à café"),
        ("2", "g", "fr", "pincée", "2 pincées"),
        ("45", "ml", "fr", "unknown measure", "45 ml"),
    ],
)
def test_format_quantity(quantity: str, unit: str, language: str, display_unit: str | None, text: str) -> None:
    assert format_quantity(D(quantity), unit, language, display_unit) == text


def test_format_size() -> None:
    assert format_size(D(500), "g", "fr") == "500 g"
    assert format_size(D(6), "piece", "fr") == "6 pièces"
    assert format_size(D(1), "piece", "en") == "1 piece"
    assert format_size(D(750), "ml", "en") == "750 ml"


def test_scale() -> None:
    assert scale(D(600), 4, 6) == D(900)
    assert scale(D(100), 3, 3) == D(100)


# --- identity ------------------------------------------------------------------------------


def test_parse_authorization() -> None:
    assert parse_authorization("user_id 42") == Identity(IdentityKind.USER, "42")
    assert parse_authorization("authless_id a-b") == Identity(IdentityKind.AUTHLESS, "a-b")
    for bad in ("Bearer x", "user_id", "user_id a b", ""):
        with pytest.raises(ValueError):
            parse_authorization(bad)


def test_parse_language() -> None:
    assert parse_language("fr") == "fr"
    assert parse_language("EN") == "en"
    assert parse_language("fr-demo") == "fr"
    with pytest.raises(ValueError):
        parse_language("de")


def test_only_user_ids_are_connected_users() -> None:
    assert RequestContext(identity=Identity(IdentityKind.USER, "u")).user_id == "u"
    assert RequestContext(identity=Identity(IdentityKind.AUTHLESS, "u")).user_id is None
    assert RequestContext().user_id is None


# --- suggestions ---------------------------------------------------------------------------

CANDIDATES = {1: frozenset({10, 11}), 2: frozenset({11, 12}), 3: frozenset({13})}


def test_scores() -> None:
    context = ProductContext("k", ("1", "2"), ("3",))
    assert score_candidates(context, CANDIDATES) == {10: 1.0, 11: 2.0, 12: 1.0, 13: 2.0}
    assert score_candidates(context, CANDIDATES, liked={12, 99}) == {
        10: 1.0,
        11: 2.0,
        12: 2.5,
        13: 2.0,
    }


def test_a_product_both_surrounding_and_current_counts_as_current() -> None:
    context = ProductContext("k", ("3",), ("3",))
    assert score_candidates(context, CANDIDATES) == {13: 2.0}


def test_choice_is_stable_per_session_and_varies_across_sessions() -> None:
    context = ProductContext("k", ("1", "2"))
    scores = {recipe_id: 1.0 for recipe_id in range(20)}
    first = choose(context, scores, "session-a")
    assert all(choose(context, scores, "session-a") == first for _ in range(5))
    assert len({choose(context, scores, f"session-{n}") for n in range(30)}) > 1


def test_draw_key_uses_a_stable_hash() -> None:
    context = ProductContext("k", ("2", "1"))
    key = draw_key("s", context, 7)
    assert key == draw_key("s", ProductContext("other", ("1", "2")), 7)
    assert key.hex().startswith(__import__("hashlib").sha256(b"s\x1f1,2\x1f\x1f7").hexdigest()[:8])


def test_only_near_ties_compete() -> None:
    context = ProductContext("k", ("1",))
    scores = {1: 2.0, 2: 1.5, 3: 1.0}
    chosen = {choose(context, scores, f"s{n}") for n in range(50)}
    assert chosen == {1, 2}


def test_choose_recipes_prefers_fresh_recipes_within_a_batch() -> None:
    contexts = [ProductContext(str(k), ("1",)) for k in range(3)]
    chosen = [s.recipe_id for s in choose_recipes(contexts, CANDIDATES, "s")]
    assert sorted(chosen[:2]) == [10, 11]
    assert chosen[2] in {10, 11}
    assert choose_recipes([ProductContext("x", ("404", "abc"))], CANDIDATES, "s")[0].recipe_id is None


# --- text and ids --------------------------------------------------------------------------


def test_search_key() -> None:
    assert search_key("Tomates CŒUR de bœuf", None, "Crème brûlée") == "tomates coeur de boeuf creme brulee"


def test_localized() -> None:
    assert localized("Tomate", "Tomato", "en") == "Tomato"
    assert localized("Tomate", None, "en") == "Tomate"
    assert localized("Tomate", "Tomato", "fr") == "Tomate"


def test_database_ids_keeps_order_and_drops_unknowable_ids() -> None:
    assert database_ids(["3", "1", "3", "x", "", "-2", "0", "99999999999", "٣", " 7 "]) == [3, 1, 7]

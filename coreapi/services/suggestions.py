"""Recipe suggestions for product contexts (the products around a card on a shelf page).

A recipe is a candidate for a context when one of its ingredients can be bought as one of the
context's products. Candidates are scored (surrounding product 1, current product 2, liked
recipe +1.5), and one is drawn among the best: every candidate within ``NEAR_TIE`` of the best
score has the same chance, decided by a hash of the session and the context's products, so a
session always sees the same recipe for the same products while different sessions vary.

A whole batch costs a fixed number of queries: the candidate mapping of every product of every
context is loaded at once, then the choice is pure computation.

Menus (``suggest_for_menu``) have no product context: the planner's "current suggestions" are
recipes passing the completion filter, main dishes first (a menu plans meals), the ones the user
liked first among them, the rest in an order drawn per session and identity.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Select, bindparam, select
from sqlalchemy.orm import Session

from coreapi.models import Like, ProductIngredient, Recipe, RecipeIngredient, Store
from coreapi.services.catalog import database_ids, offered
from coreapi.services.recipes import RecipePreferences, completed_at, in_category, recipe_filters

SURROUNDING_WEIGHT = 1.0
CURRENT_WEIGHT = 2.0
LIKED_BONUS = 1.5
# Candidates scoring within this margin of the best one are drawn at random (per session).
# Below 1, so one more matching product always wins and a current product beats a surrounding one.
NEAR_TIE = 0.75

# product id -> ids of the recipes needing it
CandidateMap = Mapping[int, frozenset[int]]


@dataclass(frozen=True)
class ProductContext:
    key: str
    surrounding_product_ids: Sequence[str]
    current_product_ids: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class Suggestion:
    key: str
    recipe_id: int | None


def score_candidates(context: ProductContext, candidates: CandidateMap, liked: Iterable[int] = ()) -> dict[int, float]:
    """Score every recipe needing one of the context's products."""
    weights: dict[int, float] = {}
    for product_id in database_ids(context.surrounding_product_ids):
        weights[product_id] = SURROUNDING_WEIGHT
    for product_id in database_ids(context.current_product_ids):
        weights[product_id] = CURRENT_WEIGHT  # a product listed twice counts as current

    scores: dict[int, float] = defaultdict(float)
    for product_id, weight in weights.items():
        for recipe_id in candidates.get(product_id, ()):
            scores[recipe_id] += weight
    for recipe_id in set(liked) & scores.keys():
        scores[recipe_id] += LIKED_BONUS
    return dict(scores)


def draw_key(session_id: str, context: ProductContext, recipe_id: int) -> bytes:
    """A stable pseudo-random key of a candidate for a session and a context's products.

    ``hashlib`` rather than ``hash()``: Python salts ``hash()`` per process, and every worker
    must draw the same recipe for the same session.
    """
    material = "\x1f".join(
        (
            session_id,
            ",".join(sorted(set(context.surrounding_product_ids))),
            ",".join(sorted(set(context.current_product_ids))),
            str(recipe_id),
        )
    )
    return hashlib.sha256(material.encode()).digest()


def choose(
    context: ProductContext,
    scores: Mapping[int, float],
    session_id: str,
    already_chosen: Iterable[int] = (),
) -> int | None:
    """The recipe for a context: a recipe not already chosen when one fits, among the best."""
    chosen = set(already_chosen)
    fresh = {recipe_id: score for recipe_id, score in scores.items() if recipe_id not in chosen}
    pool = fresh or scores
    if not pool:
        return None
    best = max(pool.values())
    contenders = [recipe_id for recipe_id, score in pool.items() if score >= best - NEAR_TIE]
    return min(contenders, key=lambda recipe_id: draw_key(session_id, context, recipe_id))


def choose_recipes(
    contexts: Sequence[ProductContext],
    candidates: CandidateMap,
    session_id: str,
    liked: Iterable[int] = (),
) -> list[Suggestion]:
    """One suggestion per context, in order, avoiding repeats within the batch."""
    liked = frozenset(liked)
    chosen: list[int] = []
    suggestions = []
    for context in contexts:
        scores = score_candidates(context, candidates, liked)
        recipe_id = choose(context, scores, session_id, chosen)
        if recipe_id is not None:
            chosen.append(recipe_id)
        suggestions.append(Suggestion(context.key, recipe_id))
    return suggestions


def load_candidates(
    session: Session,
    product_ids: Iterable[int],
    *,
    store: Store | None = None,
    category_id: str | None = None,
    keyword: str | None = None,
    preferences: RecipePreferences | None = None,
) -> dict[int, frozenset[int]]:
    """For each product, the recipes needing it that pass the filters (a shopper's ``preferences``
    among them), in one query."""
    ids = set(product_ids)
    if not ids:
        return {}
    statement = _candidates_statement(store is not None, bool(category_id))
    if keyword or preferences is not None:
        statement = statement.where(*recipe_filters(query=keyword, preferences=preferences))
    parameters: dict[str, Any] = {"product_ids": sorted(ids)}
    if store is not None:
        parameters["store_id"] = store.id
    if category_id:
        parameters["category_id"] = category_id
    mapping: dict[int, set[int]] = defaultdict(set)
    for product_id, recipe_id in _connection(session).execute(statement, parameters).all():
        mapping[product_id].add(recipe_id)
    return {product_id: frozenset(recipes) for product_id, recipes in mapping.items()}


def _candidates_statement(at_store: bool, in_a_category: bool) -> Select[int, int]:
    """load_candidates' statement for a combination of filters (built per call, like every statement
    whose conditions come from recipe_filters' helpers).

    The store's and the category's ids are parameters; a keyword and a shopper's preferences are
    added per call, by ``recipe_filters``, which escapes the keyword's pattern.
    """
    statement = (
        select(ProductIngredient.product_id, RecipeIngredient.recipe_id)
        .join(RecipeIngredient, RecipeIngredient.ingredient_id == ProductIngredient.ingredient_id)
        .join(Recipe, Recipe.id == RecipeIngredient.recipe_id)
        .where(ProductIngredient.product_id.in_(bindparam("product_ids", expanding=True)), offered())
        .distinct()
    )
    # The same conditions as recipe_filters(store=..., category_id=...).
    if in_a_category:
        statement = statement.where(in_category(bindparam("category_id"), Recipe.id))
    if at_store:
        statement = statement.where(completed_at(bindparam("store_id"), Recipe.id))
    return statement


def liked_recipes(session: Session, supplier_id: int, user_id: str, recipe_ids: Iterable[int]) -> set[int]:
    """The recipes among ``recipe_ids`` the supplier's user likes."""
    ids = set(recipe_ids)
    if not ids:
        return set()
    parameters = {"supplier_id": supplier_id, "user_id": user_id, "recipe_ids": sorted(ids)}
    # Through the session, which flushes pending changes first: likes are written at runtime.
    return set(session.scalars(_LIKED, parameters).all())


_LIKED = select(Like.recipe_id).where(
    Like.supplier_id == bindparam("supplier_id"),
    Like.user_id == bindparam("user_id"),
    Like.recipe_id.in_(bindparam("recipe_ids", expanding=True)),
)


def _connection(session: Session) -> Connection:
    """The session's connection, for reads of the catalog (only ``init-db`` writes it): rows of
    plain columns need none of the ORM's loading."""
    return session.connection(bind_arguments={"mapper": Recipe})


def suggest(
    session: Session,
    contexts: Sequence[ProductContext],
    *,
    session_id: str,
    user_id: str | None = None,
    supplier_id: int | None = None,
    profiling: bool = True,
    store: Store | None = None,
    category_id: str | None = None,
    keyword: str | None = None,
    preferences: RecipePreferences | None = None,
) -> list[Suggestion]:
    """Suggestions for a batch of contexts; with ``preferences`` (a shopper's, applied), only among
    the recipes they keep.

    The user's likes count only with profiling on, for a connected user of a known supplier (user
    ids are the supplier's own: without a supplier there is no user to read likes for).
    """
    product_ids = database_ids(
        product_id
        for context in contexts
        for product_id in (*context.surrounding_product_ids, *context.current_product_ids)
    )
    candidates = load_candidates(
        session, product_ids, store=store, category_id=category_id, keyword=keyword, preferences=preferences
    )
    liked: set[int] = set()
    if profiling and user_id is not None and supplier_id is not None:
        liked = liked_recipes(session, supplier_id, user_id, set().union(*candidates.values()))
    return choose_recipes(contexts, candidates, session_id, liked)


# The type of the recipes a menu is first filled with: the meals.
MENU_MAIN_TYPE = "main-dish"


def menu_draw_key(session_id: str, seed: str, recipe_id: int) -> bytes:
    """The stable pseudo-random rank of a recipe among a menu's suggestions (see ``draw_key``)."""
    return hashlib.sha256("\x1f".join((session_id, seed, str(recipe_id))).encode()).digest()


def suggest_for_menu(
    session: Session,
    *,
    limit: int,
    session_id: str,
    seed: str,
    user_id: str | None = None,
    supplier_id: int | None = None,
    profiling: bool = True,
    store: Store | None = None,
    types: Sequence[str] = (),
    exclude: Iterable[int] = (),
    preferences: RecipePreferences | None = None,
) -> list[int]:
    """Up to ``limit`` recipe ids for a planner menu, in the order to show them, in two queries.

    Candidates pass the completion filter at ``store`` (when given), are of one of ``types`` (all
    types when empty), not in ``exclude`` (the menu's own recipes) and kept by ``preferences`` (a
    shopper's, applied). Main dishes come first, then
    the other types; within each, the recipes the user liked (profiling on, a connected user of a
    known supplier, as for ``suggest``), then the others in an order drawn from ``session_id`` and
    ``seed`` (the identity): the same session sees the same suggestions.
    """
    statement = select(Recipe.id, Recipe.type).where(
        *recipe_filters(store=store, type=types, exclude_ids=list(exclude), preferences=preferences)
    )
    rows = session.execute(statement).all()
    liked: set[int] = set()
    if profiling and user_id is not None and supplier_id is not None:
        liked = liked_recipes(session, supplier_id, user_id, (row[0] for row in rows))

    def rank(row: Any) -> tuple[bool, bool, bytes]:
        recipe_id, recipe_type = row[0], row[1]
        return (recipe_type != MENU_MAIN_TYPE, recipe_id not in liked, menu_draw_key(session_id, seed, recipe_id))

    return [row[0] for row in sorted(rows, key=rank)[: max(limit, 0)]]

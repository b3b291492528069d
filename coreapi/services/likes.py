"""A connected user's liked recipes, kept per supplier: user ids are the supplier's own."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from coreapi.extensions import Base
from coreapi.models import Like, Recipe, Store
from coreapi.services.catalog import database_id, database_ids, offered
from coreapi.services.pagination import Page, paginate
from coreapi.services.recipes import RecipeSummary, recipe_filters, summaries
from coreapi.services.text import DEFAULT_LANGUAGE

# INSERT ... ON CONFLICT DO NOTHING, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


def liked_among(session: Session, supplier_id: int, user_id: str, recipe_ids: Sequence[str]) -> list[int]:
    """The recipes among ``recipe_ids`` the supplier's user likes, in the order asked."""
    keys = database_ids(recipe_ids)
    if not keys:
        return []
    liked = set(
        session.scalars(
            select(Like.recipe_id).where(
                Like.supplier_id == supplier_id,
                Like.user_id == user_id,
                Like.recipe_id.in_(keys),
            )
        )
    )
    return [key for key in keys if key in liked]


@dataclasses.dataclass(frozen=True)
class LikedRecipe(RecipeSummary):
    """A recipe's summary, and when the user liked it (first: liking it again changes nothing)."""

    liked_at: dt.datetime


def favorites(
    session: Session,
    supplier_id: int,
    user_id: str,
    *,
    page: int,
    per_page: int,
    store: Store | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Page[LikedRecipe]:
    """A page of the recipes the supplier's user likes, the most recently liked first (then by recipe
    id); with ``store``, those the completion filter keeps there."""
    statement = (
        select(Like)
        .join(Recipe, Recipe.id == Like.recipe_id)
        .where(Like.supplier_id == supplier_id, Like.user_id == user_id, *recipe_filters(store=store))
        .order_by(Like.created_at.desc(), Like.recipe_id)
    )
    found = paginate(session, statement, page, per_page)
    liked_at = {like.recipe_id: like.created_at for like in found.items}
    items = [
        LikedRecipe(**vars(summary), liked_at=liked_at[summary.id])
        for summary in summaries(session, list(liked_at), language)
    ]
    return Page(items, found.page, found.per_page, found.total)


def recipe_exists(session: Session, recipe_id: str, *, offered_only: bool = False) -> bool:
    """Whether the recipe is known; with ``offered_only``, and offered (not retired)."""
    key = database_id(recipe_id)
    if key is None:
        return False
    conditions = [Recipe.id == key, offered()] if offered_only else [Recipe.id == key]
    return session.scalar(select(Recipe.id).where(*conditions)) is not None


def like(session: Session, supplier_id: int, user_id: str, recipe_id: str) -> bool:
    """Like a recipe (idempotent, safe against concurrent requests); ``False`` if it is unknown or retired (an
    unlike of a retired recipe is still done)."""
    if not recipe_exists(session, recipe_id, offered_only=True):
        return False
    insert = _INSERTS[session.get_bind().dialect.name]
    # The time from here rather than the database's: SQLite's CURRENT_TIMESTAMP has whole seconds only,
    # and favorites list the most recent likes first.
    session.execute(
        insert(Like)
        .values(
            supplier_id=supplier_id,
            user_id=user_id,
            recipe_id=database_id(recipe_id),
            created_at=dt.datetime.now(dt.UTC),
        )
        .on_conflict_do_nothing()
    )
    session.commit()
    return True


def unlike(session: Session, supplier_id: int, user_id: str, recipe_id: str) -> bool:
    """Forget a like (idempotent); ``False`` if the recipe is unknown."""
    if not recipe_exists(session, recipe_id):
        return False
    session.execute(
        delete(Like).where(
            Like.supplier_id == supplier_id,
            Like.user_id == user_id,
            Like.recipe_id == database_id(recipe_id),
        )
    )
    session.commit()
    return True

"""A shopper's preferences: the diets it requires, the ingredients it avoids, the kitchen equipment it
lacks, and the number of guests it usually cooks for.

Preferences belong to a shopper (``BasketOwner``: an identity under the supplier it shops with), like a
basket or a menu, and only while that supplier has ``personalization`` on: with it off, a shopper has
none (reads answer the defaults, writes are refused) and the supplier's stored ones are deleted
(``set_personalization``). Applied (``preferences=apply`` on the recipe list and the suggestions),
they become conditions of the recipe filters (``coreapi.services.recipes.RecipePreferences``); the
guests are for prerender, which pre-fills its guest counts with them.

Writes flush but never commit: the caller's transaction holds the write.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from coreapi.extensions import Base
from coreapi.models import (
    MAX_PREFERRED_GUESTS,
    MIN_PREFERRED_GUESTS,
    Category,
    Equipment,
    Ingredient,
    Preferences,
    RecipeIngredient,
    Supplier,
)
from coreapi.services.baskets import BasketOwner
from coreapi.services.identity import Identity, IdentityKind
from coreapi.services.owners import owned_by
from coreapi.services.recipes import RecipePreferences
from coreapi.services.text import localized, search_key

# At most this many distinct ids in each list.
MAX_IDS = 50

# INSERT ... ON CONFLICT, spelled the same by both dialects.
_INSERTS: dict[str, Callable[[type[Base]], postgresql.Insert | sqlite.Insert]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


class PreferencesError(Exception):
    """A write the preferences refuse; nothing was changed."""


class PersonalizationDisabled(PreferencesError):
    def __init__(self) -> None:
        super().__init__("Personalization is disabled for this supplier.")


# --- answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreferencesView:
    """A shopper's preferences; the defaults (empty lists, no guests, ``updated_at`` ``None``) when it
    stored none. ``enabled``: whether its supplier has personalization on."""

    diets: list[str] = field(default_factory=list)
    avoided_ingredients: list[str] = field(default_factory=list)
    missing_equipment: list[str] = field(default_factory=list)
    guests: int | None = None
    enabled: bool = True
    updated_at: dt.datetime | None = None


@dataclass(frozen=True)
class Option:
    id: str
    name: str


@dataclass(frozen=True)
class GuestBounds:
    min: int = MIN_PREFERRED_GUESTS
    max: int = MAX_PREFERRED_GUESTS


@dataclass(frozen=True)
class Options:
    """What a shopper can choose from, names in the request's language."""

    diets: list[Option]
    ingredients: list[Option]
    equipment: list[Option]
    guests: GuestBounds = field(default_factory=GuestBounds)


# --- the catalog's choices -----------------------------------------------------------------


def options(session: Session, language: str) -> Options:
    """The diet categories and the equipment in their catalog order, and every ingredient some recipe
    uses, by name (accents and case aside, then id)."""
    diets = session.execute(
        select(Category.id, Category.name, Category.name_en).where(Category.diet.is_(True)).order_by(Category.position)
    ).all()
    equipment = session.execute(
        select(Equipment.id, Equipment.name, Equipment.name_en).order_by(Equipment.position)
    ).all()
    used = session.execute(
        select(Ingredient.id, Ingredient.name, Ingredient.name_en).where(
            Ingredient.id.in_(select(RecipeIngredient.ingredient_id))
        )
    ).all()
    ingredients = [Option(key, localized(name, name_en, language)) for key, name, name_en in used]
    ingredients.sort(key=lambda option: (search_key(option.name), option.id))
    return Options(
        diets=[Option(key, localized(name, name_en, language)) for key, name, name_en in diets],
        ingredients=ingredients,
        equipment=[Option(key, localized(name, name_en, language)) for key, name, name_en in equipment],
    )


def known_diets(session: Session, ids: Iterable[str]) -> set[str]:
    """The ids among ``ids`` of categories that are diets."""
    return set(session.scalars(select(Category.id).where(Category.id.in_(set(ids)), Category.diet.is_(True))))


def known_ingredients(session: Session, ids: Iterable[str]) -> set[str]:
    return set(session.scalars(select(Ingredient.id).where(Ingredient.id.in_(set(ids)))))


def known_equipment(session: Session, ids: Iterable[str]) -> set[str]:
    return set(session.scalars(select(Equipment.id).where(Equipment.id.in_(set(ids)))))


# --- a shopper's preferences ---------------------------------------------------------------


def _of(owner: BasketOwner) -> list[ColumnElement[bool]]:
    return owned_by(Preferences, owner.supplier_id, owner.identity)


def _stored(session: Session, owner: BasketOwner) -> Preferences | None:
    return session.scalars(select(Preferences).where(*_of(owner))).one_or_none()


def get_preferences(session: Session, owner: BasketOwner, *, enabled: bool) -> PreferencesView:
    """The shopper's preferences; the defaults when it stored none, or when personalization is off
    (``enabled`` false), whatever is stored."""
    if not enabled:
        return PreferencesView(enabled=False)
    stored = _stored(session, owner)
    if stored is None:
        return PreferencesView()
    return PreferencesView(
        diets=list(stored.diets),
        avoided_ingredients=list(stored.avoided_ingredients),
        missing_equipment=list(stored.missing_equipment),
        guests=stored.guests,
        updated_at=stored.updated_at,
    )


def replace_preferences(
    session: Session,
    owner: BasketOwner,
    *,
    enabled: bool,
    diets: list[str],
    avoided_ingredients: list[str],
    missing_equipment: list[str],
    guests: int | None,
) -> PreferencesView:
    """Store the shopper's preferences, replacing what it had (ids already checked against the
    catalog); ``PersonalizationDisabled`` when personalization is off. Concurrent writes of one
    shopper: the last one wins, whole."""
    if not enabled:
        raise PersonalizationDisabled()
    now = dt.datetime.now(dt.UTC)
    values = {
        "diets": diets,
        "avoided_ingredients": avoided_ingredients,
        "missing_equipment": missing_equipment,
        "guests": guests,
        "updated_at": now,
    }
    statement = _INSERTS[session.get_bind().dialect.name](Preferences).values(
        supplier_id=owner.supplier_id,
        identity_kind=owner.identity.kind.value,
        identity_id=owner.identity.value,
        **values,
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[Preferences.supplier_id, Preferences.identity_kind, Preferences.identity_id],
            set_=values,
        )
    )
    session.flush()
    return PreferencesView(
        diets=list(diets),
        avoided_ingredients=list(avoided_ingredients),
        missing_equipment=list(missing_equipment),
        guests=guests,
        updated_at=now,
    )


def merge_authless(session: Session, user: BasketOwner, authless_id: str, *, enabled: bool) -> None:
    """At login, the preferences of the logged-out visitor ``authless_id`` (under the user's supplier) become the
    ``user``'s when the user stored none (its own
    win otherwise, and the visitor's stay as they are). Nothing moves while personalization is off (``enabled``
    false). A copy that does nothing on conflict, then the visitor's row deleted if it was copied: the user's own
    ``PUT`` committed meanwhile wins, rather than failing the login's merge on the table's key."""
    if not enabled:
        return
    theirs = _stored(session, BasketOwner(user.supplier_id, Identity(IdentityKind.AUTHLESS, authless_id)))
    if theirs is None:
        return
    statement = _INSERTS[session.get_bind().dialect.name](Preferences).values(
        supplier_id=user.supplier_id,
        identity_kind=user.identity.kind.value,
        identity_id=user.identity.value,
        diets=list(theirs.diets),
        avoided_ingredients=list(theirs.avoided_ingredients),
        missing_equipment=list(theirs.missing_equipment),
        guests=theirs.guests,
        updated_at=theirs.updated_at,
    )
    copied = session.execute(
        statement.on_conflict_do_nothing(
            index_elements=[Preferences.supplier_id, Preferences.identity_kind, Preferences.identity_id]
        ).returning(Preferences.identity_id)
    ).first()
    if copied is not None:
        session.delete(theirs)
    session.flush()


def delete_preferences(session: Session, owner: BasketOwner) -> None:
    """Forget the shopper's preferences (none stored: nothing to do)."""
    session.execute(delete(Preferences).where(*_of(owner)))


def preferred_guests(session: Session, owner: BasketOwner, *, enabled: bool) -> int | None:
    """The number of guests the shopper usually cooks for; ``None`` when it stored none, or when
    personalization is off."""
    if not enabled:
        return None
    stored = _stored(session, owner)
    return stored.guests if stored is not None else None


def for_recipes(session: Session, owner: BasketOwner, *, enabled: bool) -> RecipePreferences | None:
    """What the shopper's stored preferences ask of recipes; ``None`` when they ask nothing (none
    stored, only guests, or personalization off)."""
    if not enabled:
        return None
    stored = _stored(session, owner)
    if stored is None or not (stored.diets or stored.avoided_ingredients or stored.missing_equipment):
        return None
    return RecipePreferences(
        diets=tuple(stored.diets),
        avoided_ingredients=tuple(stored.avoided_ingredients),
        missing_equipment=tuple(stored.missing_equipment),
    )


# --- the supplier's switch -----------------------------------------------------------------


def set_personalization(session: Session, supplier: Supplier, enabled: bool) -> int:
    """Turn the supplier's personalization on or off; off also deletes every preference its shoppers
    stored (in the caller's transaction). The number of shoppers' preferences deleted."""
    supplier.personalization = enabled
    deleted = 0
    if not enabled:
        result = session.execute(delete(Preferences).where(Preferences.supplier_id == supplier.id))
        deleted = result.rowcount  # type: ignore[attr-defined]
    session.flush()
    return deleted

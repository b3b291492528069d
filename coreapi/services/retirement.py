"""Retiring a recipe from the catalog (``flask --app coreapi retire-recipe``), and offering it again.

A retired recipe stays in the database (the orders that hold it keep it, with its title and picture, for the
shopper's history), but the catalog no longer offers it: every list, suggestion and lookup leaves it out and
every write that would add it answers as for an unknown recipe (``coreapi.services.catalog.offered``). What the
shoppers hold of it goes in the same transaction: it leaves the open baskets (its lines, and the packages the
basket awaited or a cart showed for it; the retailer's cart keeps its products, which are the shopper's) and the
menus. Running it again on a retired recipe sweeps again (a shopper's add that committed in the same moment as
the retirement is then taken out too).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from coreapi.models import AwaitedProduct, Basket, BasketEntry, Menu, MenuRecipe, Recipe, ShownProduct
from coreapi.services.catalog import database_id
from coreapi.services.moments import as_utc


class UnknownRecipe(LookupError):
    """No recipe with that id."""


@dataclass(frozen=True)
class Retirement:
    """What retiring a recipe did: when it was retired (the first time), and how many open baskets and menus it
    left now."""

    recipe_id: int
    title: str
    retired_at: dt.datetime
    baskets: int
    menus: int


def retire_recipe(session: Session, recipe_id: str, *, now: dt.datetime) -> Retirement:
    """Retire a recipe (its first retirement's time is kept) and take it out of the open baskets and the menus;
    the caller commits."""
    recipe = _find(session, recipe_id)
    if recipe.retired_at is None:
        recipe.retired_at = now
    session.flush()
    key, title, retired_at = recipe.id, recipe.title, as_utc(recipe.retired_at)
    open_baskets = select(Basket.id).where(Basket.status == "open")
    holding = set(
        session.scalars(
            select(BasketEntry.basket_id).where(
                BasketEntry.recipe_id == recipe.id, BasketEntry.basket_id.in_(open_baskets)
            )
        )
    )
    if holding:
        ids = sorted(holding)
        for table in (AwaitedProduct, ShownProduct):
            session.execute(delete(table).where(table.recipe_id == recipe.id, table.basket_id.in_(ids)))
        # Its lines go with each entry (ON DELETE CASCADE).
        session.execute(delete(BasketEntry).where(BasketEntry.recipe_id == recipe.id, BasketEntry.basket_id.in_(ids)))
        session.execute(update(Basket).where(Basket.id.in_(ids)).values(updated_at=now))
    menus = set(session.scalars(select(MenuRecipe.menu_id).where(MenuRecipe.recipe_id == recipe.id)))
    if menus:
        # Its product choices go with each menu recipe (ON DELETE CASCADE).
        session.execute(delete(MenuRecipe).where(MenuRecipe.recipe_id == recipe.id))
        session.execute(update(Menu).where(Menu.id.in_(sorted(menus))).values(updated_at=now))
    # The baskets and menus loaded in this session are read again from the database.
    session.expire_all()
    return Retirement(recipe_id=key, title=title, retired_at=retired_at, baskets=len(holding), menus=len(menus))


def restore_recipe(session: Session, recipe_id: str) -> bool:
    """Offer a retired recipe again (the baskets and menus it left do not get it back); ``False`` if it was
    offered. The caller commits."""
    recipe = _find(session, recipe_id)
    if recipe.retired_at is None:
        return False
    recipe.retired_at = None
    return True


def _find(session: Session, recipe_id: str) -> Recipe:
    key = database_id(recipe_id)
    recipe = session.get(Recipe, key) if key is not None else None
    if recipe is None:
        raise UnknownRecipe(f"No recipe {recipe_id!r}.")
    return recipe

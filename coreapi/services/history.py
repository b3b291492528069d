"""A shopper's history: its confirmed baskets, the most recently confirmed first.

A confirmed basket keeps its entries and lines (products and packages), its store and the total it was
confirmed at, but not its lines' prices: a recipe's ``price`` here is what its lines cost at the
basket's store now (``unit price * packages`` of each available line, as ``GET /basket`` prices them),
so it follows the store's prices since, while ``total`` stays the confirmed one. No completion filter:
it is the past.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from coreapi.models import Basket, BasketEntry, StoreProduct
from coreapi.services.baskets import CONFIRMED, BasketOwner
from coreapi.services.owners import owned_by
from coreapi.services.pagination import Page, paginate
from coreapi.services.pricing import CURRENCY, to_cents
from coreapi.services.text import DEFAULT_LANGUAGE, localized

_LOADING = (
    selectinload(Basket.entries).selectinload(BasketEntry.recipe),
    selectinload(Basket.entries).selectinload(BasketEntry.lines),
)


@dataclass(frozen=True)
class PastRecipe:
    """A recipe of a confirmed basket, for the guests it was bought for."""

    recipe_id: int
    title: str
    guests: int
    total_time: int
    difficulty: int
    price: Decimal


@dataclass(frozen=True)
class ConfirmedBasket:
    id: int
    confirmed_at: dt.datetime
    store_id: int
    total: Decimal
    recipes: list[PastRecipe]
    currency: str = CURRENCY

    @property
    def recipe_count(self) -> int:
        return len(self.recipes)


def confirmed_baskets(
    session: Session, owner: BasketOwner, *, page: int, per_page: int, language: str = DEFAULT_LANGUAGE
) -> Page[ConfirmedBasket]:
    """A page of the shopper's confirmed baskets, newest ``confirmed_at`` first (then the highest id),
    their recipes in the order they were added; in a fixed number of queries."""
    statement = (
        select(Basket)
        .where(*owned_by(Basket, owner.supplier_id, owner.identity), Basket.status == CONFIRMED)
        .options(*_LOADING)
        .order_by(Basket.confirmed_at.desc(), Basket.id.desc())
    )
    found = paginate(session, statement, page, per_page)
    prices = _unit_prices(session, found.items)

    def past(basket: Basket) -> ConfirmedBasket:
        assert basket.confirmed_at is not None and basket.total is not None  # set on confirmation
        recipes = [
            PastRecipe(
                recipe_id=entry.recipe_id,
                title=localized(entry.recipe.title, entry.recipe.title_en, language),
                guests=entry.guests,
                total_time=entry.recipe.total_time,
                difficulty=entry.recipe.difficulty,
                price=sum(
                    (
                        to_cents(unit_price * line.quantity)
                        for line in entry.lines
                        if (unit_price := prices.get((basket.store_id, line.product_id))) is not None
                    ),
                    Decimal(0),
                ),
            )
            for entry in sorted(basket.entries, key=lambda entry: entry.position)
        ]
        return ConfirmedBasket(basket.id, basket.confirmed_at, basket.store_id, basket.total, recipes)

    return found.map(past)


def _unit_prices(session: Session, baskets: Sequence[Basket]) -> dict[tuple[int, int], Decimal]:
    """The shelf price of every product of the baskets' lines that is available at its basket's store,
    by (store, product), in one query."""
    stores = {basket.store_id for basket in baskets}
    products = {line.product_id for basket in baskets for entry in basket.entries for line in entry.lines}
    if not products:
        return {}
    rows = session.execute(
        select(StoreProduct.store_id, StoreProduct.product_id, StoreProduct.price).where(
            StoreProduct.store_id.in_(sorted(stores)),
            StoreProduct.product_id.in_(sorted(products)),
            StoreProduct.available.is_(True),
        )
    ).all()
    return {(store_id, product_id): price for store_id, product_id, price in rows if price is not None}

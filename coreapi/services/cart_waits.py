"""What the retailer cart was asked to add and has not shown yet (``coreapi.models.AwaitedProduct``).

A basket write answers the ``changes`` the retailer cart must make. The page that wrote hands them to the
retailer, then reports the cart it gets back (``POST /basket/reconcile``), and the basket follows that cart.
Another page of the same shopper (a second tab, a second device) may report its cart in between: a cart taken
before the first page's products reached it. Following it would take the first page's recipe out of the basket
while its products were on their way, and they would then sit in the cart without their recipe.

So each write keeps, per product, the packages it asked the cart to add, and when. A reconcile leaves those to
the cart for ``CATCH_UP`` after they were asked (it takes out only what the cart should already show), and forgets
them once a reported cart shows them. A page whose retailer refused them undoes its write itself (the browser
SDK's rollback: a write that takes them out, and so takes them out of here too); a page closed before it handed
them over leaves them to the first reconcile after ``CATCH_UP``. A payment's confirmation follows the paid cart
whole (``coreapi.services.baskets.confirm``): what was paid is what was bought.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping

from coreapi.models import AwaitedProduct, Basket

# How long a reconcile leaves to the cart what a write asked it to add: well above the time the browser SDK gives
# a retailer to follow a change before it undoes it (5 s, prerender/static/sdk/basket-sync.js).
CATCH_UP = dt.timedelta(seconds=30)


def record(basket: Basket, before: Mapping[int, int], after: Mapping[int, int], now: dt.datetime) -> None:
    """A write took each product's packages from ``before`` to ``after``: what it asks the cart to add is
    awaited from ``now``, with what was awaited of that product and is still live (the time restarts for them:
    the rule is per product); a product the basket now holds less of awaits at most what it holds. A lowered
    product keeps what it awaited: the packages taken back may be ones the cart already showed (another tab's
    removal of a recipe sharing the product, while this tab's addition is on its way)."""
    deltas = {
        product_id: after.get(product_id, 0) - before.get(product_id, 0)
        for product_id in before.keys() | after.keys()
        if after.get(product_id, 0) != before.get(product_id, 0)
    }
    if not deltas:
        return  # nothing asked of the cart: what is awaited stays as it is (and is not even read)
    awaited = {row.product_id: row for row in basket.awaited}
    for product_id, delta in deltas.items():
        row = awaited.get(product_id)
        held = after.get(product_id, 0)
        if delta > 0:
            if row is None:
                basket.awaited.append(AwaitedProduct(product_id=product_id, quantity=delta, asked_at=now))
            else:
                live = row.quantity if _live(row, now) else 0
                row.quantity = min(live + delta, held)
                row.asked_at = now
        elif row is not None:
            row.quantity = min(row.quantity, held)
            if row.quantity <= 0:
                basket.awaited.remove(row)


def kept(basket: Basket, now: dt.datetime) -> Counter[int]:
    """The packages of each product a reconcile leaves to the cart: asked less than ``CATCH_UP`` ago."""
    return Counter({row.product_id: row.quantity for row in basket.awaited if _live(row, now)})


def settle(basket: Basket, held: Mapping[int, int], in_cart: Mapping[int, int], now: dt.datetime) -> None:
    """After a reconcile, the basket holding ``held`` and the cart ``in_cart``: what the cart shows is awaited no
    more, nor is what waited ``CATCH_UP`` already."""
    for row in list(basket.awaited):
        unshown = min(row.quantity, held.get(row.product_id, 0) - in_cart.get(row.product_id, 0))
        if unshown <= 0 or not _live(row, now):
            basket.awaited.remove(row)
        else:
            row.quantity = unshown


def forget(basket: Basket) -> None:
    """The basket was confirmed (paid): it awaits nothing of the cart any more."""
    basket.awaited.clear()


def _live(row: AwaitedProduct, now: dt.datetime) -> bool:
    asked_at = row.asked_at if row.asked_at.tzinfo is not None else row.asked_at.replace(tzinfo=dt.UTC)
    return now - asked_at < CATCH_UP

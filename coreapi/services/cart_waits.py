"""What the retailer cart was asked to add and has not shown yet (``coreapi.models.AwaitedProduct``).

A basket write answers the ``changes`` the retailer cart must make. The page that wrote hands them to the
retailer, then reports the cart it gets back (``POST /basket/reconcile``), and the basket follows that cart.
Another page of the same shopper (a second tab, a second device) may report its cart in between: a cart taken
before the first page's products reached it. Following it would take the first page's recipe out of the basket
while its products were on their way, and they would then sit in the cart without their recipe.

So each write keeps, per recipe and product, the packages it asked the cart to add, and when. A reconcile leaves
those to the cart for ``CATCH_UP`` after they were asked (it takes out only what the cart should already show, and
never a recipe's awaited packages), and forgets them once a reported cart shows them. Per recipe, because a write
of another recipe that shares the product (another tab's removal of a recipe the cart shows) must neither take
them nor be taken for them. A page whose retailer refused them undoes its write itself (the browser SDK's
rollback: a write that takes the recipe's packages out, and so what it awaits of them); a page closed before it
handed them over leaves them to the first reconcile after ``CATCH_UP``. A payment's confirmation follows the paid
cart whole (``coreapi.services.baskets.confirm``): what was paid is what was bought.

The tabs of one browser share one cart and each reports it, so two reconciles may also cross on their way: tab B's
cart, which shows both tabs' recipes and so ends the wait for tab A's packages, reaches the service before tab A's
older cart, which does not show B's yet; followed as it comes, A's cart would take B's recipe out. So a reconcile
may say which browser reported its cart and when by that browser's clock (``Report``), and the packages whose wait
a browser's cart ended are kept a while per that browser (``coreapi.models.ShownProduct``): a cart the same browser
reported before that one leaves them to the cart, as if still awaited, for ``CROSSING`` after they were shown.
Only they: anything else such an older cart lacks (the shopper's removal in another tab) is followed, and two
browsers are never compared (two devices' clocks differ).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from coreapi.models import REPORTER_KEY_LENGTH, AwaitedProduct, Basket, ShownProduct
from coreapi.services.moments import as_utc

# How long a reconcile leaves to the cart what a write asked it to add: well above the time the browser SDK gives
# a retailer to follow a change before it undoes it (5 s, prerender/static/sdk/basket-sync.js).
CATCH_UP = dt.timedelta(seconds=30)

# How long the packages a browser's cart showed are left to an older cart of that browser: longer than a reconcile
# is on its way (the browser SDK's three attempts of 12 s and their pauses, prerender/static/sdk/http.js).
CROSSING = dt.timedelta(seconds=60)

# A recipe's packages of a product: (recipe id, product id).
Key = tuple[int, int]


@dataclass(frozen=True)
class Report:
    """Which browser reported a retailer cart (an id it keeps for all its tabs), and when by its clock
    (milliseconds since the epoch)."""

    by: str
    at: float


def reporter_key(basket: Basket, browser: str) -> str:
    """What the basket's rows keep of a browser's id: a digest with the basket's, so that no stored value links two
    baskets one browser reported carts for."""
    return hashlib.sha256(f"{basket.id}:{browser}".encode()).hexdigest()[:REPORTER_KEY_LENGTH]


def held_by_recipe(basket: Basket | None) -> dict[Key, int]:
    """The packages of each product each recipe of the basket holds."""
    held: Counter[Key] = Counter()
    for entry in basket.entries if basket is not None else ():
        for line in entry.lines:
            held[(entry.recipe.id, line.product.id)] += line.quantity
    return dict(held)


def record(basket: Basket, before: Mapping[Key, int], after: Mapping[Key, int], now: dt.datetime) -> None:
    """A write took each recipe's packages of each product from ``before`` to ``after``: what it asks the cart to
    add is awaited from ``now``, with what that recipe awaited of the product and still does (the time restarts
    for them); a recipe that holds fewer awaits at most what it holds."""
    deltas = {key: after.get(key, 0) - before.get(key, 0) for key in before.keys() | after.keys()}
    deltas = {key: delta for key, delta in deltas.items() if delta != 0}
    if not deltas:
        return  # nothing asked of the cart: what is awaited stays as it is (and is not even read)
    rows = {(row.recipe_id, row.product_id): row for row in basket.awaited}
    for key, delta in deltas.items():
        row = rows.get(key)
        held = after.get(key, 0)
        if delta > 0:
            if row is None:
                basket.awaited.append(AwaitedProduct(recipe_id=key[0], product_id=key[1], quantity=delta, asked_at=now))
            else:
                live = row.quantity if _live(row, now) else 0
                row.quantity = min(live + delta, held)
                row.asked_at = now
        else:
            if row is not None:
                row.quantity = min(row.quantity, held)
                if row.quantity <= 0:
                    basket.awaited.remove(row)
            for shown in [shown for shown in basket.shown if (shown.recipe_id, shown.product_id) == key]:
                shown.quantity = min(shown.quantity, held)
                if shown.quantity <= 0:
                    basket.shown.remove(shown)


def kept(basket: Basket, now: dt.datetime, report: Report | None = None) -> dict[Key, int]:
    """The packages of each recipe's product a reconcile leaves to the cart: asked less than ``CATCH_UP`` ago, and,
    for a cart its browser reported before a cart of that browser that showed them, shown less than ``CROSSING``
    ago; never more than the recipe holds of the product."""
    kept_for: Counter[Key] = Counter()
    for row in basket.awaited:
        if _live(row, now):
            kept_for[(row.recipe_id, row.product_id)] += row.quantity
    if report is not None:
        reporter = reporter_key(basket, report.by)
        for shown in basket.shown:
            if shown.reporter == reporter and report.at < shown.reported_at and _recent(shown, now):
                kept_for[(shown.recipe_id, shown.product_id)] += shown.quantity
    if not kept_for:
        return {}
    holds = held_by_recipe(basket)
    return {key: min(quantity, holds.get(key, 0)) for key, quantity in kept_for.items() if holds.get(key, 0) > 0}


def settle(basket: Basket, in_cart: Mapping[int, int], now: dt.datetime, report: Report | None = None) -> None:
    """After a reconcile, the cart holding ``in_cart``: what the cart shows is awaited no more (the earliest asked
    first: they had the longest to arrive), nor is what waited ``CATCH_UP`` already or what a recipe no longer
    holds. What a ``report``ed cart showed of what was asked, however long ago, is kept as shown by its browser
    (``kept``), at most what the recipe holds; what was shown ``CROSSING`` ago is forgotten."""
    # The browser's key and the report's time, once for all the rows the cart shows.
    shown_by = None if report is None else (reporter_key(basket, report.by), report.at)
    by_recipe = held_by_recipe(basket)
    for earlier in list(basket.shown):
        earlier.quantity = min(earlier.quantity, by_recipe.get((earlier.recipe_id, earlier.product_id), 0))
        if earlier.quantity <= 0 or not _recent(earlier, now):
            basket.shown.remove(earlier)
    held: Counter[int] = Counter()
    for (_, product_id), quantity in by_recipe.items():
        held[product_id] += quantity
    by_product: dict[int, list[AwaitedProduct]] = {}
    for row in list(basket.awaited):
        row.quantity = min(row.quantity, by_recipe.get((row.recipe_id, row.product_id), 0))
        # A reported cart's reconcile may come in after CATCH_UP (its retries): what it shows of an expired wait is
        # still kept as shown, for an older cart of its browser arriving after it.
        if row.quantity <= 0 or (not _live(row, now) and report is None):
            basket.awaited.remove(row)
        else:
            by_product.setdefault(row.product_id, []).append(row)
    for product_id, rows in by_product.items():
        unshown = max(0, held.get(product_id, 0) - in_cart.get(product_id, 0))
        shown = sum(row.quantity for row in rows) - unshown
        for row in sorted(rows, key=lambda row: as_utc(row.asked_at)):
            if shown <= 0:
                break
            taken = min(shown, row.quantity)
            shown -= taken
            row.quantity -= taken
            if shown_by is not None:
                _shown_by(basket, row, taken, *shown_by, now, by_recipe)
    for row in list(basket.awaited):
        if row.quantity == 0 or not _live(row, now):
            basket.awaited.remove(row)


def forget(basket: Basket) -> None:
    """The basket was confirmed (paid): it awaits nothing of the cart any more."""
    basket.awaited.clear()
    basket.shown.clear()


def _shown_by(
    basket: Basket,
    row: AwaitedProduct,
    quantity: int,
    reporter: str,
    reported_at: float,
    now: dt.datetime,
    holds: Mapping[Key, int],
) -> None:
    """``quantity`` of ``row``'s packages were shown by a cart the browser keyed ``reporter`` reported at
    ``reported_at``: kept as shown by that browser, at the newest time its carts showed that recipe's product, and
    never more than the recipe ``holds``."""
    for shown in basket.shown:
        if (shown.recipe_id, shown.product_id, shown.reporter) == (row.recipe_id, row.product_id, reporter):
            shown.quantity = min(shown.quantity + quantity, holds.get((row.recipe_id, row.product_id), 0))
            shown.reported_at = max(shown.reported_at, reported_at)
            shown.shown_at = now
            return
    basket.shown.append(
        ShownProduct(
            recipe_id=row.recipe_id,
            product_id=row.product_id,
            reporter=reporter,
            quantity=quantity,
            reported_at=reported_at,
            shown_at=now,
        )
    )


def _live(row: AwaitedProduct, now: dt.datetime) -> bool:
    return now - as_utc(row.asked_at) < CATCH_UP


def _recent(shown: ShownProduct, now: dt.datetime) -> bool:
    return now - as_utc(shown.shown_at) < CROSSING

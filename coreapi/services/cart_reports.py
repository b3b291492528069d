"""Which cart of each browser the basket followed last (``coreapi.models.CartReport``).

The shopper's tabs of one browser share one retailer cart, and each tab reports it (``POST /basket/reconcile``)
when it changes. Two reports may cross on their way: a tab's older cart reaching the service after another tab's
newer one was followed. Following the older one would take out of the basket what only the newer one showed (a
recipe the other tab had just added, whose packages that newer cart showed and so ended their wait:
``coreapi.services.cart_waits``), its products left in the cart without it.

So a reconcile may say which browser reported its cart and when (``reported``: an id the browser keeps for all
its tabs, and that browser's clock, the same for all of them): one older than the newest cart the basket followed
from that browser is not followed. Browsers are compared with themselves only (two devices' clocks differ), and
only for ``CROSSING``: a request is not on its way longer than that (the browser SDK gives a write up after three
attempts of 12 s, prerender/static/sdk/http.js), so an older report arriving later comes from a browser whose clock
was set back meanwhile, and is followed. The rows of a basket are kept no longer than that either.
"""

from __future__ import annotations

import datetime as dt

from coreapi.models import Basket, CartReport
from coreapi.services.moments import as_utc

# Longer than any reconcile is on its way, retries included.
CROSSING = dt.timedelta(seconds=60)


def follows(basket: Basket, reporter: str, reported_at: float, now: dt.datetime) -> bool:
    """Whether the basket follows the cart ``reporter`` reported at ``reported_at`` (its clock, in milliseconds):
    not when it followed a later one of that browser less than ``CROSSING`` ago. When it does, the report is
    noted as that browser's newest; reports of any browser older than ``CROSSING`` are forgotten."""
    newest = None
    for row in list(basket.cart_reports):
        if now - as_utc(row.followed_at) >= CROSSING:
            basket.cart_reports.remove(row)
        elif row.reporter == reporter:
            newest = row
    if newest is not None and reported_at < newest.reported_at:
        return False
    if newest is None:
        basket.cart_reports.append(CartReport(reporter=reporter, reported_at=reported_at, followed_at=now))
    else:
        newest.reported_at = reported_at
        newest.followed_at = now
    return True


def forget(basket: Basket) -> None:
    """The basket was confirmed (paid): no cart is reconciled into it any more."""
    basket.cart_reports.clear()

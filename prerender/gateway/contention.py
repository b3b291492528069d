"""Whether a tenant (a retailer: prerender/gateway/tenant_breakers.py, `tenant_key`) shares a resource with another
right now: another tenant asked for it within the last CONTENDED_SECONDS, admitted or not.

A tenant's share of a resource's places depends on it: alone, a tenant may take (nearly) all of them, and a
deployment of one retailer keeps what it was configured for; contended, it takes half, so that one retailer whose
requests hang cannot hold them all. Used by the bulkhead's share of upstream calls (prerender/gateway/bulkhead.py)
and by admission's share of a worker's requests (prerender/web/admission.py). docs/decisions.md, "A retailer alone
keeps most of a resource's places" and "One retailer's hung requests leave a worker's places to the others".

Not thread-safe: each user notes and asks under its own lock.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable

# How long after another tenant last asked a tenant stays contended.
CONTENDED_SECONDS = 30.0


class Contention:
    """The last two tenants that asked, and when: all the rule needs (the tenant that asks and the last other one),
    whatever the number of tenants."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._asked: collections.OrderedDict[str, float] = collections.OrderedDict()  # oldest first

    def note(self, tenant: str) -> None:
        """`tenant` asks now."""
        self._asked.pop(tenant, None)
        self._asked[tenant] = self.clock()
        while len(self._asked) > 2:
            self._asked.popitem(last=False)

    def contended(self, tenant: str) -> bool:
        """Whether another tenant asked within CONTENDED_SECONDS."""
        return self.seconds_left(tenant) > 0

    def seconds_left(self, tenant: str) -> float:
        """Seconds until `tenant` is alone again (0 when it is)."""
        now = self.clock()
        ends = [when + CONTENDED_SECONDS - now for other, when in self._asked.items() if other != tenant]
        return max([0.0, *ends])


class HeldPlaces:
    """The places each tenant holds now (no entry at 0: as many entries as places at most). Not thread-safe, as
    `Contention`."""

    def __init__(self) -> None:
        self._held: dict[str, int] = {}

    def of(self, tenant: str) -> int:
        return self._held.get(tenant, 0)

    def take(self, tenant: str) -> None:
        self._held[tenant] = self._held.get(tenant, 0) + 1

    def give_back(self, tenant: str) -> None:
        left = self._held[tenant] - 1
        if left:
            self._held[tenant] = left
        else:
            del self._held[tenant]

"""A bulkhead for one upstream resource: at most `limit` calls to it in flight per worker process.

When they are all taken, a call waits for a place only if fewer than `queue` calls are waiting already, and only
as long as its request's budget leaves time to make the call after the wait; otherwise it is shed at once
(`Shed`, nothing sent). So a spike costs the upstream no more than `limit` calls per worker at a time, and a
request that could not be served within its budget is refused at once instead of discovered by a timeout: a
fragment answers its degraded form, a browser's JSON route 503 with Retry-After (prerender/web/errors.py).

The condition and its lock are threading's: patched by gevent's workers into greenlet-aware ones, real locks under
gthread (gunicorn.conf.py).

A call made for a tenant (a retailer: prerender/gateway/tenant_breakers.py, `tenant_key`) takes at most its
tenant's share of the places, which depends on whether the resource is contended:
- **alone** (no other tenant has asked for a place within the last CONTENDED_SECONDS): `solo_share`, every place but
  a reserve of a quarter, rounded down, one place at least (12 of 16; with a limit of 1, that one place and no
  reserve): a deployment of one retailer keeps most of its places, and a retailer whose calls hang while it is alone
  still leaves the reserve free for the first call of another;
- **contended** (another tenant asked within that time): `share`, half of the places (8 of 16), so that one
  retailer whose calls hang holds half of them while they hang and the others get the rest. Places a tenant holds
  beyond it are not taken back: its calls over the share wait until enough of its own end.
A call over its tenant's share waits, and is shed, as one over the limit.

The log says when the bulkhead starts shedding and when it has shed nothing for QUIET_SECONDS (said by the next
call that goes through), with how many were shed meanwhile: two lines for a spike or a steady overload, however
many calls get a place between the shed ones, not one per shed call (the requests' own lines are at INFO,
prerender/gateway/fallbacks.py).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from prerender.gateway.contention import Contention, HeldPlaces
from prerender.gateway.errors import Shed

log = logging.getLogger(__name__)

# How long a bulkhead must shed nothing before its log says calls go through again.
QUIET_SECONDS = 10.0


class Bulkhead:
    """Places for the calls to one resource. A call for a tenant (`place(tenant=...)`) takes at most `solo_share` of
    them while no other tenant asked within CONTENDED_SECONDS (prerender/gateway/contention.py), `share`
    (max(1, limit // 2)) otherwise: one retailer whose calls hang cannot hold every place of the resource
    (docs/decisions.md, "One retailer's failures open its own breakers", and "A retailer alone keeps most of a
    resource's places")."""

    def __init__(self, *, name: str, limit: int, queue: int, clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 1 or queue < 0:
            raise ValueError("a bulkhead holds one call at least, and a queue of 0 or more")
        self.name = name
        self.limit = limit
        self.queue = queue
        self.share = max(1, limit // 2)
        self.solo_share = max(self.share, limit - max(1, limit // 4))
        self.clock = clock
        # One condition for the places, the tenants' shares and the counts: a freed place wakes the waiting calls,
        # and the first of them that may take it does (threading's: patched by gevent's workers).
        self._lock = threading.Condition(threading.Lock())
        self._in_flight = 0
        self._held = HeldPlaces()  # the calls in flight per tenant
        self._contention = Contention(clock=clock)  # whether a tenant's share is the contended one
        self._waiting = 0
        self._shed = 0  # calls shed since it started shedding (0: not shedding)
        self._last_shed = 0.0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def waiting(self) -> int:
        return self._waiting

    def in_flight_for(self, tenant: str) -> int:
        """The calls in flight for `tenant`."""
        with self._lock:
            return self._held.of(tenant)

    def share_of(self, tenant: str) -> int:
        """The places `tenant` may hold now: `share` when another tenant asked within CONTENDED_SECONDS, else
        `solo_share`."""
        with self._lock:
            return self._share_of(tenant)

    def _share_of(self, tenant: str) -> int:
        """`share_of` (under the lock)."""
        return self.share if self._contention.contended(tenant) else self.solo_share

    def _wait_for_place(self, tenant: str | None, wait: float) -> bool:
        """Wait (under the lock) at most `wait` seconds until a call for `tenant` may take a place: woken by a freed
        place, and by the end of the contention that holds its tenant to `share`, which gives it `solo_share` with
        no place freed."""
        deadline = time.monotonic() + wait
        while not self._free_for(tenant):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            until_alone = self._contention.seconds_left(tenant) if tenant is not None else 0.0
            self._lock.wait(min(left, until_alone) if until_alone > 0 else left)
        return True

    def _free_for(self, tenant: str | None) -> bool:
        """Whether a call for `tenant` may take a place now (under the lock)."""
        if self._in_flight >= self.limit:
            return False
        return tenant is None or self._held.of(tenant) < self._share_of(tenant)

    @contextlib.contextmanager
    def place(self, *, wait: float, tenant: str | None = None) -> Iterator[None]:
        """Hold a place for one call, waiting at most `wait` seconds for one; Shed when none came. A call for a
        `tenant` that holds its share already waits (and is shed) as one for a full bulkhead."""
        shed = quiet = in_flight = waiting = share = 0
        with self._lock:
            if tenant is not None:
                self._contention.note(tenant)
            if not self._free_for(tenant):
                if wait <= 0 or self._waiting >= self.queue:
                    acquired = False
                else:
                    self._waiting += 1
                    try:
                        acquired = self._wait_for_place(tenant, wait)
                    finally:
                        self._waiting -= 1
                if not acquired:
                    shed = self._count_shed()
                    in_flight, waiting = self._in_flight, self._waiting
                    share = self._share_of(tenant) if tenant is not None else self.limit
            else:
                acquired = True
            if acquired:
                self._in_flight += 1
                if tenant is not None:
                    self._held.take(tenant)
                quiet = self._shed if self._shed and self.clock() - self._last_shed >= QUIET_SECONDS else 0
                if quiet:
                    self._shed = 0
        if not acquired:
            if shed == 1 and in_flight >= self.limit:
                log.warning(
                    "bulkhead for %s full (%d calls in flight, %d waiting): shedding calls",
                    self.name,
                    in_flight,
                    waiting,
                )
            elif shed == 1:
                log.warning(
                    "bulkhead for %s: a tenant holds its share (%d of %d places; %d calls in flight, %d waiting): "
                    "shedding its calls",
                    self.name,
                    share,
                    self.limit,
                    in_flight,
                    waiting,
                )
            raise Shed(self.name)
        if quiet:
            log.warning(
                "bulkhead for %s: calls go through again, none shed for %g s (%d shed before)",
                self.name,
                QUIET_SECONDS,
                quiet,
            )
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                if tenant is not None:
                    self._held.give_back(tenant)
                # Every waiting call looks: the first that may take the freed place (its tenant under its share)
                # does, the others wait on.
                self._lock.notify_all()

    def _count_shed(self) -> int:
        """One more call shed (under the lock): how many since it started shedding (1: the log says it starts)."""
        self._shed += 1
        self._last_shed = self.clock()
        return self._shed

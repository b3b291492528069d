"""The upstream's resources, and for each one its circuit breakers and bulkhead (per worker process).

Every upstream call names the resource it touches (`UpstreamHttp.request(resource=...)`), so failures stay where
they happen: a catalog slowed to a crawl opens the catalog's breaker and fills the catalog's bulkhead, while the
cards' recipe reads and the basket writes go on (docs/decisions.md, "Circuit breakers per resource"). Within a
resource, each tenant (retailer) has its own breaker and a share of the bulkhead's places (half of them while
another retailer's calls ask too, prerender/gateway/bulkhead.py), so one retailer's failures stay its own
(prerender/gateway/tenant_breakers.py; docs/decisions.md, "One retailer's failures open its own breakers").
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from prerender.gateway.breaker import CLOSED, STATE_VALUES, BreakerPolicy, CircuitBreaker
from prerender.gateway.bulkhead import Bulkhead
from prerender.gateway.tenant_breakers import TenantBreakers
from prerender.metrics import BREAKER_STATE


class Resource(enum.StrEnum):
    """What an upstream call touches (docs/upstream.md), the unit of failure isolation."""

    SUPPLIERS = "suppliers"  # /suppliers/me
    STORES = "stores"  # /stores
    RECIPES = "recipes"  # /recipes/<id>, /recipes/batch, /recipes/by-external-id: what cards and the drawer show
    SUGGESTIONS = "suggestions"  # /suggestions
    LIKES = "likes"  # /likes
    BASKETS = "baskets"  # /basket..., payments, transfers
    MENUS = "menus"  # /menus...
    CATALOG = "catalog"  # /categories, /recipes (search pages), /favorites, /baskets/history, preference options
    SHOPPER = "shopper"  # /preferences, /favorite-items: the shopper's settings
    EVENTS = "events"  # /events


@dataclass(frozen=True)
class Guard:
    """The breakers (the shared one and the tenants') and the bulkhead of one resource."""

    breakers: TenantBreakers
    bulkhead: Bulkhead

    @property
    def breaker(self) -> CircuitBreaker:
        """The resource's shared breaker: open, it refuses every tenant's calls."""
        return self.breakers.shared


def report_state(resource: str, state: str) -> None:
    """A breaker's new state, as the worker's gauge of that resource."""
    BREAKER_STATE.labels(resource).set(STATE_VALUES[state])


def call_later(seconds: float, callback: Callable[[], None]) -> None:
    """`callback` in `seconds`, on a timer thread of its own (a greenlet under gevent's workers) that never keeps
    the process from exiting."""
    timer = threading.Timer(seconds, callback)
    timer.daemon = True
    timer.start()


class ResourceGuards:
    """One Guard per Resource, built up front (their gauges start at closed)."""

    def __init__(
        self,
        *,
        policy: BreakerPolicy,
        calls_in_flight: int,
        queued_calls: int,
        clock: Callable[[], float] = time.monotonic,
        wake: Callable[[float, Callable[[], None]], None] | None = call_later,
    ) -> None:
        self._guards = {
            resource: Guard(
                breakers=TenantBreakers(
                    name=resource.value, policy=policy, clock=clock, on_change=report_state, wake=wake
                ),
                bulkhead=Bulkhead(name=resource.value, limit=calls_in_flight, queue=queued_calls),
            )
            for resource in Resource
        }
        for resource in self._guards:
            report_state(resource.value, CLOSED)

    def __getitem__(self, resource: Resource) -> Guard:
        return self._guards[resource]

    def states(self) -> dict[str, str]:
        """Each resource's shared breaker state (a tenant's open breaker refuses that tenant's calls only: it is
        counted in prerender_circuit_breaker_tenants_open, not here)."""
        return {resource.value: guard.breaker.state for resource, guard in self._guards.items()}

"""Resource guards for gateway tests: the production breakers and bulkheads, with a policy and clock of the test's,
and the HTTP client to a fake upstream that uses them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prerender.gateway import Resource, ResourceGuards, UpstreamHttp
from prerender.gateway.breaker import BreakerPolicy, CircuitBreaker
from prerender.gateway.guards import call_later
from prerender.gateway.tenant_breakers import NO_TENANT

# The resource the tests' generic upstream calls are made for.
RESOURCE = Resource.RECIPES


def guards(
    *, clock: Callable[[], float] = time.monotonic, calls_in_flight: int = 16, queued_calls: int = 16, **policy: Any
) -> ResourceGuards:
    """Guards whose breakers follow BreakerPolicy(**policy) (its defaults otherwise)."""
    return ResourceGuards(
        policy=BreakerPolicy(**policy),
        calls_in_flight=calls_in_flight,
        queued_calls=queued_calls,
        clock=clock,
        wake=None if clock is not time.monotonic else call_later,  # no real timer on a test's clock
    )


def upstream_http(base_url: str, *, retries: int = 0, pool_size: int = 1, **guard_settings: Any) -> UpstreamHttp:
    """The gateway's HTTP client to `base_url` with short timeouts (0.1 s connect, 0.2 s read) and
    guards(**guard_settings)."""
    return UpstreamHttp(
        base_url=base_url,
        connect_timeout=0.1,
        read_timeout=0.2,
        retries=retries,
        pool_size=pool_size,
        guards=guards(**guard_settings),
    )


def tenant_breaker(guards: ResourceGuards, resource: Resource = RESOURCE, tenant: str = NO_TENANT) -> CircuitBreaker:
    """The breaker of `tenant`'s calls to `resource` (prerender/gateway/tenant_breakers.py): by default that of the
    calls made for no supplier, as the tests' calls without supplier headers are. One tenant's failures open it, not
    the resource's shared breaker."""
    return guards[resource].breakers.of(tenant)

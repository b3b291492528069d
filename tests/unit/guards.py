"""Resource guards for gateway tests: the production breakers and bulkheads, with a policy and clock of the test's."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prerender.gateway import Resource, ResourceGuards
from prerender.gateway.breaker import BreakerPolicy

# The resource the tests' generic upstream calls are made for.
RESOURCE = Resource.RECIPES


def guards(
    *, clock: Callable[[], float] = time.monotonic, calls_in_flight: int = 16, queued_calls: int = 16, **policy: Any
) -> ResourceGuards:
    """Guards whose breakers follow BreakerPolicy(**policy) (its defaults otherwise)."""
    return ResourceGuards(
        policy=BreakerPolicy(**policy), calls_in_flight=calls_in_flight, queued_calls=queued_calls, clock=clock
    )

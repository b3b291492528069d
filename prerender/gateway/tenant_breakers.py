"""A resource's circuit breakers per tenant (the retailer a call is made for), and the shared one above them.

One retailer whose calls fail upstream (its catalog answers 5xx, or times out, for that supplier only) must not stop
the others: a breaker shared by every retailer opened for everybody, and every other retailer's cards degraded.

- A call is made for a tenant (`tenant_key`): `id:<supplier id>` when the supplier is known, `token:<the first 16 hex
  digits of the token's SHA-256>` when only its token is (the supplier lookup), `none` without a supplier (a page
  without a valid supplier-token). A token is never kept, logged nor shown in clear.
- Each (resource, tenant) has its own breaker, on the same policy as before (`BreakerPolicy`): a tenant's failures
  open its own circuit, which refuses that tenant's calls only. At most `capacity` tenants per resource are kept;
  a new one evicts the least recently used closed breaker (an open one only when none is closed), so made-up tokens
  cannot grow the memory.
- The resource's shared breaker still protects the upstream from every tenant at once during a whole-upstream
  outage, but it counts a failure only when at least `MIN_FAILING_TENANTS` (2) distinct tenants failed within its
  window: one failing tenant cannot open it. Its successes count as before.
- A call goes through only when both its tenant's breaker and the shared one let it (either may refuse it with
  CircuitOpen); its outcome is told to both.

A deployment with one retailer: that retailer's breakers open on a whole-upstream outage as the one breaker per
resource did, which refuses its calls as before (calls without a supplier are a tenant of their own, `none`).
docs/decisions.md, "One retailer's failures open its own breakers".
"""

from __future__ import annotations

import collections
import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from prerender.gateway.breaker import CLOSED, OPEN, BreakerPolicy, CircuitBreaker
from prerender.gateway.errors import CircuitOpen
from prerender.metrics import BREAKER_TENANTS_OPEN

# The tenant of a call made for no supplier (no valid supplier-token, no credential).
NO_TENANT = "none"
# Tenants whose breakers a resource keeps (per worker): beyond, the least recently used closed one goes.
TENANTS_PER_RESOURCE = 256
# Distinct tenants that must have failed within the shared breaker's window before it counts a failure.
MIN_FAILING_TENANTS = 2
# The upstream headers that name a call's supplier (prerender/gateway/calls.py).
SUPPLIER_ID_HEADER = "Supplier-Id"
SUPPLIER_TOKEN_HEADER = "Supplier-Token"


def tenant_key(supplier_id: str | None, supplier_token: str | None) -> str:
    """The tenant of a call: its supplier's id when known, else a digest of its token (never the token), else
    NO_TENANT."""
    if supplier_id:
        return f"id:{supplier_id}"
    if supplier_token:
        return "token:" + hashlib.sha256(supplier_token.encode()).hexdigest()[:16]
    return NO_TENANT


def tenant_of_headers(headers: Mapping[str, str]) -> str:
    """The tenant of a call from the supplier headers it sends upstream (a call made without an identity: the
    supplier lookups)."""
    return tenant_key(headers.get(SUPPLIER_ID_HEADER), headers.get(SUPPLIER_TOKEN_HEADER))


@dataclass(frozen=True)
class Admission:
    """A call let through: its tenant, that tenant's breaker, and whether it probes that breaker and the shared
    one (to report its outcome to the same breakers, with the same flags)."""

    tenant: str
    breaker: CircuitBreaker
    probe: bool
    shared_probe: bool


class TenantBreakers:
    """The breakers of one resource: the shared one (`shared`) and one per tenant (`of`). Thread-safe."""

    def __init__(
        self,
        *,
        name: str,
        policy: BreakerPolicy,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[str, str], None] | None = None,
        wake: Callable[[float, Callable[[], None]], None] | None = None,
        capacity: int = TENANTS_PER_RESOURCE,
    ) -> None:
        if capacity < 1:
            raise ValueError("a resource keeps one tenant's breaker at least")
        self.name = name
        self.policy = policy
        self.clock = clock
        self.capacity = capacity
        self._wake = wake
        self.shared = CircuitBreaker(name=name, policy=policy, clock=clock, on_change=on_change, wake=wake)
        self._lock = threading.Lock()
        self._tenants: collections.OrderedDict[str, CircuitBreaker] = collections.OrderedDict()  # oldest use first
        self._open: set[str] = set()  # the tenants whose breaker is open (the gauge)
        # The last failure time of the (at most MIN_FAILING_TENANTS) tenants that failed last, oldest first: all the
        # shared breaker's rule needs, whatever the number of tenants.
        self._failed: collections.OrderedDict[str, float] = collections.OrderedDict()
        BREAKER_TENANTS_OPEN.labels(name).set(0)

    def of(self, tenant: str) -> CircuitBreaker:
        """The tenant's breaker, made on its first call (the least recently used closed one evicted beyond
        `capacity`)."""
        with self._lock:
            breaker = self._tenants.get(tenant)
            if breaker is not None:
                self._tenants.move_to_end(tenant)
                return breaker
            if len(self._tenants) >= self.capacity:
                self._evict()
            made = CircuitBreaker(
                name=self.name,
                label=f"{self.name} (tenant {tenant})",
                policy=self.policy,
                clock=self.clock,
                on_change=lambda _name, state: self._changed(tenant, made, state),
                wake=self._wake,
            )
            self._tenants[tenant] = made
            return made

    def _evict(self) -> None:
        """Make room (under the lock): the least recently used closed breaker, else the least recently used one."""
        victim = next((tenant for tenant, b in self._tenants.items() if b.state == CLOSED), None)
        if victim is None:
            victim = next(iter(self._tenants))
        del self._tenants[victim]
        if victim in self._open:
            self._open.discard(victim)
            BREAKER_TENANTS_OPEN.labels(self.name).set(len(self._open))

    def _changed(self, tenant: str, breaker: CircuitBreaker, state: str) -> None:
        """A tenant breaker's new state: the count of open ones (an evicted breaker's late news is ignored)."""
        with self._lock:
            if self._tenants.get(tenant) is not breaker:
                return
            if state == OPEN:
                self._open.add(tenant)
            else:
                self._open.discard(tenant)
            BREAKER_TENANTS_OPEN.labels(self.name).set(len(self._open))

    def tenants(self) -> int:
        """How many tenants' breakers are kept."""
        with self._lock:
            return len(self._tenants)

    def allow(self, tenant: str) -> Admission:
        """Let a call for `tenant` through, or raise the CircuitOpen of its tenant's breaker or the shared one."""
        breaker = self.of(tenant)
        probe = breaker.allow()
        try:
            shared_probe = self.shared.allow()
        except CircuitOpen:
            breaker.record_ignored(probe)  # not sent: its probe's place goes to the next caller
            raise
        return Admission(tenant=tenant, breaker=breaker, probe=probe, shared_probe=shared_probe)

    def record(self, admission: Admission, evidence: bool | None) -> None:
        """A call's outcome (True: the upstream answered; False: it failed; None: no evidence) to its tenant's
        breaker and to the shared one, which counts a failure only once MIN_FAILING_TENANTS tenants failed within
        its window (else that failure is no evidence for it)."""
        if evidence is None:
            admission.breaker.record_ignored(admission.probe)
            self.shared.record_ignored(admission.shared_probe)
        elif evidence:
            admission.breaker.record_success(admission.probe)
            self.shared.record_success(admission.shared_probe)
        else:
            admission.breaker.record_failure(admission.probe)
            if self._several_failing(admission.tenant):
                self.shared.record_failure(admission.shared_probe)
            else:
                self.shared.record_ignored(admission.shared_probe)

    def _several_failing(self, tenant: str) -> bool:
        """Note `tenant`'s failure now; whether another tenant failed within the window too (MIN_FAILING_TENANTS
        is 2: the one that failed last among the others is in `_failed`)."""
        now = self.clock()
        with self._lock:
            self._failed.pop(tenant, None)
            others = [when for when in self._failed.values() if now - when < self.policy.window]
            self._failed[tenant] = now
            while len(self._failed) > MIN_FAILING_TENANTS:
                self._failed.popitem(last=False)
        return len(others) + 1 >= MIN_FAILING_TENANTS

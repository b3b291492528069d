"""Overload shed at the door: at most MAX_REQUESTS_IN_PROGRESS requests of the API routes in progress per worker.

Beyond it a request is not queued behind the others (its client would wait for the whole queue, then for its own
work, and time out): it is answered at once, in its route's degraded form. So is a request that waited its route's
whole upstream budget before this worker read it, when the front says when it arrived (prerender/web/queue_age.py).

- A browser's JSON route: `503` with `Retry-After: 1`, before any work (nothing was done: the SDK resends a write
  with its Idempotency-Key).
- A fragment route: rendered with an upstream budget of nothing (prerender/web/upstream_budget.py), so it makes no
  upstream call and answers from what is cached (a card from the read cache and the fragment memo, a stale copy)
  or its documented empty answer. The answer is marked `X-Degraded: shed` and kept by no cache.

Routes outside the API versions (health, metrics, static files) are never shed: a load balancer's check must see
the process alive. The count is per process: gevent's greenlets (or gthread's threads) of one worker share it.

A retailer's fragments (counted at the door for their supplier-token as sent, `door_tenant`) take at most half of
the places while another retailer's fragments ask too (within CONTENDED_SECONDS, prerender/gateway/contention.py),
all of them while they are alone: a retailer whose requests hang upstream holds each place for its whole budget,
and at a few hundred cards a second its requests alone would fill every place and shed every other retailer's.
Past its share a fragment is shed the same way, counted under its own reason (`share`). A deployment of one
retailer keeps every place. docs/decisions.md, "One retailer's hung requests leave a worker's places to the others".
A token this worker has not seen valid (a newcomer's, or a made-up one: the door cannot tell them apart without a
call) makes the others share only when a full worker sheds it: else anyone sending made-up tokens would hold
every retailer to half of the places. docs/decisions.md, "Made-up tokens no longer halve a retailer's places".

Fragment requests no supplier vouches for (no supplier-token, or one the upstream does not know, which the specification
only logs) have a smaller share of their own, MAX_UNVOUCHED_REQUESTS_IN_PROGRESS, counted once the header guard
has resolved the supplier (`admit_unvouched`, the versioned blueprints' hook after the guard): anyone may send them,
and a flood of them would otherwise take every place and the upstream's capacity from the customers' servers. Past
it they are shed the same way, counted under their own reason (`unvouched`). A token that could not be checked
counts as none (a customer's has its last good copy for a day), and a browser's JSON routes answer their own
refusals.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from flask import Flask, Response, current_app, g, request

from plumbing.problems import Problem
from prerender.gateway import get_upstream
from prerender.gateway.contention import Contention, HeldPlaces
from prerender.gateway.tenant_breakers import SUPPLIER_TOKEN_HEADER, tenant_key
from prerender.metrics import DEGRADED_ANSWERS
from prerender.schemas.headers import header_value
from prerender.web.context import current_context
from prerender.web.contract import RouteContract, request_api_version, request_contract
from prerender.web.degraded import DEGRADED_HEADER, SHED, was_shed
from prerender.web.http_caching import NO_STORE, set_policy
from prerender.web.queue_age import queued_seconds
from prerender.web.upstream_budget import budget_left, is_fragment_route, withdraw_upstream_budget

EXTENSION_KEY = "prerender.admission"
UNVOUCHED_KEY = "prerender.admission.unvouched"
QUEUED = "queued"
UNVOUCHED = "unvouched"
# A retailer's fragment shed because it holds its share of the worker's places while another retailer's ask too.
SHARE = "share"
RETRY_AFTER_SECONDS = 1


class Admission:
    """The requests in progress in this worker, against a limit; a tenant's (a retailer's fragments) against its
    share of it: all of it while no other tenant asked within CONTENDED_SECONDS, half of it otherwise
    (prerender/gateway/contention.py)."""

    def __init__(self, *, limit: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.in_progress = 0
        self._lock = threading.Lock()
        self._held = HeldPlaces()  # requests in progress per tenant
        self._contention = Contention(clock=clock)

    @property
    def share(self) -> int:
        """The places a tenant may hold while another tenant asks too."""
        return max(1, self.limit // 2)

    def refusal(self, tenant: str | None = None, *, vouched: bool = True) -> str | None:
        """Count one more request in progress (for `tenant`), or say why not (not counted): SHED when the worker
        is full, SHARE when `tenant` holds its share of it while another tenant asks too. A tenant not `vouched`
        for (a token not seen valid) makes the others share only when the worker is full and sheds it: a
        newcomer's first requests must not wait for the end of another's hang, and made-up tokens must not hold
        the retailers to half of the places while there are places for all."""
        with self._lock:
            if tenant is not None and vouched:
                self._contention.note(tenant)
            if self.in_progress >= self.limit:
                if tenant is not None and not vouched:
                    self._contention.note(tenant)
                return SHED
            if tenant is not None:
                if self._held.of(tenant) >= self.share and self._contention.contended(tenant):
                    return SHARE
                self._held.take(tenant)
            self.in_progress += 1
            return None

    def enter(self, tenant: str | None = None) -> bool:
        """Count one more request in progress, or say it may not (not counted)."""
        return self.refusal(tenant) is None

    def in_progress_for(self, tenant: str) -> int:
        with self._lock:
            return self._held.of(tenant)

    def leave(self, tenant: str | None = None) -> None:
        with self._lock:
            self.in_progress -= 1
            if tenant is not None:
                self._held.give_back(tenant)


def admit() -> None:
    """before_request: let the request in, or shed it (a JSON route's 503 here; a fragment's degraded answer)."""
    contract = request_contract()
    # Routes outside the versions (health, metrics, the OpenAPI document) are never shed, whatever their
    # declaration says of their callers.
    if contract is None or request.method == "OPTIONS" or request_api_version() is None:
        return
    admission: Admission = current_app.extensions[EXTENSION_KEY]
    # A request whose whole budget went by while it waited for this worker is shed like one over the limit: its
    # client has waited what the route promises (prerender/web/queue_age.py). Its own reason in the metric: many of
    # them at once, with a queue that short, is a front's clock ahead of ours.
    waited_its_budget = queued_seconds() > 0 and budget_left(contract) == 0
    tenant, vouched = door_tenant(contract)
    refused = QUEUED if waited_its_budget else admission.refusal(tenant, vouched=vouched)
    if refused is None:
        g.admitted = True
        g.admitted_tenant = tenant
        return
    DEGRADED_ANSWERS.labels(request.endpoint or "unmatched", refused).inc()
    shed(contract)


def door_tenant(contract: RouteContract) -> tuple[str | None, bool]:
    """The tenant a request is counted for at the door, before the header guard checks its supplier-token, and
    whether it is vouched for. A fragment's retailer: its supplier's (`id:<id>`, as its upstream calls count,
    prerender/gateway/tenant_breakers.py) when this worker has seen its token valid, in memory
    (prerender/gateway/suppliers.py, `seen_supplier_id`); else its token's digest (`none` without one), not vouched
    for. None for a browser's JSON route, whose retailer only its credential's signature proves: counted in the
    worker's places, not in a retailer's share."""
    if not is_fragment_route(contract):
        return None, True
    token = header_value(SUPPLIER_TOKEN_HEADER, request.headers.get(SUPPLIER_TOKEN_HEADER, "")).strip() or None
    supplier_id = get_upstream().suppliers.seen_supplier_id(token) if token else None
    if supplier_id:
        return tenant_key(supplier_id, None), True
    return tenant_key(None, token), False


def admit_unvouched() -> None:
    """The versioned blueprints' before_request, after the header guard: a fragment request no supplier vouches for
    takes one of its share's places, or is shed as `admit` sheds. A token whose lookup failed counts as none: a
    customer's token has its last good copy for a day (prerender/gateway/suppliers.py), and made-up tokens that
    slow the lookups must not be let through for it. A JSON route answers its own refusal (401, 403) to a caller
    without a supplier, never a "busy, try again" 503."""
    contract = request_contract()
    if contract is None or request.method == "OPTIONS" or was_shed() or not is_fragment_route(contract):
        return
    if current_context().supplier is not None:
        return
    if current_app.extensions[UNVOUCHED_KEY].enter():
        g.unvouched_admitted = True
        return
    DEGRADED_ANSWERS.labels(request.endpoint or "unmatched", UNVOUCHED).inc()
    withdraw_upstream_budget()
    shed(contract)


def shed(contract: RouteContract) -> None:
    """Answer the request in its degraded form: a JSON route's 503 now; a fragment rendered with no upstream call."""
    if not is_fragment_route(contract):
        raise Problem(
            503,
            "The service is answering more requests than it can right now; try again in a second.",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    g.shed = True
    set_policy(NO_STORE)  # no cache keeps it, whatever the view decides (http_caching.set_policy)


def mark_shed(response: Response) -> Response:
    """after_request: a shed fragment says so, whole or not."""
    if was_shed():
        response.headers[DEGRADED_HEADER] = SHED
    return response


def release(_error: BaseException | None = None) -> None:
    """teardown: the request is no longer in progress."""
    if g.pop("admitted", False):
        current_app.extensions[EXTENSION_KEY].leave(g.pop("admitted_tenant", None))
    if g.pop("unvouched_admitted", False):
        current_app.extensions[UNVOUCHED_KEY].leave()


def register_admission(app: Flask) -> None:
    """The worker's admission, and its hooks (`admit_unvouched` is the versioned blueprints', after their guard)."""
    app.extensions[EXTENSION_KEY] = Admission(limit=int(app.config["MAX_REQUESTS_IN_PROGRESS"]))
    app.extensions[UNVOUCHED_KEY] = Admission(limit=int(app.config["MAX_UNVOUCHED_REQUESTS_IN_PROGRESS"]))
    app.before_request(admit)
    app.after_request(mark_shed)
    app.teardown_request(release)

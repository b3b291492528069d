"""GET /healthz (the process is alive) and GET /readyz (this node can serve).

Outside the API versions, no headers needed: for load balancers and orchestrators. Neither calls the upstream:
readiness follows what is the node's own, never a dependency every node shares (the upstream, Redis), whose outage
would take every node out of the load balancer at once, precisely when the nodes could still serve stale and empty
fragments (docs/decisions.md, "Readiness"). What this worker knows of the upstream, its breakers' states, is in
both answers and in /metrics; whether the upstream refused the service key (the node's own setting) at this worker's
last call that sent it, in /readyz. Both say which release the process runs (`version`: prerender/rendering/release.py),
what step 6 of a new release checks (docs/operations.md).
"""

from __future__ import annotations

import logging
import uuid

from flask import Blueprint, current_app
from flask.typing import ResponseReturnValue

from prerender.extensions import cache
from prerender.gateway import Upstream, get_upstream
from prerender.rendering.release import release
from prerender.schemas.responses import HealthSchema
from prerender.web.contract import declare, json_answer
from prerender.web.http_caching import NO_STORE, cache_policy

log = logging.getLogger(__name__)

bp = Blueprint("health", __name__)
# app.extensions: whether this worker's last check of the shared cache failed.
_CACHE_FAILING = "prerender_readyz_cache_failing"


@bp.get("/healthz")
@cache_policy(NO_STORE)  # a cache in front must not answer for a worker that stopped
@declare(summary="Liveness, with this worker's view of the upstream", answers={200: json_answer(HealthSchema)})
def healthz() -> ResponseReturnValue:
    """Liveness: answers as long as the worker can serve a request."""
    return {"status": "ok", "upstream": get_upstream().http.guards.states(), "version": release()}


@bp.get("/readyz")
@cache_policy(NO_STORE)
@declare(
    summary="Readiness",
    answers={
        200: json_answer(
            HealthSchema,
            "Ready; `degraded` when the shared cache fails or the upstream refuses this node's service key (still "
            "serving fragments).",
        )
    },
)
def readyz() -> ResponseReturnValue:
    """Readiness: the node serves; a failing shared cache or a refused service key makes it `degraded`, not
    unready."""
    upstream = get_upstream()
    checks = {"cache": _cache_check(), "service_key": _service_key_check(upstream)}
    status = "ready" if all(result == "ok" for result in checks.values()) else "degraded"
    return {"status": status, "checks": checks, "upstream": upstream.http.guards.states(), "version": release()}


def _service_key_check(upstream: Upstream) -> str:
    """Whether the upstream refused UPSTREAM_SERVICE_KEY at this worker's last call that sent it (for a browser's
    request): the node's own setting, so its browser routes fail (502) while the fragments still serve."""
    if upstream.http.service_key_refused:
        return "failed: the upstream refuses UPSTREAM_SERVICE_KEY (docs/operations.md, step 6)"
    return "ok"


def _cache_check() -> str:
    """The shared cache's state. Logged when it changes, not at every probe: a load balancer probes each worker every
    few seconds, and a Redis outage wrote one error line per probe for as long as it lasted."""
    result, reason = _probe_cache()
    failing = result != "ok"
    failed_before = current_app.extensions.get(_CACHE_FAILING, False)
    if failing and not failed_before:
        log.error("cache check failed: %s (logged again once it has passed)", reason)
    elif failed_before and not failing:
        log.warning("cache check passes again")
    current_app.extensions[_CACHE_FAILING] = failing
    return result


def _probe_cache() -> tuple[str, str]:
    """The check's result for /readyz and, when it failed, its reason for the log."""
    probe = uuid.uuid4().hex
    try:
        cache.set("readyz-probe", probe, timeout=10)
        if cache.get("readyz-probe") != probe:
            return "failed: the value read back differs", "the value read back differs"
    except Exception as error:
        return f"failed: {error.__class__.__name__}", repr(error)
    return "ok", ""

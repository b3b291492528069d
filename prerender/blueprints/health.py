"""GET /healthz (the process is alive) and GET /readyz (it can serve: upstream and cache answer).

Outside the API versions, no headers needed: for load balancers and orchestrators.
"""

from __future__ import annotations

import logging
import uuid

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from prerender.extensions import cache
from prerender.gateway import UpstreamError, get_gateway
from prerender.schemas.responses import HealthSchema
from prerender.web.contract import declare, json_answer

log = logging.getLogger(__name__)

bp = Blueprint("health", __name__)


@bp.get("/healthz")
@declare(summary="Liveness", answers={200: json_answer(HealthSchema)})
def healthz() -> dict[str, str]:
    """Liveness: answers as long as the worker can serve a request."""
    return {"status": "ok"}


@bp.get("/readyz")
@declare(
    summary="Readiness",
    answers={200: json_answer(HealthSchema), 503: json_answer(HealthSchema, "Not ready: a check failed.")},
)
def readyz() -> ResponseReturnValue:
    """Readiness: the upstream answers its health check and the cache stores and reads a value."""
    checks = {"upstream": _upstream_check(), "cache": _cache_check()}
    ready = all(result == "ok" for result in checks.values())
    return jsonify(status="ready" if ready else "unavailable", checks=checks), 200 if ready else 503


def _upstream_check() -> str:
    try:
        get_gateway().ping()
    except UpstreamError as error:
        return f"failed: {error}"
    return "ok"


def _cache_check() -> str:
    probe = uuid.uuid4().hex
    try:
        cache.set("readyz-probe", probe, timeout=10)
        if cache.get("readyz-probe") != probe:
            return "failed: the value read back differs"
    except Exception as error:
        log.error("cache check failed: %r", error)
        return f"failed: {error.__class__.__name__}"
    return "ok"

"""GET /metrics: the Prometheus exposition (the series are defined in prerender/metrics.py). Outside the API
versions, no headers needed.

With PROMETHEUS_MULTIPROC_DIR set (gunicorn.conf.py and `make run` set it), every worker writes its samples
to files in that folder and this route adds them up; without it (tests, `flask run`), the process's own
registry is served.
"""

from __future__ import annotations

import os

from flask import Blueprint, Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess

from prerender.web.contract import Answer, declare
from prerender.web.http_caching import NO_STORE, cache_policy

bp = Blueprint("metrics", __name__)

# The format generate_latest writes (Prometheus text 0.0.4, names escaped to underscores), which
# prometheus-client's own exposition also labels so unless a scraper asks for a newer one. Passed whole as
# `content_type`: as a `mimetype`, werkzeug would append a second charset.
EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@bp.get("/metrics")
@cache_policy(NO_STORE)
@declare(summary="Prometheus metrics", answers={200: Answer("The Prometheus text exposition format.", "text/plain")})
def metrics() -> Response:
    """Prometheus exposition of every worker's samples."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    return Response(generate_latest(registry), content_type=EXPOSITION_CONTENT_TYPE)

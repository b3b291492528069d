"""The Prometheus series every layer records into (served by prerender/blueprints/metrics.py).

Under gunicorn with PROMETHEUS_MULTIPROC_DIR set, each worker writes its samples to files that /metrics
adds up; gunicorn's child_exit hook marks a dead worker's gauges.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter(
    "prerender_requests_total",
    "Requests answered, by route, status and API version.",
    ["endpoint", "status", "version"],
)
REQUEST_SECONDS = Histogram(
    "prerender_request_duration_seconds",
    "Time to answer a request, by route.",
    ["endpoint", "version"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
UPSTREAM_CALLS = Counter(
    "prerender_upstream_calls_total", "Upstream calls, by endpoint and outcome.", ["endpoint", "outcome"]
)
UPSTREAM_SECONDS = Histogram(
    "prerender_upstream_call_duration_seconds",
    "Upstream call time, by endpoint.",
    ["endpoint"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3),
)
# By kind only: the origin is the caller's to choose, and a series per origin would be anyone's to multiply.
CORS_REFUSED = Counter(
    "prerender_cors_refused_total",
    "Browser CORS requests the service's policy refuses, which the browser then keeps from its page: from an origin "
    "not allowed (PRERENDER_CORS_ALLOWED_ORIGINS; kind preflight or request), or a preflight asking for headers not "
    "allowed (PRERENDER_CORS_ALLOWED_HEADERS; kind header).",
    ["kind"],
)
# Answers rendered without the upstream (a "try again" state instead of the content), by route and cause: an
# operator's alert, since these answers are 200 (prerender/web/degraded.py).
DEGRADED_ANSWERS = Counter(
    "prerender_degraded_answers_total",
    "Answers rendered without their upstream content (200, X-Degraded), by route and reason.",
    ["endpoint", "reason"],
)
# Per retailer: one series per supplier the upstream knows (a bounded set, coreapi's suppliers, grown by
# `add-supplier`) and outcome; every request no supplier vouches for is `none`, so a made-up token adds no series.
SUPPLIER_ANSWERS = Counter(
    "prerender_supplier_answers_total",
    "Answers of the API routes by the supplier that vouched for the request (none: no supplier did) and outcome: "
    "whole, degraded (a 200 marked X-Degraded), refused (4xx) or failed (5xx).",
    ["supplier", "outcome"],
)
UNVOUCHED_REQUESTS = Counter(
    "prerender_unvouched_requests_total",
    "Requests no supplier vouched for: without supplier-token (missing), with one the upstream does not know "
    "(invalid), or whose lookup failed or was not sent (unchecked).",
    ["reason"],
)
CACHE_LOOKUPS = Counter("prerender_cache_lookups_total", "Read-cache lookups: hit, miss or error.", ["result"])
CACHE_BACKEND_FAILURES = Counter(
    "prerender_cache_backend_failures_total",
    "Failed calls to the shared cache (Redis); each starts a few seconds in which the worker keeps its own copies.",
)
FRAGMENT_MEMO_LOOKUPS = Counter(
    "prerender_fragment_memo_lookups_total",
    "Rendered-fragment memo lookups (per worker process): hit or miss.",
    ["result"],
)
SERVICE_KEY_REFUSED = Gauge(
    "prerender_upstream_service_key_refused",
    "1 while the upstream refuses the service key a worker sends (UPSTREAM_SERVICE_KEY): the browser routes fail "
    "(the worst of the workers).",
    multiprocess_mode="livemax",
)
UPSTREAM_CLOCK_AHEAD = Gauge(
    "prerender_upstream_clock_ahead_seconds",
    "How far the upstream's clock surely runs ahead of the node's, from the Date of its answers (0 within 0.1 s); "
    "the deadlines told to it are moved by as much (the most of the workers).",
    multiprocess_mode="livemax",
)
BREAKER_STATE = Gauge(
    "prerender_circuit_breaker_state",
    "Upstream circuit breaker of each resource: 0 closed, 1 half-open, 2 open (the worst of the workers).",
    ["resource"],
    multiprocess_mode="livemax",
)
# A count, no tenant label: a label per retailer (or per made-up token) is a cardinality decision of its own.
BREAKER_TENANTS_OPEN = Gauge(
    "prerender_circuit_breaker_tenants_open",
    "Tenants (retailers) whose own circuit breaker of the resource is open: their calls refused, the others' not "
    "(the most of the workers).",
    ["resource"],
    multiprocess_mode="livemax",
)

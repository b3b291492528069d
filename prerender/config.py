"""Configuration defaults. Every value can be overridden by `instance/config.py` or by an environment
variable named `PRERENDER_<KEY>` (values are parsed as JSON when they parse, so numbers and lists work).

Nothing here is read at import time: `load_config` is called by the application factory.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from flask import Flask

from plumbing.instance_keys import instance_key
from prerender.config_checks import ConfigError, check_config

# A CACHE_REDIS_URL switches any other backend to RedisCache (README: "every cache in Redis").
REDIS_CACHE_TYPES = frozenset({"RedisCache", "RedisClusterCache", "RedisSentinelCache"})
# flask-caching backends every worker and node of a deployment reads and writes alike.
SHARED_CACHE_TYPES = REDIS_CACHE_TYPES | {"FileSystemCache", "MemcachedCache", "SASLMemcachedCache"}


SECRET_KEY_FILE = "secret-key"
# The key prerender and the reference upstream share by default (coreapi reads the same file).
UPSTREAM_SERVICE_KEY_FILE = "upstream-service-key"
MIN_SECRET_KEY_LENGTH = 32


class DefaultConfig:
    """The defaults: one machine, no Redis, the reference upstream on loopback."""

    # Where the upstream (coreapi or any service speaking docs/upstream.md) lives.
    UPSTREAM_URL = "http://127.0.0.1:8001"
    # Seconds. Kept well under gunicorn's worker timeout so a stuck upstream never kills a worker.
    UPSTREAM_CONNECT_TIMEOUT = 0.5
    UPSTREAM_READ_TIMEOUT = 3.0
    # Extra attempts for idempotent calls after a connection error or a 502/503/504.
    UPSTREAM_RETRIES = 1
    UPSTREAM_POOL_SIZE = 16
    # Threads per worker process for upstream calls made alongside a request's own (a card's like states
    # load while its recipes do).
    UPSTREAM_CONCURRENT_CALLS = 8
    # Seconds for all the upstream calls of one request together (connects, reads, retries), from the request's
    # start (prerender/gateway/deadline.py). Fragment routes (HTML, and the multiple cards a customer's server
    # asks for) answer without what did not arrive in time (a stale copy, else the documented empty answer);
    # the browser's JSON routes answer 504.
    UPSTREAM_FRAGMENT_BUDGET = 0.8
    UPSTREAM_JSON_BUDGET = 4.0
    # Circuit breakers, one per upstream resource and worker (prerender/gateway/breaker.py): one opens when at
    # least FAILURE_RATE of the calls of the last WINDOW seconds failed, once MINIMUM_CALLS are known; it stays
    # open COOLDOWN seconds, then lets PROBES calls through, which close it when they all succeed. A timeout
    # counts as a failure when the call had SLOW_CALL seconds at least (a call its own request's budget cut
    # sooner is no evidence against the upstream).
    UPSTREAM_BREAKER_FAILURE_RATE = 0.5
    UPSTREAM_BREAKER_WINDOW = 10.0
    UPSTREAM_BREAKER_MINIMUM_CALLS = 20
    UPSTREAM_BREAKER_COOLDOWN = 5.0
    UPSTREAM_BREAKER_PROBES = 3
    UPSTREAM_BREAKER_SLOW_CALL = 0.5
    # Bulkheads, one per upstream resource and worker (prerender/gateway/bulkhead.py): at most this many calls
    # in flight, and this many more waiting (within their request's budget) before calls are shed.
    UPSTREAM_CALLS_IN_FLIGHT = 16
    UPSTREAM_QUEUED_CALLS = 64
    # Requests of the API routes in progress per worker (prerender/web/admission.py); beyond, a request is answered
    # at once in its degraded form (a fragment from what is cached, else empty; a JSON route 503 + Retry-After).
    # Under gevent a request holds its place mostly while it waits for the upstream: this bounds the pile-up when
    # the upstream slows, with room for a page's bursts (30 concurrent payment calls of one order, for instance).
    MAX_REQUESTS_IN_PROGRESS = 64
    # Of those, requests no supplier vouches for (no supplier-token, or one the upstream does not know: the
    # specification only logs them) in progress per worker (prerender/web/admission.py): anyone may send them, so
    # beyond this share they are answered the same degraded way, and a flood of them leaves the places of the
    # customers' servers free. Small: each admitted one may render 50 cards, and a flood's admitted renders alone
    # took 2 CPUs at 8 (docs/performance.md, "Requests no supplier vouches for").
    MAX_UNVOUCHED_REQUESTS_IN_PROGRESS = 2
    # Whether the front's arrival stamp (`X-Request-Start`, set by deploy/nginx/prerender.conf) counts: the time a
    # request waited before the worker read it is then taken from its budget, and one whose budget went by in the
    # queue is shed (prerender/web/queue_age.py). On only behind a front that sets the header and shares the clock.
    TRUST_REQUEST_START = False
    # The key prerender authenticates with as a service (`X-Service-Key`, docs/upstream.md) when it calls the
    # upstream for a browser's credential, which names its supplier by id: the browser never holds the
    # supplier's token (docs/security.md). None: the key in instance/upstream-service-key (made on first
    # start, 0600), which coreapi on the same machine reads too.
    UPSTREAM_SERVICE_KEY: str | None = None

    # Which routing configuration of the supplier applies (suppliers hold one per environment).
    ENVIRONMENT = "local"

    # The time zone of the shoppers' days (an IANA name): an order confirmed at 23:30 UTC was placed the next day
    # in Paris, and the history says so (prerender/rendering/my_space.py).
    DISPLAY_TIME_ZONE = "Europe/Paris"

    # flask-caching. `CACHE_REDIS_URL` switches every cache to Redis (shared by workers and nodes).
    # The default: a bounded in-process LRU per worker (prerender/memory_cache.py, CACHE_THRESHOLD entries).
    CACHE_TYPE = "prerender.memory_cache.LruCache"
    CACHE_THRESHOLD = 5000
    CACHE_DEFAULT_TIMEOUT = 60
    CACHE_REDIS_URL: str | None = None
    CACHE_KEY_PREFIX = "prerender:"
    # With Redis: how long a call to it may take (to connect, then for each answer), in seconds; and how long a
    # worker keeps its own copies after a failed call before it asks Redis again (prerender/gateway/
    # read_cache.py, SharedCache). Without a timeout, a Redis that stops answering would hold every request.
    CACHE_REDIS_TIMEOUT = 0.25
    CACHE_RETRY_SECONDS = 5.0
    SUPPLIER_CACHE_SECONDS = 60
    # The decoded suppliers and recipes every card reads, kept per worker this long in front of the cache
    # (prerender/gateway/read_cache.py, NearCache): no unpickling, and with Redis no round trip, per card. A
    # change upstream shows up to this much later than the cache's own TTL says. 0 turns it off.
    NEAR_CACHE_SECONDS = 5.0
    NEAR_CACHE_SIZE = 2048
    RECIPE_CACHE_SECONDS = 60
    # A user's like states. Our like/unlike routes update the cached state, so this only bounds how long
    # a change made outside this service (the retailer's app calling the upstream) takes to show. None:
    # 30 with a cache shared by every worker (Redis), 0 (never cached) with a per-process cache, where a
    # like made through one worker could not update another's copy (docs/decisions.md, caching).
    LIKES_CACHE_SECONDS: int | None = None
    SHARED_LIKES_CACHE_SECONDS = 30
    # While the upstream fails, cards use the last good recipes and suggestions up to this old.
    STALE_IF_ERROR_SECONDS = 24 * 3600
    # Analytics events one shopper may have stored per window (prerender/gateway/event_quota.py): a catalog's
    # pages send one per card shown, so 2000 in 10 minutes is a shopper browsing far faster than anyone reads.
    EVENTS_PER_SHOPPER = 2000
    EVENTS_QUOTA_SECONDS = 600

    # Rendered card fragments kept per worker process, keyed by their whole view model
    # (prerender/rendering/fragments.py).
    FRAGMENT_MEMO_SIZE = 2048

    # Keys signing the shoppers' credentials (prerender/web/credentials.py, docs/security.md): the last one
    # signs, every one verifies. A rotation is three deploys (docs/security.md): a new key added first, then
    # moved last, then the old one removed once the credentials it signed have expired. None: one key kept in
    # instance/secret-key (made on first start, readable by its owner only), shared by the workers of one
    # machine. Several machines: set PRERENDER_SECRET_KEYS.
    SECRET_KEYS: ClassVar[list[str] | None] = None
    # How long a shopper's credential is valid; the browser gets a fresh one with every private fragment.
    SHOPPER_CREDENTIAL_SECONDS = 12 * 3600

    # Public addresses. None: derived from the request (scheme + host).
    PUBLIC_URL: str | None = None
    # Script host for static assets (README.md, PRERENDER_CDN_URL); None serves them from this service.
    CDN_URL: str | None = None
    # Stands for the maker's name in element names and window.<prefix>.
    ELEMENT_PREFIX = "svc"

    # CORS: any http(s) localhost (or *.localhost) / 127.0.0.1 / [::1] origin on any port is always allowed;
    # this list adds exact origins (e.g. ["https://shop.example"]).
    CORS_ALLOWED_ORIGINS: ClassVar[list[str]] = []
    # Request headers a page's scripts may add to the SDK's calls, besides those the service reads and the W3C
    # tracing headers, which are always allowed (prerender/web/cors_policy.py): a tracing tool's own, such as
    # ["x-datadog-trace-id", "x-datadog-parent-id", "sentry-trace"]. They are allowed, not read.
    CORS_ALLOWED_HEADERS: ClassVar[list[str]] = []

    # Largest request body accepted (413 beyond). Other limits are in prerender/schemas/limits.py.
    MAX_CONTENT_LENGTH = 64 * 1024
    # URL and header sizes (414 and 431 beyond; prerender/web/request_limits.py). Kept under gunicorn's own
    # limits (gunicorn.conf.py) so clients get a problem+json. Fragments are called server to server with a
    # handful of short headers (the longest valid card query, every id escaped, is about 6 KiB); the browser
    # SDK's calls may carry a page's cookies, hence room for those.
    MAX_URL_BYTES = 8000
    MAX_HEADER_FIELD_BYTES = 8192
    MAX_HEADER_FIELDS = 100
    MAX_HEADER_BYTES = 32 * 1024

    # Extra folder of `<lang>-<retailer>.json` text overrides (default: instance/i18n).
    I18N_OVERRIDES_DIR: str | None = None

    LOG_LEVEL = "INFO"
    JSON_SORT_KEYS = False


def load_config(app: Flask, test_config: Mapping[str, Any] | None) -> None:
    """Defaults, then instance/config.py, then PRERENDER_* environment, then the test mapping."""
    app.config.from_object(DefaultConfig)
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("PRERENDER")
    if test_config is not None:
        app.config.from_mapping(test_config)
    check_config(app.config, DefaultConfig)
    if app.config["CACHE_REDIS_URL"] and app.config["CACHE_TYPE"] not in REDIS_CACHE_TYPES:
        app.config["CACHE_TYPE"] = "RedisCache"
    if app.config["CACHE_TYPE"] in REDIS_CACHE_TYPES:
        timeout = float(app.config["CACHE_REDIS_TIMEOUT"])
        app.config["CACHE_OPTIONS"] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            **(app.config.get("CACHE_OPTIONS") or {}),
        }
    if app.config["LIKES_CACHE_SECONDS"] is None:
        shared = app.config["CACHE_TYPE"] in SHARED_CACHE_TYPES
        app.config["LIKES_CACHE_SECONDS"] = DefaultConfig.SHARED_LIKES_CACHE_SECONDS if shared else 0
    if not app.config["SECRET_KEYS"]:
        app.config["SECRET_KEYS"] = [
            instance_key(Path(app.instance_path) / SECRET_KEY_FILE, min_length=MIN_SECRET_KEY_LENGTH)
        ]
    if isinstance(app.config["SECRET_KEYS"], str):
        app.config["SECRET_KEYS"] = [app.config["SECRET_KEYS"]]
    short = [key for key in app.config["SECRET_KEYS"] if len(key) < MIN_SECRET_KEY_LENGTH]
    if short:
        raise ConfigError("SECRET_KEYS", f"every key needs {MIN_SECRET_KEY_LENGTH} characters at least")
    if not app.config["UPSTREAM_SERVICE_KEY"]:
        app.config["UPSTREAM_SERVICE_KEY"] = instance_key(
            Path(app.instance_path) / UPSTREAM_SERVICE_KEY_FILE, min_length=MIN_SECRET_KEY_LENGTH
        )
    if len(app.config["UPSTREAM_SERVICE_KEY"]) < MIN_SECRET_KEY_LENGTH:
        raise ConfigError("UPSTREAM_SERVICE_KEY", f"{MIN_SECRET_KEY_LENGTH} characters at least")

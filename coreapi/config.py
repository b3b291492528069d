"""Configuration: defaults, then ``instance/coreapi.cfg``, then ``COREAPI_*`` environment variables.

Every key below can be overridden by an environment variable of the same name prefixed with
``COREAPI_`` (``COREAPI_DATABASE_URL``, ``COREAPI_PUBLIC_URL``, ``COREAPI_LOG_LEVEL``...). Values
are read as JSON when they parse as JSON (``COREAPI_SQL_ECHO=true``), as plain strings otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from coreapi.services.write_deadline import STATEMENT_MARGIN_MS
from plumbing.instance_keys import instance_key

ENV_PREFIX = "COREAPI"
# Python file in the instance folder, beside prerender's own instance/config.py.
INSTANCE_FILE = "coreapi.cfg"
SEED_DATA_DIR = Path(__file__).resolve().parent / "seed" / "data"
# The service key's file in the instance folder (shared with prerender, which reads it by default).
SERVICE_KEY_FILE = "upstream-service-key"
MIN_SERVICE_KEY_LENGTH = 32
# The settings that are a number of seconds (`check_durations`): above 0, or 0 or more where 0 means something
# (a picture's `max-age=0`; the idempotency outcomes pruned at every write).
POSITIVE_DURATIONS = (
    "IDEMPOTENCY_RETENTION_SECONDS",
    "IDEMPOTENCY_WAIT_SECONDS",
    "WRITE_DEADLINE_SECONDS",
    "DATABASE_POOL_TIMEOUT_SECONDS",
    "DATABASE_HOLD_SECONDS",
    "TRANSFER_TTL_SECONDS",
)
# PostgreSQL: libpq's wait for a new connection (whole seconds) unless DATABASE_URL sets its own `connect_timeout`:
# a database that takes connections and never answers would otherwise hold the request for as long as it hangs.
CONNECT_TIMEOUT_SECONDS = 2
DURATIONS = (*POSITIVE_DURATIONS, "MEDIA_MAX_AGE", "IDEMPOTENCY_PRUNE_INTERVAL_SECONDS")
# The settings that are a number of days (`check_days`): how long `flask --app coreapi prune` keeps data. At most a
# century: a time that long before now is still one Python can write (a million years is not).
RETENTION_DAYS = ("EVENT_RETENTION_DAYS", "IDLE_AUTHLESS_RETENTION_DAYS")
MAX_RETENTION_DAYS = 36500


class ConfigError(ValueError):
    """A setting coreapi cannot run with; the message starts with its environment variable's name."""


def default_config(instance_path: str) -> dict[str, Any]:
    """The built-in defaults: a SQLite file in the instance folder, INFO logs."""
    return {
        # SQLAlchemy URL, e.g. postgresql+psycopg://postgres@127.0.0.1:5432/coreapi
        "DATABASE_URL": f"sqlite:///{Path(instance_path) / 'coreapi.sqlite'}",
        # Base of the absolute picture URLs; None: the URL the request came in on.
        "PUBLIC_URL": None,
        "LOG_LEVEL": "INFO",
        "SQL_ECHO": False,
        "SEED_DATA_DIR": str(SEED_DATA_DIR),
        "MEDIA_MAX_AGE": 86400,
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        # Idempotency-Key outcomes of basket writes: kept at least this long, pruned at most this
        # often per process; a retry finding its key's first request still running waits this long
        # for it (PostgreSQL), then answers 409.
        "IDEMPOTENCY_RETENTION_SECONDS": 86400,
        "IDEMPOTENCY_PRUNE_INTERVAL_SECONDS": 600,
        "IDEMPOTENCY_WAIT_SECONDS": 2.0,
        # A shopper's write is committed within this many seconds of the request's arrival, or rolled back and
        # answered 409 (a row stayed locked) or 503 (coreapi/services/write_deadline.py): less than its client waits
        # (prerender's PRERENDER_UPSTREAM_READ_TIMEOUT, 3 s), so a write is never applied after its client gave up.
        "WRITE_DEADLINE_SECONDS": 2.5,
        # PostgreSQL: how long a request waits for a connection of the pool (SQLAlchemy's pool_timeout, in whole
        # seconds: a fraction is rounded down) before its 503, rather than SQLAlchemy's 30 s, far past what any
        # client waits.
        "DATABASE_POOL_TIMEOUT_SECONDS": 2.0,
        # PostgreSQL: how long a request may hold a connection before coreapi cuts it (a database that does not
        # answer; coreapi/services/connection_watchdog.py) and answers 503. Longer than any client waits for coreapi
        # (prerender's read timeout, 3 s) and than a write may take (WRITE_DEADLINE_SECONDS, its statements 0.5 s
        # more): a cut ends only work whose answer nobody waits for.
        "DATABASE_HOLD_SECONDS": 5.0,
        # How long the token of a basket transfer (POST /basket/transfers) can be redeemed.
        "TRANSFER_TTL_SECONDS": 900,
        # What `flask --app coreapi prune` deletes (coreapi/services/retention.py), in days: the analytics events
        # stored longer ago than the first (13 months), and the logged-out visitors' empty baskets and menus
        # untouched for longer than the second.
        "EVENT_RETENTION_DAYS": 395,
        "IDLE_AUTHLESS_RETENTION_DAYS": 90,
        # The HMAC key of the pseudonyms that stand for identities in the logs (coreapi.log); None:
        # a random key per process (pseudonyms then differ between processes and restarts).
        "LOG_PSEUDONYM_KEY": None,
        # The keys of the services allowed to act for any supplier (X-Service-Key with Supplier-Id,
        # docs/upstream.md): every listed key is accepted, so a new key is added, the callers moved to
        # it, then the old one removed. A string is one key. None: one key kept in
        # instance/upstream-service-key (made on first start, readable by its owner only), which
        # prerender reads by default on the same machine. Several machines: set COREAPI_SERVICE_KEYS.
        "SERVICE_KEYS": None,
    }


def load_config(app: Flask, test_config: dict[str, Any] | None = None) -> None:
    """Fill ``app.config``: defaults, ``instance/coreapi.cfg``, environment, ``test_config``."""
    app.config.from_mapping(default_config(app.instance_path))
    app.config.from_pyfile(INSTANCE_FILE, silent=True)
    app.config.from_prefixed_env(ENV_PREFIX)
    if test_config is not None:
        app.config.from_mapping(test_config)
    check_durations(app.config)
    check_days(app.config)
    check_hold(app.config)

    app.config["SQLALCHEMY_DATABASE_URI"] = app.config["DATABASE_URL"]
    app.config["SQLALCHEMY_ECHO"] = bool(app.config["SQL_ECHO"])
    # SQL errors are logged with their message, which would carry the statement's parameters
    # (identities among them): left out unless the configuration asks for them.
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {
        "hide_parameters": True,
        **(app.config.get("SQLALCHEMY_ENGINE_OPTIONS") or {}),
    }
    if str(app.config["DATABASE_URL"]).startswith("postgresql"):  # SQLite's pools in tests take no timeout
        postgresql_engine_options(app.config["SQLALCHEMY_ENGINE_OPTIONS"], app.config)
    if app.config["PUBLIC_URL"]:
        app.config["PUBLIC_URL"] = str(app.config["PUBLIC_URL"]).rstrip("/")
    app.config["SERVICE_KEYS"] = service_keys(app.config["SERVICE_KEYS"], Path(app.instance_path))


def postgresql_engine_options(options: dict[str, Any], config: Mapping[str, Any]) -> None:
    """The engine's options on PostgreSQL: a connection of the pool waited for ``DATABASE_POOL_TIMEOUT_SECONDS``, a
    new one ``CONNECT_TIMEOUT_SECONDS``, and no ``pool_pre_ping``: coreapi pings a connection it hands out itself,
    within the time a request may hold it (coreapi/services/connection_watchdog.py), where SQLAlchemy's ping, before
    any listener, could wait on a database that does not answer for as long as it hangs."""
    options.setdefault("pool_timeout", float(config["DATABASE_POOL_TIMEOUT_SECONDS"]))
    options["pool_pre_ping"] = False
    if "connect_timeout=" not in str(config["DATABASE_URL"]):
        options["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS, **(options.get("connect_args") or {})}


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool, which Python counts as an int)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def check_durations(config: Mapping[str, Any]) -> None:
    """Every setting of DURATIONS a number of seconds, above 0 for POSITIVE_DURATIONS, else a ConfigError naming its
    variable: a value that is no number (`abc`) started coreapi, then failed every shopper's write with a 500."""
    for key in DURATIONS:
        value = config[key]
        least = "above 0" if key in POSITIVE_DURATIONS else "of 0 or more"
        if not is_number(value) or value < 0 or (value == 0 and key in POSITIVE_DURATIONS):
            raise ConfigError(f"{ENV_PREFIX}_{key}: a number of seconds {least} (got {value!r})")


def check_days(config: Mapping[str, Any]) -> None:
    """Every setting of RETENTION_DAYS a number of days above 0 and at most MAX_RETENTION_DAYS, else a ConfigError
    naming its variable: 0 or less would have the daily prune delete every event, or every visitor's empty basket
    however recent."""
    for key in RETENTION_DAYS:
        value = config[key]
        if not is_number(value) or not 0 < value <= MAX_RETENTION_DAYS:
            raise ConfigError(
                f"{ENV_PREFIX}_{key}: a number of days above 0 and at most {MAX_RETENTION_DAYS} (got {value!r})"
            )


def check_hold(config: Mapping[str, Any]) -> None:
    """``DATABASE_HOLD_SECONDS`` longer than a write may take (its deadline, or the wait of its idempotency claim,
    which comes before the deadline is armed, and its statements' margin), else a ConfigError: every write that ran
    near its limits would be cut, and answered "the database is unavailable", rather than finish or answer its own
    409."""
    margin = STATEMENT_MARGIN_MS / 1000  # how much longer than its deadline a write's statement may run
    least = max(config["WRITE_DEADLINE_SECONDS"], config["IDEMPOTENCY_WAIT_SECONDS"]) + margin
    if config["DATABASE_HOLD_SECONDS"] <= least:
        raise ConfigError(
            f"{ENV_PREFIX}_DATABASE_HOLD_SECONDS: more than a write may take (the longer of "
            f"{ENV_PREFIX}_WRITE_DEADLINE_SECONDS and {ENV_PREFIX}_IDEMPOTENCY_WAIT_SECONDS, and "
            f"{margin} s: {least} s; got {config['DATABASE_HOLD_SECONDS']!r})"
        )


def service_keys(configured: Any, instance_path: Path) -> list[str]:
    """``SERVICE_KEYS`` as a list: one string is one key; none: the instance file's key.

    ``ValueError`` when a key is not a string or shorter than ``MIN_SERVICE_KEY_LENGTH``.
    """
    if not configured:
        return [instance_key(instance_path / SERVICE_KEY_FILE, min_length=MIN_SERVICE_KEY_LENGTH)]
    keys = [configured] if isinstance(configured, str) else configured
    if not isinstance(keys, list | tuple) or not all(isinstance(key, str) for key in keys):
        raise ConfigError("COREAPI_SERVICE_KEYS: expected a string or a JSON list of strings")
    if any(len(key) < MIN_SERVICE_KEY_LENGTH for key in keys):
        raise ConfigError(f"COREAPI_SERVICE_KEYS: every key needs {MIN_SERVICE_KEY_LENGTH} characters at least")
    return list(keys)

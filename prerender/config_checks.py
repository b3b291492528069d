"""The settings checked once loaded (prerender/config.py, `load_config`): a value the service cannot run with stops
the start with one line naming its environment variable, rather than a service that starts and then fails every
request (a number that is no number), or quietly does something else (`False` read as a true string, an origin
read as its letters).

Each setting's kind comes from its default in `DefaultConfig`: a boolean, a number (whole when the default is),
a list of texts, or a text; the rules below add what a kind alone does not say (a URL's scheme, a limit above 0).
`PRERENDER_*` values are JSON when they parse (Flask's `from_prefixed_env`), so `false`, `8000` and `["a"]` arrive
typed; the usual words for a boolean (`False`, `no`, `off`...) and an origin list written without JSON
(`https://a.example, https://b.example`) are read as the operator meant them.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ENV_PREFIX = "PRERENDER_"

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})

# Numbers for which 0 would refuse, empty or time out every request: above 0 (the budgets have a floor of their
# own, BUDGETS below). Every other number may be 0 (a retry count, a cache turned off, no queue behind the calls in
# flight), never below.
POSITIVE = frozenset(
    {
        "MAX_REQUESTS_IN_PROGRESS",  # every request shed
        "MAX_UNVOUCHED_REQUESTS_IN_PROGRESS",  # every request without a known supplier shed
        "UPSTREAM_CONNECT_TIMEOUT",
        "UPSTREAM_READ_TIMEOUT",
        "UPSTREAM_POOL_SIZE",
        "UPSTREAM_CONCURRENT_CALLS",
        "UPSTREAM_CALLS_IN_FLIGHT",
        "UPSTREAM_BREAKER_WINDOW",
        "UPSTREAM_BREAKER_MINIMUM_CALLS",
        "UPSTREAM_BREAKER_PROBES",
        "CACHE_REDIS_TIMEOUT",
        "EVENTS_PER_SHOPPER",  # every batch of events refused
        "EVENTS_QUOTA_SECONDS",  # no window to count in
        "SHOPPER_CREDENTIAL_SECONDS",
        "MAX_CONTENT_LENGTH",
        "MAX_URL_BYTES",
        "MAX_HEADER_FIELD_BYTES",
        "MAX_HEADER_FIELDS",
        "MAX_HEADER_BYTES",
    }
)
# The least of a request's budget an upstream call is sent with (prerender/gateway/http.py): a budget of no more
# than that would send no call at all (every fragment empty, every browser route a 503), as 0 would.
MIN_CALL_SECONDS = 0.01
BUDGETS = frozenset({"UPSTREAM_FRAGMENT_BUDGET", "UPSTREAM_JSON_BUDGET"})
# A share: above 0, at most 1.
SHARES = frozenset({"UPSTREAM_BREAKER_FAILURE_RATE"})
# Numbers that may also be None: worked out by load_config when unset (the likes), or no limit (Flask's
# MAX_CONTENT_LENGTH, prerender/web/request_limits.py).
OPTIONAL_NUMBERS = frozenset({"LIKES_CACHE_SECONDS", "MAX_CONTENT_LENGTH"})
# Addresses: their schemes; an optional one may be unset.
URLS = {"UPSTREAM_URL": ("http", "https")}
OPTIONAL_URLS = {
    "PUBLIC_URL": ("http", "https"),
    "CDN_URL": ("http", "https"),
    "CACHE_REDIS_URL": ("redis", "rediss", "unix"),
}
# An element prefix: the first part of a custom element's name, and the name of the page's global.
ELEMENT_PREFIX = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# A header's name, as real ones are written: letters, digits, "-", "_" and "." (RFC 9110 allows more, but flask-cors
# reads "*", "^" and "$" in a name as a pattern: "*" would allow every header).
HEADER_NAME = re.compile(r"[0-9A-Za-z_.-]+")
# An origin's host and port, exactly: flask-cors reads an origin holding "*", "^", "$", "?", brackets or parentheses
# as an unanchored pattern, which `https://*.shop.example` made allow `https://xshop.example.attacker.test`.
HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
ORIGIN_HOST = re.compile(rf"(?:{HOST_LABEL}\.)*{HOST_LABEL}(?::[0-9]{{1,5}})?")
MAX_ELEMENT_PREFIX_LENGTH = 32
LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET")


# A value a message must not repeat (a key).
SECRET = object()


class ConfigError(ValueError):
    """A setting the service cannot run with; the message starts with its environment variable's name, and shows
    the value given unless it is SECRET."""

    def __init__(self, key: str, rule: str, value: Any = SECRET) -> None:
        given = "" if value is SECRET else f" (got {value!r})"
        super().__init__(f"{ENV_PREFIX}{key}: {rule}{given}")


def valid_prefix(prefix: str) -> bool:
    """Whether `prefix` can start a custom element's name and name the page's global."""
    return len(prefix) <= MAX_ELEMENT_PREFIX_LENGTH and ELEMENT_PREFIX.fullmatch(prefix) is not None


def check_config(config: MutableMapping[str, Any], defaults: type) -> None:
    """Check (and where a usual spelling allows, normalize) every setting `defaults` declares; raise ConfigError
    for the first that cannot work."""
    for key in sorted(name for name in vars(defaults) if name.isupper()):
        default = getattr(defaults, key)
        if isinstance(default, bool):
            config[key] = _boolean(key, config[key])
        elif key in OPTIONAL_NUMBERS and config[key] is None:
            continue
        elif isinstance(default, (int, float)) or key in OPTIONAL_NUMBERS:
            config[key] = _number(key, config[key], whole=not isinstance(default, float))
        elif key in URLS:
            _url(key, config[key], URLS[key])
        elif key in OPTIONAL_URLS and config[key]:
            _url(key, config[key], OPTIONAL_URLS[key])
    config["CORS_ALLOWED_ORIGINS"] = _origins(config["CORS_ALLOWED_ORIGINS"])
    config["CORS_ALLOWED_HEADERS"] = _header_names(config["CORS_ALLOWED_HEADERS"])
    if not isinstance(config["ELEMENT_PREFIX"], str) or not valid_prefix(config["ELEMENT_PREFIX"]):
        raise ConfigError(
            "ELEMENT_PREFIX",
            f"lower-case letters and digits, words joined by '-', starting with a letter, {MAX_ELEMENT_PREFIX_LENGTH} "
            "characters at most",
            config["ELEMENT_PREFIX"],
        )
    config["LOG_LEVEL"] = _log_level(config["LOG_LEVEL"])
    environment = config["ENVIRONMENT"]
    if isinstance(environment, int) and not isinstance(environment, bool):
        environment = config["ENVIRONMENT"] = str(environment)  # a name of digits, which JSON read as a number
    if not isinstance(environment, str) or not environment.strip():
        raise ConfigError("ENVIRONMENT", "the name of a routing environment of the suppliers", environment)
    _time_zone("DISPLAY_TIME_ZONE", config["DISPLAY_TIME_ZONE"])


def _time_zone(key: str, value: Any) -> None:
    """An IANA time zone name the machine's time zone database knows (`Europe/Paris`)."""
    try:
        ZoneInfo(value)
    except (TypeError, ValueError, ZoneInfoNotFoundError) as error:
        raise ConfigError(key, "a time zone name of the IANA database, such as Europe/Paris", value) from error


def _boolean(key: str, value: Any) -> bool:
    """A boolean setting from a boolean, or one of the usual words (an empty line is false: the setting unset)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, str | int) else None
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS or word == "":
        return False
    raise ConfigError(key, "true or false", value)


def _number(key: str, given: Any, *, whole: bool) -> int | float:
    """A number setting (whole when its default is), within its rule (BUDGETS, POSITIVE, SHARES, else 0 or more).
    Digits in a text are read as the number they write (`instance/config.py` may hold `"3"`)."""
    if isinstance(given, str) and given.strip():
        with contextlib.suppress(ValueError):
            given = float(given)
    if isinstance(given, bool) or not isinstance(given, int | float) or not math.isfinite(given):
        raise ConfigError(key, "a whole number" if whole else "a number", given)
    value: int | float = given
    if whole:
        if value != int(value):
            raise ConfigError(key, "a whole number", value)
        value = int(value)
    if key in BUDGETS and value <= MIN_CALL_SECONDS:
        raise ConfigError(
            key, f"a number of seconds above {MIN_CALL_SECONDS} (no upstream call is sent with less)", value
        )
    if key in SHARES and not 0 < value <= 1:
        raise ConfigError(key, "a share above 0 and at most 1", value)
    if key in POSITIVE and value <= 0:
        raise ConfigError(key, "a number above 0", value)
    if value < 0:
        raise ConfigError(key, "a number of 0 or more", value)
    return value


def _log_level(level: Any) -> str | int:
    """A logging level: one of its names, in any case, or its number (what `logging.Logger.setLevel` takes)."""
    if isinstance(level, int) and not isinstance(level, bool) and level >= 0:
        return level
    if isinstance(level, str) and level.strip().upper() in (*LOG_LEVELS, "WARN", "FATAL"):
        return level.strip().upper()
    raise ConfigError("LOG_LEVEL", f"one of {', '.join(LOG_LEVELS)}, or a level's number", level)


def _url(key: str, value: Any, schemes: tuple[str, ...]) -> None:
    """An address setting: one of `schemes`, a host (a Unix socket's path for `unix`), a port of digits."""
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in schemes or not (parts.netloc or parts.scheme == "unix"):
        raise ConfigError(key, f"an address starting {' or '.join(f'{scheme}://' for scheme in schemes)}", value)
    try:
        parts.port  # noqa: B018 (urlsplit checks the port when it is read)
    except ValueError:
        raise ConfigError(key, "an address with a port of digits", value) from None
    if parts.scheme in ("redis", "rediss") and parts.path.strip("/") and not parts.path.strip("/").isdigit():
        raise ConfigError(key, "a Redis address whose path, if any, is a database number", value)


def _listed(key: str, value: Any, what: str) -> list[Any]:
    """A list setting's items, from a JSON list or a text of items separated by commas or spaces."""
    items = re.split(r"[\s,]+", value.strip()) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigError(key, what, value)
    return [item for item in items if item != ""]


def _header_names(value: Any) -> list[str]:
    """CORS_ALLOWED_HEADERS: header names, in lower case."""
    checked = []
    for name in _listed("CORS_ALLOWED_HEADERS", value, "a list of header names"):
        if not isinstance(name, str) or HEADER_NAME.fullmatch(name) is None:
            raise ConfigError("CORS_ALLOWED_HEADERS", "header names such as x-datadog-trace-id", name)
        checked.append(name.lower())
    return checked


def _origins(value: Any) -> list[str]:
    """CORS_ALLOWED_ORIGINS: exact origins, without a path or a pattern, in lower case (as browsers send them)."""
    checked = []
    for origin in _listed("CORS_ALLOWED_ORIGINS", value, "a list of origins"):
        parts = urlsplit(origin.lower()) if isinstance(origin, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
            raise ConfigError("CORS_ALLOWED_ORIGINS", "origins such as https://shop.example (no path)", origin)
        if ORIGIN_HOST.fullmatch(parts.netloc) is None:
            raise ConfigError(
                "CORS_ALLOWED_ORIGINS", "exact origins such as https://shop.example (no pattern, no wildcard)", origin
            )
        checked.append(f"{parts.scheme}://{parts.netloc}")
    return checked

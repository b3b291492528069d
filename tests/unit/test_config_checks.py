"""Settings checked at start (prerender/config_checks.py), set as an operator sets them: `PRERENDER_*` environment
variables. A value the service cannot run with stops `create_app` with a ConfigError naming the variable; the usual
spellings of a boolean and of a list of origins are read as meant."""

from __future__ import annotations

import pytest

from prerender import create_app
from prerender.config_checks import ConfigError


def app_with(monkeypatch: pytest.MonkeyPatch, app_config: dict, **environment: str):
    """An app of the test configuration, but for the settings given as environment variables."""
    for name, value in environment.items():
        monkeypatch.setenv(f"PRERENDER_{name}", value)
    return create_app({key: value for key, value in app_config.items() if key not in environment})


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [
        # Each started, then failed every request (a 500, or a 431 for all), /healthz included, or timed out.
        ("MAX_URL_BYTES", "abc", "a whole number"),
        ("UPSTREAM_FRAGMENT_BUDGET", "abc", "a number"),
        ("MAX_CONTENT_LENGTH", "abc", "a whole number"),
        ("MAX_HEADER_BYTES", "-1", "a number above 0"),
        ("UPSTREAM_CONNECT_TIMEOUT", "-1", "a number above 0"),
        ("UPSTREAM_READ_TIMEOUT", "0", "a number above 0"),
        # Started, then shed every request, or answered every fragment empty, every browser route a 503.
        ("MAX_REQUESTS_IN_PROGRESS", "0", "a number above 0"),
        ("UPSTREAM_FRAGMENT_BUDGET", "0", "a number of seconds above 0.01"),
        ("UPSTREAM_JSON_BUDGET", "0.0", "a number of seconds above 0.01"),
        # Started, then sent no upstream call (none is sent with 0.01 s or less left): as 0 did.
        ("UPSTREAM_FRAGMENT_BUDGET", "0.005", "a number of seconds above 0.01"),
        ("UPSTREAM_JSON_BUDGET", "0.01", "a number of seconds above 0.01"),
        ("UPSTREAM_POOL_SIZE", "2.5", "a whole number"),
        ("UPSTREAM_RETRIES", "-1", "a number of 0 or more"),
        ("UPSTREAM_BREAKER_FAILURE_RATE", "1.5", "a share above 0 and at most 1"),
        ("NEAR_CACHE_SECONDS", "NaN", "a number"),
        # Started and quietly did something else.
        ("TRUST_REQUEST_START", "maybe", "true or false"),
        ("ELEMENT_PREFIX", "Acme", "lower-case letters"),
        ("UPSTREAM_URL", "127.0.0.1:8001", "an address starting http:// or https://"),
        ("PUBLIC_URL", "prerender.example", "an address starting http:// or https://"),
        ("CACHE_REDIS_URL", "redis://127.0.0.1:6379/abc", "database number"),
        ("CORS_ALLOWED_ORIGINS", "shop.example", "origins such as https://shop.example"),
        ("CORS_ALLOWED_ORIGINS", '["https://shop.example/cart"]', "(no path)"),
        # flask-cors reads "*" (and "^", "$", brackets...) as a pattern: this allowed xshop.example.attacker.test.
        ("CORS_ALLOWED_ORIGINS", "https://*.shop.example", "no wildcard"),
        ("CORS_ALLOWED_ORIGINS", "https://shop.example$", "no wildcard"),
        ("CORS_ALLOWED_HEADERS", "*", "header names such as"),  # every header
        ("CORS_ALLOWED_HEADERS", "x-trace: 1", "header names such as"),
        ("CORS_ALLOWED_HEADERS", '{"x-trace": 1}', "a list of header names"),
        ("LOG_LEVEL", "chatty", "one of CRITICAL"),
        ("DISPLAY_TIME_ZONE", "Europe/Lutece", "a time zone name"),
        ("DISPLAY_TIME_ZONE", "../../etc/passwd", "a time zone name"),
    ],
)
def test_a_setting_the_service_cannot_run_with_stops_the_start_naming_it(monkeypatch, app_config, name, value, rule):
    with pytest.raises(ConfigError) as refused:
        app_with(monkeypatch, app_config, **{name: value})
    assert str(refused.value).startswith(f"PRERENDER_{name}: ") and rule in str(refused.value)


@pytest.mark.parametrize(
    ("value", "meant"), [("False", False), ("no", False), ("off", False), ("0", False), ("TRUE", True)]
)
def test_a_boolean_takes_its_usual_words(monkeypatch, app_config, value, meant):
    """`False` is no JSON, so it arrived as a non-empty text, which Python reads as true: the setting was on."""
    assert app_with(monkeypatch, app_config, TRUST_REQUEST_START=value).config["TRUST_REQUEST_START"] is meant


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        ("https://shop.example", ["https://shop.example"]),  # was read as its letters: "h", "t", "t"...
        ("https://a.example, https://b.example:8443", ["https://a.example", "https://b.example:8443"]),
        ("https://Shop.Example", ["https://shop.example"]),  # as browsers send it
        ('["https://a.example"]', ["https://a.example"]),
    ],
)
def test_origins_are_read_as_a_list_however_written(monkeypatch, app_config, value, origins):
    app = app_with(monkeypatch, app_config, CORS_ALLOWED_ORIGINS=value)
    assert app.config["CORS_ALLOWED_ORIGINS"] == origins
    allowed = app.test_client().options("/v1/recipe-card", headers={"Origin": origins[0]})
    assert allowed.headers["Access-Control-Allow-Origin"] == origins[0]


def test_settings_that_work_are_taken_as_given(monkeypatch, app_config):
    app = app_with(
        monkeypatch,
        app_config,
        LOG_LEVEL="info",
        UPSTREAM_FRAGMENT_BUDGET="1",
        NEAR_CACHE_SECONDS="0",
        ELEMENT_PREFIX="acme-shop",
        CACHE_REDIS_URL="redis://127.0.0.1:6379/9",
    )
    assert app.config["LOG_LEVEL"] == "INFO"
    assert app.config["UPSTREAM_FRAGMENT_BUDGET"] == 1 and app.config["NEAR_CACHE_SECONDS"] == 0
    assert app.config["ELEMENT_PREFIX"] == "acme-shop"
    assert app.config["CACHE_REDIS_URL"] == "redis://127.0.0.1:6379/9"


@pytest.mark.parametrize(
    ("name", "value", "taken"),
    [
        ("TRUST_REQUEST_START", "", False),  # the template's line emptied rather than removed
        ("MAX_CONTENT_LENGTH", "null", None),  # Flask's "no limit"
        ("LOG_LEVEL", "10", 10),  # a level's number, as logging takes it
        ("LOG_LEVEL", "warn", "WARN"),
        ("ENVIRONMENT", "2024", "2024"),  # a name of digits, which JSON reads as a number
    ],
)
def test_values_other_spellings_allow_are_taken(monkeypatch, app_config, name, value, taken):
    assert app_with(monkeypatch, app_config, **{name: value}).config[name] == taken


def test_numbers_written_as_text_in_the_instance_file_are_read_as_numbers(app_config):
    """instance/config.py may hold `UPSTREAM_READ_TIMEOUT = "3"`, which the settings' users read with float()."""
    app = create_app({**app_config, "UPSTREAM_READ_TIMEOUT": "3", "UPSTREAM_POOL_SIZE": "4"})
    assert app.config["UPSTREAM_READ_TIMEOUT"] == 3.0 and app.config["UPSTREAM_POOL_SIZE"] == 4


def test_a_short_key_is_named_but_never_shown(monkeypatch, app_config):
    with pytest.raises(ConfigError) as refused:
        app_with(monkeypatch, app_config, UPSTREAM_SERVICE_KEY="short-secret-value")
    assert str(refused.value).startswith("PRERENDER_UPSTREAM_SERVICE_KEY: ")
    assert "short-secret-value" not in str(refused.value)


@pytest.mark.parametrize("value", ["x-datadog-trace-id, Sentry-Trace", '["x-datadog-trace-id", "sentry-trace"]'])
def test_allowed_headers_are_read_as_a_list_in_lower_case(monkeypatch, app_config, value):
    app = app_with(monkeypatch, app_config, CORS_ALLOWED_HEADERS=value)
    assert app.config["CORS_ALLOWED_HEADERS"] == ["x-datadog-trace-id", "sentry-trace"]

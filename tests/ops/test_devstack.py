"""`make run`'s services (tools/devstack.py): what they must keep for the demo to work end to end."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from .conftest import load_devstack


def test_the_demo_shop_runs_one_worker() -> None:
    """The shop's carts live in its process's memory (examples/shop/carts.py): with two workers the planner's
    finalize would fill a cart in one process and the cart page would show the other's, empty."""
    shop = next(service for service in load_devstack().services() if service.name == "shop")
    assert shop.env["GUNICORN_WORKERS"] == "1"
    assert "examples.shop.wsgi:app" in shop.command()


def test_the_recipe_blog_runs_beside_the_shop_on_prerender() -> None:
    """The fourth service: the demo recipe blog (examples/publisher), on PUBLISHER_PORT (8090), calling the
    stack's prerender; the four ports differ."""
    services = {service.name: service for service in load_devstack().services()}
    assert list(services) == ["coreapi", "prerender", "shop", "publisher"]
    publisher = services["publisher"]
    assert "examples.publisher.wsgi:app" in publisher.command()
    assert publisher.health_path == "/healthz"
    assert publisher.env["PUBLISHER_PRERENDER_URL"] == services["prerender"].url
    assert len({service.port for service in services.values()}) == 4


def test_the_recipe_blog_port_comes_from_publisher_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PUBLISHER_PORT", raising=False)
    assert next(s for s in load_devstack().services() if s.name == "publisher").url == "http://127.0.0.1:8090"
    monkeypatch.setenv("PUBLISHER_PORT", "9090")
    monkeypatch.setenv("PRERENDER_PORT", "9000")
    services = {service.name: service for service in load_devstack().services()}
    assert services["publisher"].url == "http://127.0.0.1:9090"
    assert services["publisher"].env["PUBLISHER_PRERENDER_URL"] == "http://127.0.0.1:9000"


def test_the_suppliers_routing_follows_the_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    """After `init-db`, every start points the retailers' `local` routing at this stack's shop and the publishers'
    at its blog (coreapi's `set-site-urls`), so the planner's modes, the catalog's links, the cart link and the
    blog's transfer lead to the ports of the run, on a database seeded by a run on other ports too."""
    for name, port in (("COREAPI_PORT", 9201), ("PRERENDER_PORT", 9200), ("SHOP_PORT", 9280), ("PUBLISHER_PORT", 9290)):
        monkeypatch.setenv(name, str(port))
    devstack = load_devstack()
    init_db, site_urls = devstack.setup_commands(devstack.services())
    assert init_db[-3:] == ["--app", "coreapi", "init-db"]
    assert site_urls[-5:] == [
        "set-site-urls",
        "--retailer-url",
        "http://127.0.0.1:9280",
        "--publisher-url",
        "http://127.0.0.1:9290",
    ]


def test_coreapi_gets_a_pseudonym_key_of_the_instance(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without COREAPI_LOG_PSEUDONYM_KEY each coreapi process warned that it made up a random key: `make run` gives
    them one key, made once in the instance folder (owner only), unless the shell sets its own."""
    devstack = load_devstack()
    monkeypatch.setattr(devstack, "PSEUDONYM_KEY_FILE", tmp_path / "instance" / "coreapi-log-pseudonym-key")
    monkeypatch.delenv("COREAPI_LOG_PSEUDONYM_KEY", raising=False)
    key = devstack.coreapi_environ()["COREAPI_LOG_PSEUDONYM_KEY"]
    assert len(key) >= 32
    assert devstack.PSEUDONYM_KEY_FILE.stat().st_mode & 0o777 == 0o600
    coreapi = next(service for service in devstack.services() if service.name == "coreapi")
    assert coreapi.env["COREAPI_LOG_PSEUDONYM_KEY"] == key  # the same key at every start
    monkeypatch.setenv("COREAPI_LOG_PSEUDONYM_KEY", "the-shell-s-own-key")
    assert devstack.coreapi_environ() == {}


def test_the_demo_sites_get_a_secret_key_of_the_instance(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The shop and the blog sign their identity cookies (examples/identity_cookies.py): `make run` gives each its
    key, kept in the instance folder, so that a visitor stays who they were across runs and every process of a
    site reads the others' cookies; a key the shell sets wins."""
    devstack = load_devstack()
    monkeypatch.setattr(devstack, "SHOP_KEY_FILE", tmp_path / "instance" / "shop-secret-key")
    monkeypatch.setattr(devstack, "PUBLISHER_KEY_FILE", tmp_path / "instance" / "publisher-secret-key")
    monkeypatch.delenv("SHOP_SECRET_KEY", raising=False)
    monkeypatch.setenv("PUBLISHER_SECRET_KEY", "the-shell-s-own-key")
    sites = {service.name: service.env for service in devstack.services()}
    key = sites["shop"]["SHOP_SECRET_KEY"]
    assert len(key) >= 32 and devstack.SHOP_KEY_FILE.stat().st_mode & 0o777 == 0o600
    assert next(s.env for s in devstack.services() if s.name == "shop")["SHOP_SECRET_KEY"] == key  # every start
    assert "PUBLISHER_SECRET_KEY" not in sites["publisher"] and not devstack.PUBLISHER_KEY_FILE.exists()


def test_the_terminal_shows_the_errors_and_the_log_file_keeps_every_line() -> None:
    """`make run` used to stream every request's log line into the terminal: now each process's output goes to its
    file under .run/logs/, and only its errors (JSON or text log lines at ERROR or CRITICAL, tracebacks) also show
    in the terminal, named by the process."""
    devstack = load_devstack()
    lines = [
        '{"ts": "2026-11-28T07:00:00.000Z", "level": "INFO", "message": "GET /v1/recipe-card 200"}\n',
        '{"ts": "2026-11-28T07:00:01.000Z", "level": "ERROR", "message": "upstream failure"}\n',
        "2026-11-28 07:00:02,000 INFO coreapi.request [-] GET /api/v1/recipes 200\n",
        "[2026-11-28 07:00:03 +0000] [42] [INFO] Booting worker with pid: 42\n",
        "[2026-11-28 07:00:04 +0000] [42] [ERROR] Exception in worker process\n",
        "Traceback (most recent call last):\n",
        '  File "wsgi.py", line 1, in <module>\n',
        "ValueError: boom\n",
        "2026-11-28 07:00:05,000 INFO examples.shop: ERRORS page asked, 200\n",
    ]
    log, terminal = io.StringIO(), io.StringIO()
    devstack.route_output("prerender", lines, log, terminal)
    assert log.getvalue() == "".join(lines)
    assert terminal.getvalue().splitlines() == [
        f"[prerender] {line.rstrip()}" for line in (lines[1], lines[4], lines[5], lines[6], lines[7])
    ]
    assert str(devstack.log_path("shop")) == ".run/logs/shop.log"

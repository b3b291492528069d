"""`make run`'s services (tools/devstack.py): what they must keep for the demo to work end to end."""

from __future__ import annotations

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

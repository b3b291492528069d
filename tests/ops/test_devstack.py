"""`make run`'s services (tools/devstack.py): what they must keep for the demo to work end to end."""

from __future__ import annotations

from .conftest import load_devstack


def test_the_demo_shop_runs_one_worker() -> None:
    """The shop's carts live in its process's memory (examples/shop/carts.py): with two workers the planner's
    finalize would fill a cart in one process and the cart page would show the other's, empty."""
    shop = next(service for service in load_devstack().services() if service.name == "shop")
    assert shop.env["GUNICORN_WORKERS"] == "1"
    assert "examples.shop.wsgi:app" in shop.command()

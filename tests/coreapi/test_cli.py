"""flask --app coreapi init-db [--reset], set-personalization, set-site-urls."""

from __future__ import annotations

import time

from flask import Flask
from sqlalchemy import func, inspect, select

from coreapi.extensions import db
from coreapi.models import Basket, Like, Preferences, Product, Recipe


def counts(app: Flask) -> tuple[int, int]:
    with app.app_context():
        return (
            db.session.scalar(select(func.count()).select_from(Recipe)),
            db.session.scalar(select(func.count()).select_from(Product)),
        )


def test_init_db_seeds_an_empty_database_quickly(empty_app: Flask, seed) -> None:
    started = time.perf_counter()
    result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - started < 5
    assert "Seeded" in result.output
    assert counts(empty_app) == (len(seed.recipes), len(seed.products))
    response = empty_app.test_client().get("/api/v1/recipes?store_id=1001&per_page=1")
    assert response.json["total"] == len(seed.recipes)


def test_init_db_twice_does_nothing_the_second_time(empty_app: Flask, seed) -> None:
    runner = empty_app.test_cli_runner()
    runner.invoke(args=["init-db"])
    with empty_app.app_context():
        db.session.add(Like(supplier_id=1, user_id="keep-me", recipe_id=int(next(iter(seed.recipes)))))
        db.session.commit()
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert "nothing to do" in result.output
    assert counts(empty_app) == (len(seed.recipes), len(seed.products))
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Like)) == 1


def test_init_db_reset_drops_and_seeds_again(empty_app: Flask, seed) -> None:
    runner = empty_app.test_cli_runner()
    runner.invoke(args=["init-db"])
    with empty_app.app_context():
        db.session.add(Like(supplier_id=1, user_id="forget-me", recipe_id=int(next(iter(seed.recipes)))))
        db.session.commit()
    result = runner.invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    assert "Seeded" in result.output
    assert counts(empty_app) == (len(seed.recipes), len(seed.products))
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Like)) == 0


def test_init_db_creates_the_basket_and_event_tables(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    with empty_app.app_context():
        tables = set(inspect(db.engine).get_table_names())
    assert {"baskets", "basket_entries", "basket_lines", "events"} <= tables

    client = empty_app.test_client()
    response = client.post(
        "/api/v1/basket/recipes",
        json={"recipe_id": "1", "guests": 4, "store_id": "1001"},
        headers={"Authorization": "user_id cli", "Supplier-Token": "demo-retailer-token"},
    )
    assert response.status_code == 200
    result = runner.invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Basket)) == 0


# --- set-personalization -------------------------------------------------------------------

PREFERENCES = "/api/v1/preferences"


def personalization(app: Flask, token: str) -> bool:
    response = app.test_client().get("/api/v1/suppliers/me", headers={"Supplier-Token": token})
    enabled: bool = response.json["personalization"]
    return enabled


def test_set_personalization_off_deletes_the_supplier_s_preferences(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    client = empty_app.test_client()
    body = {"diets": ["vegetarien"], "guests": 2}
    retailer = [
        {"Authorization": f"{kind} shopper", "Supplier-Token": "demo-retailer-token"}
        for kind in ("user_id", "authless_id")
    ]
    publisher = {"Authorization": "user_id shopper", "Supplier-Token": "demo-publisher-token"}
    for headers in (*retailer, publisher):
        assert client.put(PREFERENCES, json=body, headers=headers).status_code == 200

    result = runner.invoke(args=["set-personalization", "1", "off"])
    assert result.exit_code == 0, result.output
    assert "Personalization is off for supplier 1 (Demo Market)" in result.output
    assert "deleted the preferences of 2 shopper(s)" in result.output
    assert personalization(empty_app, "demo-retailer-token") is False
    with empty_app.app_context():
        left = db.session.scalars(select(Preferences.supplier_id)).all()
    assert left == [3]  # the other supplier's shopper keeps its own
    for headers in retailer:
        assert client.get(PREFERENCES, headers=headers).json["enabled"] is False
        assert client.put(PREFERENCES, json=body, headers=headers).status_code == 409
    assert client.get(PREFERENCES, headers=publisher).json["diets"] == ["vegetarien"]

    result = runner.invoke(args=["set-personalization", "1", "on"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "Personalization is on for supplier 1 (Demo Market)."
    assert personalization(empty_app, "demo-retailer-token") is True
    # Nothing comes back: they were deleted, not hidden.
    assert client.get(PREFERENCES, headers=retailer[0]).json == {
        "diets": [], "avoided_ingredients": [], "missing_equipment": [], "guests": None,
        "enabled": True, "updated_at": None,
    }  # fmt: skip
    assert client.put(PREFERENCES, json=body, headers=retailer[0]).status_code == 200


def test_set_personalization_on_a_disabled_supplier(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    assert personalization(empty_app, "demo-nopers-token") is False
    assert runner.invoke(args=["set-personalization", "2", "on"]).exit_code == 0
    assert personalization(empty_app, "demo-nopers-token") is True
    headers = {"Authorization": "user_id now-on", "Supplier-Token": "demo-nopers-token"}
    assert empty_app.test_client().put(PREFERENCES, json={}, headers=headers).status_code == 200


def test_set_personalization_refuses_what_it_does_not_know(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    for supplier in ("999", "nope"):
        result = runner.invoke(args=["set-personalization", supplier, "off"])
        assert result.exit_code == 1
        assert f"No supplier {supplier!r}." in result.output
    result = runner.invoke(args=["set-personalization", "1", "maybe"])
    assert result.exit_code == 2
    assert personalization(empty_app, "demo-retailer-token") is True


# --- set-site-urls -----------------------------------------------------------------------------------


def routings(app: Flask) -> dict[str, dict[str, str]]:
    """Each seed supplier's routing as the API answers it (`GET /suppliers/me`), by token."""
    tokens = ("demo-retailer-token", "demo-nopers-token", "demo-publisher-token")
    client = app.test_client()
    return {
        token: client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).json["routing"] for token in tokens
    }


def test_set_site_urls_moves_the_local_routing_to_the_sites_of_the_stack(empty_app: Flask) -> None:
    """`make run` with other ports (tools/devstack.py): every retailer's local routing names the shop's URL, every
    publisher's the blog's; the paths and the production routing stay."""
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    before = routings(empty_app)
    result = runner.invoke(
        args=["set-site-urls", "--retailer-url", "http://127.0.0.1:9280/", "--publisher-url", "http://127.0.0.1:9290"]
    )
    assert result.exit_code == 0, result.output
    assert "Supplier 1 (Demo Market): local routing at http://127.0.0.1:9280." in result.output
    after = routings(empty_app)
    for token, base in (
        ("demo-retailer-token", "http://127.0.0.1:9280"),
        ("demo-nopers-token", "http://127.0.0.1:9280"),
        ("demo-publisher-token", "http://127.0.0.1:9290"),
    ):
        assert after[token]["local"] == {**before[token]["local"], "baseUrl": base}
        assert after[token]["production"] == before[token]["production"]

    # Run again at each start: nothing to change the second time; a database seeded for other ports is moved back.
    again = runner.invoke(
        args=["set-site-urls", "--retailer-url", "http://127.0.0.1:9280", "--publisher-url", "http://127.0.0.1:9290"]
    )
    assert again.exit_code == 0, again.output
    assert "nothing to do" in again.output
    assert runner.invoke(args=["set-site-urls", "--retailer-url", "http://127.0.0.1:8080"]).exit_code == 0
    moved = routings(empty_app)
    assert moved["demo-retailer-token"]["local"]["baseUrl"] == "http://127.0.0.1:8080"
    assert moved["demo-publisher-token"]["local"]["baseUrl"] == "http://127.0.0.1:9290"


def test_set_site_urls_for_one_supplier_leaves_the_others(empty_app: Flask) -> None:
    """A deployment serving several retailers, each at its own site: one retailer's site moves, not the others'."""
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    before = routings(empty_app)
    result = runner.invoke(args=["set-site-urls", "--retailer-url", "https://shop.example", "--supplier-id", "1"])
    assert result.exit_code == 0, result.output
    after = routings(empty_app)
    assert after["demo-retailer-token"]["local"] == {
        **before["demo-retailer-token"]["local"],
        "baseUrl": "https://shop.example",
    }
    assert after["demo-nopers-token"] == before["demo-nopers-token"]
    assert after["demo-publisher-token"] == before["demo-publisher-token"]

    for unknown in ("999", "x"):
        refused = runner.invoke(
            args=[
                "set-site-urls",
                "--retailer-url",
                "https://b.example",
                "--supplier-id",
                "1",
                "--supplier-id",
                unknown,
            ]
        )
        assert refused.exit_code != 0 and f"No supplier '{unknown}'" in refused.output
    assert routings(empty_app) == after


def test_set_site_urls_refuses_what_is_not_a_site(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    before = routings(empty_app)
    for url in ("javascript:alert(1)", "127.0.0.1:9280", "http://127.0.0.1:9280/?a=1"):
        result = runner.invoke(args=["set-site-urls", "--retailer-url", url])
        assert result.exit_code == 2, result.output
        assert "is not an absolute http(s) URL" in result.output
    assert runner.invoke(args=["set-site-urls"]).exit_code == 2
    assert routings(empty_app) == before

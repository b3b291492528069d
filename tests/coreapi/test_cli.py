"""flask --app coreapi init-db [--reset]."""

from __future__ import annotations

import time

from flask import Flask
from sqlalchemy import func, inspect, select

from coreapi.extensions import db
from coreapi.models import Basket, Like, Product, Recipe


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

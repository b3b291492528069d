"""flask --app coreapi init-db [--reset]."""

from __future__ import annotations

import time

from flask import Flask
from sqlalchemy import func, select

from coreapi.extensions import db
from coreapi.models import Like, Product, Recipe


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
        db.session.add(Like(user_id="keep-me", recipe_id=int(next(iter(seed.recipes)))))
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
        db.session.add(Like(user_id="forget-me", recipe_id=int(next(iter(seed.recipes)))))
        db.session.commit()
    result = runner.invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    assert "Seeded" in result.output
    assert counts(empty_app) == (len(seed.recipes), len(seed.products))
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Like)) == 0

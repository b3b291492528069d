"""Fixtures of the coreapi suite: every test runs on SQLite and again on PostgreSQL.

The seeded application is built once per backend and per session, its schema by the migrations.
Tests that write (likes) use their own user ids, so no test depends on another. PostgreSQL tests
run in a schema of their own (``search_path``; ``alembic_version`` too), created here and dropped
at the end, so concurrent runs and other suites sharing the server never collide; they are
skipped when the server is unreachable.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy import event

from coreapi import create_app, migrate
from coreapi.config import SEED_DATA_DIR
from coreapi.extensions import db
from coreapi.seed import load_catalog
from tests.databases import POSTGRES_URL, PostgresSchemas, Unreachable

# The service key of the test applications (SERVICE_KEYS), so that no test writes the default one
# into the repository's instance folder.
SERVICE_KEY = "test-service-key-" + "k" * 32


@pytest.fixture(autouse=True)
def _service_keys_of_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The applications a test builds itself (``create_app``) get the test key too."""
    monkeypatch.setenv("COREAPI_SERVICE_KEYS", json.dumps([SERVICE_KEY]))


class SqliteBackend:
    name = "sqlite"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def new_database(self) -> dict[str, Any]:
        """The configuration of a new, empty database."""
        path = self.directory / f"coreapi-{uuid.uuid4().hex[:8]}.sqlite"
        return {"DATABASE_URL": f"sqlite:///{path}"}

    def close(self) -> None:
        """Files go with pytest's temporary directory."""


def _open_backend(name: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    if name == "sqlite":
        return SqliteBackend(tmp_path_factory.mktemp("coreapi"))
    try:
        # Pools as coreapi configures them (no test query before each lent connection: the hang tests count on it).
        return PostgresSchemas(POSTGRES_URL, pre_ping=False)
    except Unreachable as error:
        pytest.skip(str(error))


@pytest.fixture(
    scope="session",
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
)
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    backend = _open_backend(request.param, tmp_path_factory)
    yield backend
    backend.close()


def make_app(backend: Any, engine_options: dict[str, Any] | None = None, **config: Any) -> Flask:
    """An application on a new, empty database of ``backend``; ``engine_options``: more
    ``SQLALCHEMY_ENGINE_OPTIONS`` (a bigger pool...), beside the backend's own."""
    database = backend.new_database()
    if engine_options:
        database["SQLALCHEMY_ENGINE_OPTIONS"] = {**database.get("SQLALCHEMY_ENGINE_OPTIONS", {}), **engine_options}
    # A roomy time for a write, and for a request's hold of a connection: tests that hold one write while another
    # runs must not see it cut at the default deadline on a loaded machine (tests/coreapi/test_write_deadline.py and
    # test_database_hangs.py test them with their own).
    roomy = {"WRITE_DEADLINE_SECONDS": 30.0, "DATABASE_HOLD_SECONDS": 60.0}
    return create_app({"TESTING": True, "SERVICE_KEYS": [SERVICE_KEY], **roomy, **database, **config})


def migrate_and_seed(app: Flask) -> Flask:
    """The app's database migrated, then seeded with the demo catalog."""
    with app.app_context():
        with migrate.schema_connection(db.engine) as connection:
            migrate.upgrade(connection)
        load_catalog(db.session, SEED_DATA_DIR)
        db.session.commit()
    return app


@pytest.fixture(scope="session")
def app(backend: Any) -> Iterator[Flask]:
    """The application on a migrated database seeded with the demo catalog (once per backend)."""
    app = migrate_and_seed(make_app(backend))
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture(scope="module")
def own_app(backend: Any) -> Iterator[Flask]:
    """The application on a migrated, seeded database of the test module's own: for a module whose tests change
    what the others read (a command retiring a recipe, suspending a supplier, rotating its token...)."""
    app = migrate_and_seed(make_app(backend))
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def empty_app(backend: Any) -> Iterator[Flask]:
    """The application on a new database without any table."""
    app = make_app(backend)
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def user_id() -> str:
    """A user of this test only."""
    return f"user-{uuid.uuid4().hex}"


@pytest.fixture
def count_queries(app: Flask) -> Callable[[], Any]:
    """``with count_queries() as queries: ...``; ``len(queries)`` SQL statements were run."""

    @contextmanager
    def counting() -> Iterator[list[str]]:
        statements: list[str] = []

        def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            statements.append(statement)

        with app.app_context():
            engine = db.engine
        event.listen(engine, "before_cursor_execute", record)
        try:
            yield statements
        finally:
            event.remove(engine, "before_cursor_execute", record)

    return counting


class SeedCatalog:
    """The seed JSON, read independently of coreapi, to compute what the API must answer."""

    def __init__(self, data_dir: Path) -> None:
        def read(name: str) -> list[dict[str, Any]]:
            return json.loads((data_dir / name).read_text("utf-8"), parse_float=Decimal)

        self.recipes = {row["id"]: row for row in read("recipes.json")}
        self.products = {row["id"]: row for row in read("products.json")}
        self.ingredients = {row["id"]: row for row in read("ingredients.json")}
        self.stores = {row["id"]: row for row in read("stores.json")}
        self.categories = read("categories.json")
        self.equipment = read("equipment.json")
        self.suppliers = read("suppliers.json")
        self.products_of: dict[str, list[tuple[int, str]]] = {}
        for product in self.products.values():
            for link in product["ingredients"]:
                self.products_of.setdefault(link["id"], []).append((link["rank"], product["id"]))
        for candidates in self.products_of.values():
            candidates.sort(key=lambda rank_id: (rank_id[0], int(rank_id[1])))

    def equipment_of(self, recipe_id: str) -> list[str]:
        """The equipment the recipe needs, in the equipment's order."""
        needed = set(self.recipes[recipe_id]["equipment"])
        return [row["id"] for row in self.equipment if row["id"] in needed]

    def ranked_products(self, ingredient_id: str) -> list[str]:
        return [product_id for _, product_id in self.products_of.get(ingredient_id, [])]

    def is_available(self, store_id: str, product_id: str) -> bool:
        return product_id not in self.stores[store_id]["unavailable_product_ids"]

    def shelf_price(self, store_id: str, product_id: str) -> Decimal:
        factor = Decimal(self.stores[store_id]["price_factor"])
        price = Decimal(self.products[product_id]["price"]) * factor
        return price.quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")

    def first_available(self, store_id: str, ingredient_id: str) -> str | None:
        return next(
            (p for p in self.ranked_products(ingredient_id) if self.is_available(store_id, p)),
            None,
        )

    def primary_ingredient(self, recipe_id: str) -> str:
        (primary,) = [i["id"] for i in self.recipes[recipe_id]["ingredients"] if i["primary"]]
        return primary

    def is_complete_at(self, store_id: str, recipe_id: str) -> bool:
        return self.first_available(store_id, self.primary_ingredient(recipe_id)) is not None

    def recipes_needing(self, product_id: str) -> set[str]:
        ingredient_ids = {link["id"] for link in self.products[product_id]["ingredients"]}
        return {
            recipe_id
            for recipe_id, recipe in self.recipes.items()
            if ingredient_ids & {item["id"] for item in recipe["ingredients"]}
        }


@pytest.fixture(scope="session")
def seed() -> SeedCatalog:
    return SeedCatalog(SEED_DATA_DIR)

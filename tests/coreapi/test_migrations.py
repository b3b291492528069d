"""Alembic migrations: the schema they build, upgrades, databases from before migrations, reset,
new revisions."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from flask import Flask
from sqlalchemy import Connection, MetaData, bindparam, func, inspect, select, text, true
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.sql import ClauseElement

from coreapi import migrate
from coreapi.config import SEED_DATA_DIR
from coreapi.extensions import db
from coreapi.models import Like, Recipe, Supplier
from coreapi.seed import catalog_rows, load_catalog
from coreapi.services import cart_waits, catalog, favorite_items, public_ids

from .conftest import make_app

HEAD = "0017"
NEXT = f"{int(HEAD) + 1:04d}"
TOKENS = ("demo-retailer-token", "demo-nopers-token", "demo-publisher-token")  # coreapi/seed/data/suppliers.json


def upgrade(app: Flask, revision: str = "head") -> migrate.Upgrade:
    with app.app_context(), migrate.schema_connection(db.engine) as connection:
        return migrate.upgrade(connection, revision)


def create_all(app: Flask) -> None:
    """The schema as ``flask init-db`` made it before migrations."""
    with app.app_context():
        db.create_all()


def inspected(app: Flask, check: Any) -> Any:
    """``check(connection)`` on a connection of the app's database."""
    with app.app_context(), db.engine.connect() as connection:
        return check(connection)


def tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def version(connection: Connection) -> list[str]:
    return list(connection.scalars(text("SELECT version_num FROM alembic_version")))


def model_differences(connection: Connection) -> list[Any]:
    """Alembic's autogenerate comparison of the whole database with the models."""
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, db.metadata))


def described(connection: Connection) -> dict[str, Any]:
    """Everything reflection tells of each table, CHECK constraints and partial indexes too."""
    inspector = inspect(connection)

    def plain(value: Any) -> Any:
        """Dictionaries sorted, SQL expressions (partial indexes' WHERE) as their text."""
        if isinstance(value, dict):
            return sorted((key, plain(item)) for key, item in value.items())
        return str(value) if isinstance(value, ClauseElement) else value

    def rows(items: list[dict[str, Any]]) -> list[str]:
        return sorted(repr(plain(item)) for item in items)

    return {
        table: {
            "columns": rows(inspector.get_columns(table)),
            "primary key": inspector.get_pk_constraint(table),
            "foreign keys": rows(inspector.get_foreign_keys(table)),
            "indexes": rows(inspector.get_indexes(table)),
            "unique": rows(inspector.get_unique_constraints(table)),
            "checks": rows(inspector.get_check_constraints(table)),
        }
        for table in sorted(inspector.get_table_names())
        if table != migrate.VERSION_TABLE
    }


@pytest.fixture
def other_app(backend: Any) -> Any:
    """A second application on a database of its own."""
    app = make_app(backend)
    yield app
    with app.app_context():
        db.engine.dispose()


# --- the schema ----------------------------------------------------------------------------


def test_the_newest_revision_is_the_head() -> None:
    assert migrate.head_revision() == HEAD


def test_migrations_build_the_models_schema(empty_app: Flask) -> None:
    result = upgrade(empty_app)
    assert result == migrate.Upgrade(before=None, after=HEAD, adopted=False)
    assert inspected(empty_app, model_differences) == []
    assert inspected(empty_app, tables) == set(db.metadata.tables) | {"alembic_version"}


def test_migrations_build_exactly_what_create_all_builds(empty_app: Flask, other_app: Flask) -> None:
    """Reflected in full (CHECK constraints and partial indexes, which autogenerate does not
    compare), the migrated schema is the one ``create_all`` makes from the models."""
    upgrade(empty_app)
    create_all(other_app)
    migrated = inspected(empty_app, described)
    assert migrated == inspected(other_app, described)
    assert migrated["recipes"]["checks"] and migrated["baskets"]["indexes"]  # reflected at all


def test_upgrade_is_idempotent(empty_app: Flask) -> None:
    runner = empty_app.test_cli_runner()
    first = runner.invoke(args=["db-upgrade"])
    assert first.exit_code == 0, first.output
    assert f"from empty to {HEAD}" in first.output
    before = inspected(empty_app, described)
    second = runner.invoke(args=["db-upgrade"])
    assert second.exit_code == 0, second.output
    assert f"is at revision {HEAD}" in second.output
    assert inspected(empty_app, described) == before
    assert inspected(empty_app, version) == [HEAD]
    assert upgrade(empty_app) == migrate.Upgrade(before=HEAD, after=HEAD)


def test_the_version_table_is_in_the_database_schema(empty_app: Flask, backend: Any) -> None:
    """On PostgreSQL, in the schema of the ``search_path`` (the test's own), not in public."""
    upgrade(empty_app)
    assert "alembic_version" in inspected(empty_app, tables)
    if backend.name == "postgresql":
        schema = inspected(
            empty_app,
            lambda connection: connection.scalar(
                text("SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = to_regclass('alembic_version')")
            ),
        )
        assert schema == backend.schemas[-1]


def test_downgrade_to_base_and_upgrade_again(empty_app: Flask) -> None:
    upgrade(empty_app)
    with empty_app.app_context(), migrate.schema_connection(db.engine) as connection:
        command.downgrade(migrate.alembic_config(connection), "base")
    assert inspected(empty_app, tables) == {"alembic_version"}
    assert upgrade(empty_app).after == HEAD
    assert inspected(empty_app, model_differences) == []


def test_concurrent_upgrades_run_one_after_the_other(empty_app: Flask) -> None:
    """An advisory lock (PostgreSQL) or the write lock (SQLite) serialises them: one migrates,
    the others find it done."""
    results: list[migrate.Upgrade] = []
    failures: list[BaseException] = []
    barrier = threading.Barrier(4, timeout=30)

    def run() -> None:
        try:
            barrier.wait()
            results.append(upgrade(empty_app))
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    assert sorted(results, key=lambda r: r.before or "") == [
        migrate.Upgrade(before=None, after=HEAD),
        *[migrate.Upgrade(before=HEAD, after=HEAD)] * 3,
    ]
    assert inspected(empty_app, version) == [HEAD]


def test_a_failed_init_db_leaves_nothing_half_done(empty_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite, migration and seed are one transaction: nothing is left. On PostgreSQL each revision commits on
    its own (coreapi.migrate): the schema is left whole at head, and nothing of the seed; init-db then seeds."""
    from coreapi import cli

    def broken(*args: Any) -> None:
        raise RuntimeError("the seed could not be read")

    with monkeypatch.context() as patched:
        patched.setattr(cli, "load_catalog", broken)
        result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert isinstance(result.exception, RuntimeError)
    if inspected(empty_app, lambda connection: connection.dialect.name) == "sqlite":
        assert inspected(empty_app, tables) == set()
        return
    assert inspected(empty_app, version) == [HEAD]
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM recipes").scalar() == 0
    result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert sql(empty_app, "SELECT count(*) FROM recipes").scalar() > 0


def test_each_revision_releases_its_locks_before_the_next_on_postgresql(
    empty_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0011 and 0012 lock ``recipes`` and ``stores`` (ALTER TABLE), 0013 indexes ``events``: while 0013 ends, a
    request may read the recipes and stores and write an event (no lock in its way, NOWAIT)."""
    if inspected(empty_app, lambda connection: connection.dialect.name) != "postgresql":
        pytest.skip("SQLite has one lock for the whole database, and upgrades in one transaction")
    seeded_at(empty_app, "0010")
    probes: dict[str, str] = {}
    check = migrate._check_at_head

    def probing(*, ctx: Any, step: Any, heads: Any, run_args: Any) -> None:
        if step.up_revision_id == "0013":
            with db.engine.connect() as other:
                for table, mode in (
                    ("recipes", "ACCESS SHARE"),
                    ("stores", "ACCESS SHARE"),
                    ("events", "ROW EXCLUSIVE"),
                ):
                    try:
                        with other.begin():
                            other.exec_driver_sql(f"LOCK TABLE {table} IN {mode} MODE NOWAIT")
                        probes[table] = "free"
                    except OperationalError:
                        probes[table] = "locked"
        check(ctx=ctx, step=step, heads=heads, run_args=run_args)

    monkeypatch.setattr(migrate, "_check_at_head", probing)
    assert upgrade(empty_app) == migrate.Upgrade(before="0010", after=HEAD)
    assert probes == {"recipes": "free", "stores": "free", "events": "free"}
    assert inspected(empty_app, model_differences) == []


# --- 0002: baskets per supplier, idempotency keys -------------------------------------------

NOW = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.UTC)


def seeded_at(app: Flask, revision: str) -> None:
    """The database at ``revision``, with the demo catalog (suppliers included) as far as that revision's
    tables and columns hold it (``init-db`` of that revision seeded no more)."""
    upgrade(app, revision)
    with app.app_context(), db.engine.begin() as connection:
        existing = MetaData()
        existing.reflect(connection)
        for model, rows in catalog_rows(SEED_DATA_DIR):
            table = existing.tables.get(model.__tablename__)
            if table is not None and rows:
                connection.execute(table.insert(), [{k: v for k, v in row.items() if k in table.c} for row in rows])


def sql(app: Flask, statement: str, **params: Any) -> Any:
    with app.app_context(), db.engine.begin() as connection:
        return connection.execute(text(statement), params)


def legacy_basket(
    app: Flask,
    identity: str,
    *,
    kind: str = "authless_id",
    status: str = "open",
    order_id: str | None = None,
    total: str | None = None,
    with_entry: bool = True,
) -> int:
    """A basket as revision 0001 stored it (no supplier), with an entry and a line."""
    with app.app_context(), db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO baskets (identity_kind, identity_id, store_id, status, total, order_id, "
                "created_at, updated_at) VALUES (:kind, :identity, 1001, :status, :total, :order_id, :now, :now)"
            ),
            {"kind": kind, "identity": identity, "status": status, "total": total, "order_id": order_id, "now": NOW},
        )
        basket_id: int = connection.scalar(text("SELECT max(id) FROM baskets"))
        if with_entry:
            connection.execute(
                text(
                    "INSERT INTO basket_entries (basket_id, recipe_id, guests, position, added_at) "
                    "VALUES (:basket, 1, 4, 1, :now)"
                ),
                {"basket": basket_id, "now": NOW},
            )
            entry_id = connection.scalar(text("SELECT max(id) FROM basket_entries"))
            connection.execute(
                text(
                    "INSERT INTO basket_lines (entry_id, ingredient_id, product_id, quantity) "
                    "VALUES (:entry, 'thon', 100153, 2)"
                ),
                {"entry": entry_id},
            )
        return basket_id


def basket_suppliers(app: Flask) -> dict[int, int]:
    return dict(sql(app, "SELECT id, supplier_id FROM baskets").all())


def row_counts(app: Flask) -> tuple[int, int, int]:
    return tuple(  # type: ignore[return-value]
        sql(app, f"SELECT count(*) FROM {table}").scalar() for table in ("baskets", "basket_entries", "basket_lines")
    )


def downgrade(app: Flask, revision: str) -> None:
    with app.app_context(), migrate.schema_connection(db.engine) as connection:
        command.downgrade(migrate.alembic_config(connection), revision)


def before_favorites(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's basket writes on a database before 0006: no shopper has favorite products there (their table,
    which adding a recipe reads, does not exist yet). Nor does the table of what a cart is awaited for (0009)."""
    monkeypatch.setattr(favorite_items, "preferred", lambda *_: frozenset())
    before_awaited_products(monkeypatch)


def before_retirement(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's reads and writes on a database before 0011: every recipe is offered there (``recipes.retired_at``,
    which they test, does not exist yet). ``offered`` is patched wherever a service module took it. Nor is a
    store closed (0012)."""
    original = catalog.offered
    for name, module in list(sys.modules.items()):
        if name.startswith("coreapi.") and getattr(module, "offered", None) is original:
            monkeypatch.setattr(module, "offered", true)
    before_store_closing(monkeypatch)


def before_store_closing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's reads and writes on a database before 0012: every store is open there (``stores.closed_at``, which
    they test, does not exist yet). Nor is a supplier suspended (0015)."""
    monkeypatch.setattr(catalog, "store_open", true)
    before_supplier_suspension(monkeypatch)


def before_supplier_suspension(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's requests on a database before 0015: every supplier is active there (``suppliers.suspended_at``,
    which every request's supplier lookup tests, does not exist yet). Nor has a token been replaced (0016)."""
    monkeypatch.setattr(catalog, "ACTIVE_SUPPLIER_BY_ID", select(Supplier).where(Supplier.id == bindparam("id")))
    monkeypatch.setattr(
        catalog, "ACTIVE_SUPPLIER_BY_TOKEN", select(Supplier).where(Supplier.token == bindparam("token"))
    )
    before_public_ids(monkeypatch)


def before_token_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's requests on a database before 0016: a token is its supplier's current one only
    (``suppliers.previous_token``, which the lookup by token tests, does not exist yet)."""
    active_by_token = select(Supplier).where(Supplier.token == bindparam("token"), catalog.supplier_active())
    monkeypatch.setattr(catalog, "ACTIVE_SUPPLIER_BY_TOKEN", active_by_token)
    before_public_ids(monkeypatch)


def before_public_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's answers on a database before 0017: it has no key of public ids (``instance_secrets``, which the
    first basket or menu id shown reads, does not exist yet); a key of the test's stands in."""
    monkeypatch.setattr(public_ids.PublicIdKey, "get", lambda _self, _session: b"a key before 0017")


def before_awaited_products(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's basket writes on a database before 0009: no basket awaits anything of its cart there (the table,
    which every basket write reads, does not exist yet). Nor does the table of what the carts showed (0010), nor
    a recipe's retirement (0011)."""
    monkeypatch.setattr(cart_waits, "record", lambda *_: None)
    monkeypatch.setattr(cart_waits, "kept", lambda *_: Counter())
    monkeypatch.setattr(cart_waits, "settle", lambda *_: None)
    monkeypatch.setattr(cart_waits, "forget", lambda *_: None)
    before_retirement(monkeypatch)


def test_0002_gives_the_existing_baskets_to_the_demo_retailer(empty_app: Flask) -> None:
    seeded_at(empty_app, "0001")
    visitor = legacy_basket(empty_app, "legacy-visitor")
    paid = legacy_basket(empty_app, "legacy-user", kind="user_id", status="confirmed", order_id="o-1", total="9.99")
    bare = legacy_basket(empty_app, "legacy-bare", with_entry=False)
    assert upgrade(empty_app) == migrate.Upgrade(before="0001", after=HEAD)

    assert basket_suppliers(empty_app) == {visitor: 1, paid: 1, bare: 1}
    assert row_counts(empty_app) == (3, 2, 2)
    client = empty_app.test_client()
    basket = client.get(
        "/api/v1/basket?store_id=1001",
        headers={"Authorization": "authless_id legacy-visitor", "Supplier-Token": "demo-retailer-token"},
    ).json
    assert [(e["recipe_id"], [ln["product_id"] for ln in e["lines"]]) for e in basket["recipes"]] == [("1", ["100153"])]
    other = client.get(
        "/api/v1/basket?store_id=1001",
        headers={"Authorization": "authless_id legacy-visitor", "Supplier-Token": "demo-nopers-token"},
    ).json
    assert other["recipes"] == []
    assert inspected(empty_app, model_differences) == []


def test_0002_without_the_demo_retailer_takes_the_first_retailer(empty_app: Flask) -> None:
    seeded_at(empty_app, "0001")
    sql(empty_app, "UPDATE suppliers SET token = 'renamed', kind = 'publisher' WHERE id = 1")
    basket = legacy_basket(empty_app, "legacy-visitor")
    upgrade(empty_app)
    assert basket_suppliers(empty_app) == {basket: 2}


def test_0002_without_any_retailer_takes_the_first_supplier(empty_app: Flask) -> None:
    seeded_at(empty_app, "0001")
    sql(empty_app, "UPDATE suppliers SET token = 'renamed-' || token, kind = 'publisher'")
    basket = legacy_basket(empty_app, "legacy-visitor")
    upgrade(empty_app)
    assert basket_suppliers(empty_app) == {basket: 1}


def test_0002_without_any_supplier_deletes_the_baskets(empty_app: Flask) -> None:
    """No supplier could ever reach them again (every basket route needs a Supplier-Token)."""
    seeded_at(empty_app, "0001")
    sql(empty_app, "DELETE FROM suppliers")
    legacy_basket(empty_app, "legacy-visitor")
    legacy_basket(empty_app, "legacy-user", kind="user_id", status="confirmed", order_id="o-1", total="1.00")
    upgrade(empty_app)
    assert row_counts(empty_app) == (0, 0, 0)
    assert inspected(empty_app, model_differences) == []


def test_0002_on_an_empty_database_adds_the_column_and_the_table(empty_app: Flask) -> None:
    upgrade(empty_app, "0001")
    upgrade(empty_app)
    assert "idempotency_keys" in inspected(empty_app, tables)
    assert inspected(empty_app, model_differences) == []


def test_0002_downgrades_to_one_open_basket_per_identity(empty_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Going back to 0001 (one open basket per identity, one order id per identity): of an
    identity's open baskets under several suppliers, the most recently updated stays, the
    others go with their entries; a confirmed basket whose order id another supplier's basket of
    the identity has too keeps its row and loses the order id (the oldest keeps it)."""
    seeded_at(empty_app, "0002")
    before_favorites(monkeypatch)
    client = empty_app.test_client()

    def write(token: str, authorization: str, path: str, body: dict[str, Any], **more: str) -> Any:
        headers = {"Authorization": authorization, "Supplier-Token": token, **more}
        response = client.post(f"/api/v1/basket{path}", json={"store_id": "1001", **body}, headers=headers)
        assert response.status_code == 200, response.json
        return response.json

    for token, recipe_id in (("demo-retailer-token", "1"), ("demo-nopers-token", "2")):
        write(token, "authless_id twice", "/recipes", {"recipe_id": recipe_id, "guests": 4})
        total = write(token, "user_id payer", "/recipes", {"recipe_id": recipe_id, "guests": 4})["basket"]["total"]
        write(token, "user_id payer", "/confirm", {"total": total, "order_id": "o-twice"})
    sql(empty_app, "UPDATE baskets SET updated_at = :then WHERE supplier_id = 2", then=NOW)  # the older one
    key = {"Idempotency-Key": "k-1"}
    write("demo-retailer-token", "user_id key-holder", "/recipes", {"recipe_id": "3", "guests": 4}, **key)
    assert sql(empty_app, "SELECT count(*) FROM idempotency_keys").scalar() == 1

    downgrade(empty_app, "0001")
    assert "idempotency_keys" not in inspected(empty_app, tables)
    open_baskets = sql(
        empty_app, "SELECT identity_id, id FROM baskets WHERE status = 'open' ORDER BY identity_id"
    ).all()
    assert [identity for identity, _ in open_baskets] == ["key-holder", "twice"]
    recipes = sql(
        empty_app,
        "SELECT recipe_id FROM basket_entries WHERE basket_id = :basket",
        basket=dict(open_baskets)["twice"],
    ).all()
    assert recipes == [(1,)]
    orders = sql(empty_app, "SELECT order_id FROM baskets WHERE identity_id = 'payer' ORDER BY id").all()
    assert orders == [("o-twice",), (None,)]
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 4  # twice, payer x2, key-holder

    assert upgrade(empty_app) == migrate.Upgrade(before="0001", after=HEAD)
    assert set(basket_suppliers(empty_app).values()) == {1}
    assert inspected(empty_app, model_differences) == []


# --- 0003: menus ---------------------------------------------------------------------------

MENU_TABLES = {"menus", "menu_recipes", "menu_choices"}


def test_0003_adds_the_menu_tables_and_keeps_the_baskets(empty_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded_at(empty_app, "0002")
    before_favorites(monkeypatch)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-menus", "Supplier-Token": "demo-retailer-token"}
    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=headers
    )
    assert added.status_code == 200, added.json
    assert not MENU_TABLES & inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0002", after=HEAD)
    assert inspected(empty_app, tables) >= MENU_TABLES
    assert inspected(empty_app, model_differences) == []
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    menu = client.get("/api/v1/menus/current?store_id=1001", headers=headers)
    assert menu.status_code == 200, menu.json
    assert menu.json["recipe_count"] == 6


def test_0003_downgrade_drops_the_menus_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id planner", "Supplier-Token": "demo-retailer-token"}
    assert client.get("/api/v1/menus/current?store_id=1001", headers=headers).status_code == 200
    recipe_id = client.get("/api/v1/menus/current", headers=headers).json["recipes"][0]["id"]
    product_id = client.get("/api/v1/menus/current", headers=headers).json["recipes"][0]["products"][0]["id"]
    unselected = client.delete(f"/api/v1/menus/current/recipes/{recipe_id}/products/{product_id}", headers=headers)
    assert unselected.status_code == 200, unselected.json
    assert client.post("/api/v1/menus/current/finalize", headers=headers).status_code == 200
    assert client.get("/api/v1/menus/current?store_id=1001", headers=headers).status_code == 200
    assert sql(empty_app, "SELECT count(*) FROM menu_recipes").scalar() == 6

    downgrade(empty_app, "0002")
    assert not MENU_TABLES & inspected(empty_app, tables)
    assert inspected(empty_app, version) == ["0002"]
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 6  # the finalized menu's basket

    assert upgrade(empty_app) == migrate.Upgrade(before="0002", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM menus").scalar() == 0
    assert inspected(empty_app, model_differences) == []


# --- 0004: basket transfers ----------------------------------------------------------------


def test_0004_adds_the_transfer_table_and_keeps_the_baskets_and_menus(
    empty_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded_at(empty_app, "0003")
    before_favorites(monkeypatch)
    client = empty_app.test_client()
    headers = {"Authorization": "authless_id before-transfers", "Supplier-Token": "demo-publisher-token"}
    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=headers
    )
    assert added.status_code == 200, added.json
    assert client.get("/api/v1/menus/current?store_id=1001", headers=headers).status_code == 200
    assert "basket_transfers" not in inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0003", after=HEAD)
    assert "basket_transfers" in inspected(empty_app, tables)
    assert inspected(empty_app, model_differences) == []
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    assert sql(empty_app, "SELECT count(*) FROM menus").scalar() == 1
    handed = client.post("/api/v1/basket/transfers", json={"store_id": "1001"}, headers=headers)
    assert handed.status_code == 201, handed.json


def test_0004_downgrade_drops_the_transfers_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id handing-over", "Supplier-Token": "demo-publisher-token"}
    body = {"recipe_id": "1", "guests": 4, "store_id": "1001"}
    assert client.post("/api/v1/basket/recipes", json=body, headers=headers).status_code == 200
    assert client.post("/api/v1/basket/transfers", json={"store_id": "1001"}, headers=headers).status_code == 201
    assert sql(empty_app, "SELECT count(*) FROM basket_transfers").scalar() == 1

    downgrade(empty_app, "0003")
    assert "basket_transfers" not in inspected(empty_app, tables)
    assert inspected(empty_app, version) == ["0003"]
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 1

    assert upgrade(empty_app) == migrate.Upgrade(before="0003", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM basket_transfers").scalar() == 0
    assert inspected(empty_app, model_differences) == []


# --- 0005: preferences, equipment, diets ----------------------------------------------------

PREFERENCE_TABLES = {"equipment", "recipe_equipment", "preferences"}


def catalog_extras(app: Flask) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[str]]:
    """The equipment rows, the recipes' equipment (by external id) and the diets of the database."""
    equipment = sql(app, "SELECT id, name, name_en, position FROM equipment ORDER BY position").all()
    links = sql(
        app,
        "SELECT r.external_id, l.equipment_id FROM recipe_equipment l JOIN recipes r ON r.id = l.recipe_id "
        "ORDER BY r.external_id, l.equipment_id",
    ).all()
    diets = sql(app, "SELECT id FROM categories WHERE diet ORDER BY position").scalars().all()
    return [tuple(row) for row in equipment], [tuple(row) for row in links], list(diets)


def test_0005_gives_a_seeded_database_the_catalog_s_equipment_and_diets(
    empty_app: Flask, other_app: Flask, seed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the migration fills in is what init-db seeds today."""
    seeded_at(empty_app, "0004")
    before_favorites(monkeypatch)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-preferences", "Supplier-Token": "demo-retailer-token"}
    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": "4", "guests": 4, "store_id": "1001"}, headers=headers
    )
    assert added.status_code == 200, added.json
    assert not PREFERENCE_TABLES & inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0004", after=HEAD)
    assert inspected(empty_app, tables) >= PREFERENCE_TABLES
    assert inspected(empty_app, model_differences) == []
    seeded_at(other_app, HEAD)
    migrated = catalog_extras(empty_app)
    assert migrated == catalog_extras(other_app)
    equipment, links, diets = migrated
    assert [row[0] for row in equipment] == [row["id"] for row in seed.equipment]
    assert diets == ["vegetarien", "sans-gluten"]
    assert len(links) == sum(len(recipe["equipment"]) for recipe in seed.recipes.values())

    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    assert client.get("/api/v1/recipes/4").json["equipment"] == ["four"]
    options = client.get("/api/v1/preferences/options").json
    assert [diet["id"] for diet in options["diets"]] == ["vegetarien", "sans-gluten"]
    assert client.put("/api/v1/preferences", json={"diets": ["vegetarien"]}, headers=headers).status_code == 200
    assert "4" not in {
        r["id"] for r in client.get("/api/v1/recipes?per_page=100&preferences=apply", headers=headers).json["data"]
    }


def test_0005_on_a_database_without_catalog_leaves_the_seeding_to_init_db(empty_app: Flask, seed: Any) -> None:
    upgrade(empty_app, "0004")
    upgrade(empty_app)
    assert sql(empty_app, "SELECT count(*) FROM equipment").scalar() == 0
    result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert "Seeded" in result.output
    equipment, links, diets = catalog_extras(empty_app)
    assert len(equipment) == len(seed.equipment) and diets == ["vegetarien", "sans-gluten"]
    assert len(links) == sum(len(recipe["equipment"]) for recipe in seed.recipes.values())


def test_0005_downgrade_drops_the_preferences_and_the_equipment(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id with-preferences", "Supplier-Token": "demo-retailer-token"}
    response = client.put("/api/v1/preferences", json={"missing_equipment": ["four"], "guests": 3}, headers=headers)
    assert response.status_code == 200, response.json
    assert client.put("/api/v1/likes/4", headers=headers).status_code == 204

    downgrade(empty_app, "0004")
    assert not PREFERENCE_TABLES & inspected(empty_app, tables)
    assert "diet" not in {
        column["name"] for column in inspected(empty_app, lambda c: inspect(c).get_columns("categories"))
    }
    assert inspected(empty_app, version) == ["0004"]
    assert sql(empty_app, "SELECT count(*) FROM likes").scalar() == 1
    assert sql(empty_app, "SELECT count(*) FROM categories").scalar() > 0

    assert upgrade(empty_app) == migrate.Upgrade(before="0004", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM preferences").scalar() == 0
    assert catalog_extras(empty_app)[2] == ["vegetarien", "sans-gluten"]  # filled again
    assert inspected(empty_app, model_differences) == []


# --- 0006: favorite products ---------------------------------------------------------------


def test_0006_adds_the_favorite_items_and_keeps_the_rest(empty_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded_at(empty_app, "0005")
    before_favorites(monkeypatch)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-favorites", "Supplier-Token": "demo-retailer-token"}
    assert client.put("/api/v1/preferences", json={"guests": 3}, headers=headers).status_code == 200
    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": "1001"}, headers=headers
    )
    assert added.status_code == 200, added.json
    assert "favorite_items" not in inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0005", after=HEAD)
    assert "favorite_items" in inspected(empty_app, tables)
    assert inspected(empty_app, model_differences) == []
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    assert client.get("/api/v1/preferences", headers=headers).json["guests"] == 3
    assert client.get("/api/v1/favorite-items", headers=headers).json == {"product_ids": []}
    stored = client.put("/api/v1/favorite-items", json={"product_ids": ["100041"]}, headers=headers)
    assert stored.status_code == 200 and stored.json == {"product_ids": ["100041"]}


def test_0006_downgrade_drops_the_favorite_items_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "authless_id with-favorites", "Supplier-Token": "demo-retailer-token"}
    assert client.put("/api/v1/favorite-items", json={"product_ids": ["100041"]}, headers=headers).status_code == 200
    assert client.put("/api/v1/preferences", json={"guests": 2}, headers=headers).status_code == 200

    downgrade(empty_app, "0005")
    assert "favorite_items" not in inspected(empty_app, tables)
    assert inspected(empty_app, version) == ["0005"]
    assert sql(empty_app, "SELECT count(*) FROM preferences").scalar() == 1

    assert upgrade(empty_app) == migrate.Upgrade(before="0005", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM favorite_items").scalar() == 0
    assert inspected(empty_app, model_differences) == []


# --- 0007: stores' coordinates ---------------------------------------------------------------

COORDINATE_CHECKS = {"ck_stores_latitude", "ck_stores_longitude", "ck_stores_coordinates_paired"}


def store_places(app: Flask) -> dict[str, tuple[Any, Any]]:
    """Each store's (latitude, longitude), as floats (None when unknown), by id."""
    rows = sql(app, "SELECT id, latitude, longitude FROM stores ORDER BY id").all()
    return {
        str(store_id): tuple(None if value is None else float(value) for value in (latitude, longitude))
        for store_id, latitude, longitude in rows
    }


def store_columns(app: Flask) -> set[str]:
    return {column["name"] for column in inspected(app, lambda c: inspect(c).get_columns("stores"))}


def store_checks(app: Flask) -> set[str]:
    return {check["name"] for check in inspected(app, lambda c: inspect(c).get_check_constraints("stores"))}


def test_0007_places_the_demo_stores_and_keeps_the_rest(empty_app: Flask, other_app: Flask, seed: Any) -> None:
    """What the migration fills in is what init-db seeds today; the stores keep their rows, keys and checks
    (SQLite copies the table), the baskets at them too."""
    seeded_at(empty_app, "0006")
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-coordinates", "Supplier-Token": "demo-retailer-token"}
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_awaited_products(monkeypatch)
        added = client.post(
            "/api/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": "1002"}, headers=headers
        )
    assert added.status_code == 200, added.json
    assert not {"latitude", "longitude"} & store_columns(empty_app)
    store_products = sql(empty_app, "SELECT count(*) FROM store_products").scalar()

    assert upgrade(empty_app) == migrate.Upgrade(before="0006", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert store_checks(empty_app) == COORDINATE_CHECKS | {"ck_stores_price_factor_positive"}
    seeded_at(other_app, HEAD)
    placed = store_places(empty_app)
    assert placed == store_places(other_app)
    assert placed == {
        store_id: (float(store["latitude"]), float(store["longitude"])) for store_id, store in seed.stores.items()
    }
    assert placed["1001"] == (48.8533, 2.3692) and placed["1002"] == (45.7606, 4.8594)

    assert sql(empty_app, "SELECT count(*) FROM store_products").scalar() == store_products
    assert client.get("/api/v1/basket?store_id=1002", headers=headers).json == added.json["basket"]
    assert client.get("/api/v1/stores/1001").json == {
        "id": "1001",
        "name": "Demo Market Paris Bastille",
        "city": "Paris",
        "latitude": 48.8533,
        "longitude": 2.3692,
    }


def test_0007_places_only_the_demo_stores(empty_app: Flask) -> None:
    """A store is matched by its id and its name: an operator's store of the same id, or of another, stays
    unknown (null in the answers)."""
    seeded_at(empty_app, "0006")
    sql(empty_app, "UPDATE stores SET name = 'Marché de Villeurbanne' WHERE id = 1002")
    sql(empty_app, "INSERT INTO stores (id, name, city, price_factor) VALUES (2001, 'Marché de Nantes', 'Nantes', 1)")
    upgrade(empty_app)

    assert store_places(empty_app) == {"1001": (48.8533, 2.3692), "1002": (None, None), "2001": (None, None)}
    stores = {store["id"]: store for store in empty_app.test_client().get("/api/v1/stores").json["data"]}
    assert stores["2001"] == {
        "id": "2001",
        "name": "Marché de Nantes",
        "city": "Nantes",
        "latitude": None,
        "longitude": None,
    }
    assert (stores["1001"]["latitude"], stores["1001"]["longitude"]) == (48.8533, 2.3692)


@pytest.mark.parametrize(
    "latitude, longitude",
    [(90.5, 2), (-91, 2), (48, 180.5), (48, -181), (48, None), (None, 2)],
    ids=["north", "south", "east", "west", "latitude-only", "longitude-only"],
)
def test_0007_checks_the_coordinates(empty_app: Flask, latitude: Any, longitude: Any) -> None:
    upgrade(empty_app)
    insert = (
        "INSERT INTO stores (id, name, city, price_factor, latitude, longitude) VALUES (:id, 'S', 'C', 1, :la, :lo)"
    )
    sql(empty_app, insert, id=1, la=-90, lo=-180)  # the bounds are coordinates
    sql(empty_app, insert, id=2, la=None, lo=None)  # unknown
    with pytest.raises(IntegrityError):
        sql(empty_app, insert, id=3, la=latitude, lo=longitude)


def test_0007_downgrade_drops_the_coordinates_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "authless_id with-coordinates", "Supplier-Token": "demo-retailer-token"}
    body = {"recipe_id": "5", "guests": 4, "store_id": "1001"}
    assert client.post("/api/v1/basket/recipes", json=body, headers=headers).status_code == 200
    counts = [sql(empty_app, f"SELECT count(*) FROM {table}").scalar() for table in ("stores", "store_products")]

    downgrade(empty_app, "0006")
    assert not {"latitude", "longitude"} & store_columns(empty_app)
    assert store_checks(empty_app) == {"ck_stores_price_factor_positive"}
    assert inspected(empty_app, version) == ["0006"]
    assert [
        sql(empty_app, f"SELECT count(*) FROM {table}").scalar() for table in ("stores", "store_products")
    ] == counts
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 1
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_store_closing(monkeypatch)
        assert client.get("/api/v1/basket?store_id=1001", headers=headers).json["recipe_count"] == 1

    assert upgrade(empty_app) == migrate.Upgrade(before="0006", after=HEAD)
    assert store_places(empty_app)["1001"] == (48.8533, 2.3692)  # placed again
    assert inspected(empty_app, model_differences) == []


# --- 0008: events' ids --------------------------------------------------------------------


def event_columns(app: Flask) -> set[str]:
    return {column["name"] for column in inspected(app, lambda c: inspect(c).get_columns("events"))}


def test_0008_gives_events_an_id_unique_per_supplier_and_keeps_them(empty_app: Flask) -> None:
    seeded_at(empty_app, "0007")
    moment = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)
    sql(
        empty_app,
        "INSERT INTO events (name, props, timestamp, received_at, session_id, supplier_id) "
        "VALUES ('pageview', '{}', :moment, :moment, 'before-ids', "
        "(SELECT id FROM suppliers WHERE token = 'demo-retailer-token'))",
        moment=moment,
    )
    assert "event_id" not in event_columns(empty_app)

    assert upgrade(empty_app) == migrate.Upgrade(before="0007", after=HEAD)
    assert "event_id" in event_columns(empty_app)
    assert inspected(empty_app, model_differences) == []
    client = empty_app.test_client()
    headers = {"Session-Id": "before-ids", "Supplier-Token": "demo-retailer-token"}
    body = {"events": [{"id": "after-0008", "name": "recipe.show"}]}
    assert client.post("/api/v1/events", json=body, headers=headers).json == {"stored": 1, "duplicates": 0}
    assert client.post("/api/v1/events", json=body, headers=headers).json == {"stored": 1, "duplicates": 1}
    listed = client.get("/api/v1/events?session_id=before-ids", headers=headers).json["data"]
    assert [(event["id"], event["name"]) for event in listed] == [(None, "pageview"), ("after-0008", "recipe.show")]


def test_0008_downgrade_drops_the_ids_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Session-Id": "with-ids", "Supplier-Token": "demo-retailer-token"}
    body = {"events": [{"id": "kept-event", "name": "recipe.show"}, {"name": "pageview"}]}
    assert client.post("/api/v1/events", json=body, headers=headers).status_code == 202

    downgrade(empty_app, "0007")
    assert "event_id" not in event_columns(empty_app)
    assert inspected(empty_app, version) == ["0007"]
    assert sql(empty_app, "SELECT count(*) FROM events WHERE session_id = 'with-ids'").scalar() == 2

    assert upgrade(empty_app) == migrate.Upgrade(before="0007", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM events WHERE event_id IS NOT NULL").scalar() == 0


# --- 0009: what the retailer cart was asked to add ------------------------------------------


def test_0009_adds_the_awaited_products_and_keeps_the_baskets(empty_app: Flask) -> None:
    seeded_at(empty_app, "0008")
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-awaiting", "Supplier-Token": "demo-retailer-token"}
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_awaited_products(monkeypatch)
        added = client.post(
            "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=headers
        )
    assert added.status_code == 200, added.json
    assert "basket_awaited_products" not in inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0008", after=HEAD)
    assert "basket_awaited_products" in inspected(empty_app, tables)
    assert inspected(empty_app, model_differences) == []
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    # A basket of before awaits nothing: its reconcile follows the cart at once, as before.
    emptied = client.post("/api/v1/basket/reconcile", json={"store_id": "1001", "cart": []}, headers=headers)
    assert emptied.status_code == 200, emptied.json
    assert emptied.json["basket"]["recipes"] == []


def test_0009_downgrade_drops_the_awaited_products_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id awaiting", "Supplier-Token": "demo-retailer-token"}
    body = {"recipe_id": "1", "guests": 4, "store_id": "1001"}
    assert client.post("/api/v1/basket/recipes", json=body, headers=headers).status_code == 200
    assert sql(empty_app, "SELECT count(*) FROM basket_awaited_products").scalar() > 0

    downgrade(empty_app, "0008")
    assert "basket_awaited_products" not in inspected(empty_app, tables)
    assert inspected(empty_app, version) == ["0008"]
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 1

    assert upgrade(empty_app) == migrate.Upgrade(before="0008", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM basket_awaited_products").scalar() == 0
    assert inspected(empty_app, model_differences) == []


# --- 0010: what a browser's cart showed of what a basket awaited ----------------------------


def test_0010_adds_the_shown_products_and_keeps_the_baskets(empty_app: Flask) -> None:
    seeded_at(empty_app, "0009")
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-shown", "Supplier-Token": "demo-retailer-token"}
    # Adding a recipe reads nothing of 0010's table (nor 0011's column: every recipe is offered there).
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_retirement(monkeypatch)
        added = client.post(
            "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=headers
        )
    assert added.status_code == 200, added.json
    assert "basket_shown_products" not in inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0009", after=HEAD)
    assert "basket_shown_products" in inspected(empty_app, tables)
    assert inspected(empty_app, model_differences) == []
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    # The recipe's products awaited before the upgrade: a browser's cart shows them, and its older cart, arriving
    # after it, leaves them.
    cart = [{"id": product["id"], "quantity": product["quantity"]} for product in added.json["basket"]["products"]]
    newer = {"store_id": "1001", "cart": cart, "reported": {"by": "a-browser", "at": 2_000}}
    assert client.post("/api/v1/basket/reconcile", json=newer, headers=headers).status_code == 200
    older = {"store_id": "1001", "cart": [], "reported": {"by": "a-browser", "at": 1_000}}
    kept = client.post("/api/v1/basket/reconcile", json=older, headers=headers)
    assert kept.status_code == 200, kept.json
    assert kept.json["basket"] == added.json["basket"]


def test_0010_downgrade_drops_the_shown_products_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    client = empty_app.test_client()
    headers = {"Authorization": "user_id showing", "Supplier-Token": "demo-retailer-token"}
    body = {"recipe_id": "1", "guests": 4, "store_id": "1001"}
    added = client.post("/api/v1/basket/recipes", json=body, headers=headers)
    assert added.status_code == 200
    cart = [{"id": product["id"], "quantity": product["quantity"]} for product in added.json["basket"]["products"]]
    reconcile = {"store_id": "1001", "cart": cart, "reported": {"by": "a-browser", "at": 1_000}}
    assert client.post("/api/v1/basket/reconcile", json=reconcile, headers=headers).status_code == 200
    assert sql(empty_app, "SELECT count(*) FROM basket_shown_products").scalar() > 0

    downgrade(empty_app, "0009")
    assert "basket_shown_products" not in inspected(empty_app, tables)
    assert inspected(empty_app, version) == ["0009"]
    assert sql(empty_app, "SELECT count(*) FROM basket_entries").scalar() == 1

    assert upgrade(empty_app) == migrate.Upgrade(before="0009", after=HEAD)
    assert sql(empty_app, "SELECT count(*) FROM basket_shown_products").scalar() == 0
    assert inspected(empty_app, model_differences) == []


# --- 0011: when the catalog stopped offering a recipe --------------------------------------------


def test_0011_offers_every_recipe_of_before_and_keeps_the_baskets(empty_app: Flask, seed: Any) -> None:
    seeded_at(empty_app, "0010")
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-retiring", "Supplier-Token": "demo-retailer-token"}
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_retirement(monkeypatch)
        added = client.post(
            "/api/v1/basket/recipes", json={"recipe_id": "5", "guests": 4, "store_id": "1001"}, headers=headers
        )
    assert added.status_code == 200, added.json

    assert upgrade(empty_app) == migrate.Upgrade(before="0010", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM recipes WHERE retired_at IS NULL").scalar() == len(seed.recipes)
    assert client.get("/api/v1/basket?store_id=1001", headers=headers).json == added.json["basket"]
    assert client.get("/api/v1/recipes/5").status_code == 200


def test_0011_downgrade_offers_a_retired_recipe_again(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    result = empty_app.test_cli_runner().invoke(args=["retire-recipe", "5"])
    assert result.exit_code == 0, result.output
    assert empty_app.test_client().get("/api/v1/recipes/5").status_code == 404

    downgrade(empty_app, "0010")
    assert inspected(empty_app, version) == ["0010"]
    columns = {column["name"] for column in inspected(empty_app, lambda c: inspect(c).get_columns("recipes"))}
    assert "retired_at" not in columns

    assert upgrade(empty_app) == migrate.Upgrade(before="0010", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert empty_app.test_client().get("/api/v1/recipes/5").status_code == 200


# --- 0012: when the retailer closed a store -----------------------------------------------------


def test_0012_keeps_every_store_of_before_open_and_the_baskets(empty_app: Flask) -> None:
    seeded_at(empty_app, "0011")
    client = empty_app.test_client()
    headers = {"Authorization": "user_id before-closing", "Supplier-Token": "demo-retailer-token"}
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_store_closing(monkeypatch)
        added = client.post(
            "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1002"}, headers=headers
        )
    assert added.status_code == 200, added.json

    assert upgrade(empty_app) == migrate.Upgrade(before="0011", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM stores WHERE closed_at IS NULL").scalar() == 2
    assert client.get("/api/v1/basket?store_id=1002", headers=headers).json == added.json["basket"]
    assert [store["id"] for store in client.get("/api/v1/stores").json["data"]] == ["1001", "1002"]


def test_0012_downgrade_opens_a_closed_store_again(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    result = empty_app.test_cli_runner().invoke(args=["close-store", "1002"])
    assert result.exit_code == 0, result.output
    assert empty_app.test_client().get("/api/v1/stores/1002").status_code == 404

    downgrade(empty_app, "0011")
    assert inspected(empty_app, version) == ["0011"]
    columns = {column["name"] for column in inspected(empty_app, lambda c: inspect(c).get_columns("stores"))}
    assert "closed_at" not in columns

    assert upgrade(empty_app) == migrate.Upgrade(before="0011", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert empty_app.test_client().get("/api/v1/stores/1002").status_code == 200


# --- 0013: the events by when coreapi stored them ----------------------------------------------


def event_indexes(app: Flask) -> set[str]:
    return {index["name"] for index in inspected(app, lambda c: inspect(c).get_indexes("events"))}


def test_0013_indexes_the_events_by_when_they_were_stored_and_keeps_them(empty_app: Flask) -> None:
    seeded_at(empty_app, "0012")
    headers = {"Session-Id": "before-0013", "Supplier-Token": "demo-retailer-token"}
    client = empty_app.test_client()
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_supplier_suspension(monkeypatch)
        posted = client.post("/api/v1/events", json={"events": [{"name": "pageview"}]}, headers=headers)
    assert posted.status_code == 202, posted.json
    assert "ix_events_received_at" not in event_indexes(empty_app)

    assert upgrade(empty_app) == migrate.Upgrade(before="0012", after=HEAD)
    assert "ix_events_received_at" in event_indexes(empty_app)
    assert inspected(empty_app, model_differences) == []
    listed = client.get("/api/v1/events?session_id=before-0013", headers=headers).json["data"]
    assert [event["name"] for event in listed] == ["pageview"]


def test_0013_rebuilds_an_index_a_failed_concurrent_build_left_invalid(empty_app: Flask) -> None:
    """A CREATE INDEX CONCURRENTLY that failed (its lock wait timed out) leaves the index invalid; the next upgrade
    drops it and builds it again, rather than finding it there."""
    if inspected(empty_app, lambda connection: connection.dialect.name) != "postgresql":
        pytest.skip("CONCURRENTLY is PostgreSQL's")
    seeded_at(empty_app, "0012")
    sql(empty_app, "CREATE INDEX ix_events_received_at ON events (received_at)")
    sql(empty_app, "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'ix_events_received_at'::regclass")
    valid = "SELECT indisvalid FROM pg_index WHERE indexrelid = 'ix_events_received_at'::regclass"
    assert sql(empty_app, valid).scalar() is False
    assert upgrade(empty_app) == migrate.Upgrade(before="0012", after=HEAD)
    assert sql(empty_app, valid).scalar() is True


def test_0013_downgrade_drops_the_index_only(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    downgrade(empty_app, "0012")
    assert inspected(empty_app, version) == ["0012"]
    assert "ix_events_received_at" not in event_indexes(empty_app)
    assert upgrade(empty_app) == migrate.Upgrade(before="0012", after=HEAD)
    assert inspected(empty_app, model_differences) == []


# --- 0014: the table of what a browser's cart showed, where the released 0010 was another ---------


def released_0010(app: Flask) -> None:
    """The database as the release of commit c13b60f migrated it: at 0009, then that release's own revision 0010
    (a table ``basket_cart_reports``, its script since replaced under the same id)."""
    seeded_at(app, "0009")
    with app.app_context(), migrate.schema_connection(db.engine) as connection:
        connection.execute(
            text(
                "CREATE TABLE basket_cart_reports (basket_id INTEGER NOT NULL, reporter VARCHAR(64) NOT NULL, "
                "reported_at FLOAT NOT NULL, followed_at TIMESTAMP WITH TIME ZONE NOT NULL, "
                "CONSTRAINT pk_basket_cart_reports PRIMARY KEY (basket_id, reporter), "
                "CONSTRAINT fk_basket_cart_reports_basket_id_baskets FOREIGN KEY (basket_id) REFERENCES baskets (id) "
                "ON DELETE CASCADE)"
            )
        )
        command.stamp(migrate.alembic_config(connection), "0010")


def test_0014_gives_a_database_of_the_released_0010_the_shown_products(empty_app: Flask) -> None:
    released_0010(empty_app)
    assert "basket_shown_products" not in inspected(empty_app, tables)

    assert upgrade(empty_app) == migrate.Upgrade(before="0010", after=HEAD)
    assert {"basket_shown_products", "basket_cart_reports"} <= inspected(empty_app, tables)
    assert inspected(empty_app, migrate.differences) == []
    # The basket writes that read the table work: a recipe added, its cart reported, an older cart after it.
    client = empty_app.test_client()
    headers = {"Authorization": "user_id released", "Supplier-Token": "demo-retailer-token"}
    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": "1", "guests": 4, "store_id": "1001"}, headers=headers
    )
    assert added.status_code == 200, added.json
    cart = [{"id": product["id"], "quantity": product["quantity"]} for product in added.json["basket"]["products"]]
    newer = {"store_id": "1001", "cart": cart, "reported": {"by": "a-browser", "at": 2_000}}
    assert client.post("/api/v1/basket/reconcile", json=newer, headers=headers).status_code == 200
    assert sql(empty_app, "SELECT count(*) FROM basket_shown_products").scalar() > 0
    older = {"store_id": "1001", "cart": [], "reported": {"by": "a-browser", "at": 1_000}}
    kept = client.post("/api/v1/basket/reconcile", json=older, headers=headers)
    assert kept.status_code == 200, kept.json
    assert kept.json["basket"] == added.json["basket"]
    # Upgrading again changes nothing.
    assert upgrade(empty_app) == migrate.Upgrade(before=HEAD, after=HEAD)


def test_0014_changes_nothing_where_0010_made_the_shown_products(empty_app: Flask) -> None:
    upgrade(empty_app, "0013")
    before = inspected(empty_app, described)
    assert upgrade(empty_app, "0014") == migrate.Upgrade(before="0013", after="0014")
    assert inspected(empty_app, described) == before
    assert upgrade(empty_app) == migrate.Upgrade(before="0014", after=HEAD)
    assert inspected(empty_app, model_differences) == []


def test_an_upgrade_that_leaves_the_tables_unlike_the_models_is_refused_and_rolled_back(empty_app: Flask) -> None:
    # A history that says a revision ran whose changes are not there: here 0013's index, dropped by hand.
    upgrade(empty_app, "0013")
    sql(empty_app, "DROP INDEX ix_events_received_at")
    result = empty_app.test_cli_runner().invoke(args=["db-upgrade"])
    assert result.exit_code != 0
    assert "still differ from the models" in result.output and "ix_events_received_at" in result.output
    # The newest revision rolled back with the check: on PostgreSQL each revision commits on its own (those before
    # the newest stay), SQLite's upgrade is one transaction.
    postgresql = inspected(empty_app, lambda connection: connection.dialect.name) == "postgresql"
    before_head = f"{int(HEAD) - 1:04d}"
    assert inspected(empty_app, version) == [before_head if postgresql else "0013"]


# --- 0015: when the deployment suspended a supplier --------------------------------------------


def test_0015_keeps_every_supplier_of_before_served(empty_app: Flask) -> None:
    seeded_at(empty_app, "0014")
    client = empty_app.test_client()
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_supplier_suspension(monkeypatch)
        before = {token: client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).json for token in TOKENS}

    assert upgrade(empty_app) == migrate.Upgrade(before="0014", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM suppliers WHERE suspended_at IS NULL").scalar() == len(TOKENS)
    after = {token: client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).json for token in TOKENS}
    assert after == before


def test_0015_downgrade_serves_a_suspended_supplier_again(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    result = empty_app.test_cli_runner().invoke(args=["suspend-supplier", "2"])
    assert result.exit_code == 0, result.output
    me = {"Supplier-Token": "demo-nopers-token"}
    assert empty_app.test_client().get("/api/v1/suppliers/me", headers=me).status_code == 401

    downgrade(empty_app, "0014")
    assert inspected(empty_app, version) == ["0014"]
    columns = {column["name"] for column in inspected(empty_app, lambda c: inspect(c).get_columns("suppliers"))}
    assert "suspended_at" not in columns

    assert upgrade(empty_app) == migrate.Upgrade(before="0014", after=HEAD)
    assert empty_app.test_client().get("/api/v1/suppliers/me", headers=me).status_code == 200


# --- 0016: the token a rotation replaced, accepted for a while --------------------------------


def test_0016_keeps_every_suppliers_token(empty_app: Flask) -> None:
    seeded_at(empty_app, "0015")
    client = empty_app.test_client()
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_token_rotation(monkeypatch)
        before = {token: client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).json for token in TOKENS}

    assert upgrade(empty_app) == migrate.Upgrade(before="0015", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    assert sql(empty_app, "SELECT count(*) FROM suppliers WHERE previous_token IS NULL").scalar() == len(TOKENS)
    after = {token: client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).json for token in TOKENS}
    assert after == before


def test_0016_downgrade_stops_a_replaced_token_at_once(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    result = empty_app.test_cli_runner().invoke(args=["rotate-token", "2"])
    assert result.exit_code == 0, result.output
    new = result.stdout.splitlines()[-1]
    client = empty_app.test_client()

    def status(token: str) -> int:
        return client.get("/api/v1/suppliers/me", headers={"Supplier-Token": token}).status_code

    assert (status("demo-nopers-token"), status(new)) == (200, 200)

    downgrade(empty_app, "0015")
    columns = {column["name"] for column in inspected(empty_app, lambda c: inspect(c).get_columns("suppliers"))}
    assert not {"previous_token", "previous_token_expires_at"} & columns
    with pytest.MonkeyPatch.context() as monkeypatch:
        before_token_rotation(monkeypatch)
        assert (status("demo-nopers-token"), status(new)) == (401, 200)

    assert upgrade(empty_app) == migrate.Upgrade(before="0015", after=HEAD)
    assert inspected(empty_app, model_differences) == []


# --- 0017: the deployment's own secrets, the key of public ids ---------------------------------


def test_0017_makes_the_key_of_public_ids_and_keeps_the_menus(empty_app: Flask) -> None:
    seeded_at(empty_app, "0016")
    menus = sql(empty_app, "SELECT count(*) FROM menus").scalar()
    assert upgrade(empty_app) == migrate.Upgrade(before="0016", after=HEAD)
    assert inspected(empty_app, model_differences) == []
    (name, value), *more = sql(empty_app, "SELECT name, value FROM instance_secrets").all()
    assert (name, more) == ("public-ids", []) and re.fullmatch(r"[0-9a-f]{64}", value)
    assert sql(empty_app, "SELECT count(*) FROM menus").scalar() == menus


def test_0017_downgrade_drops_the_secrets_and_an_upgrade_makes_a_new_key(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    before = sql(empty_app, "SELECT value FROM instance_secrets").scalar()
    downgrade(empty_app, "0016")
    assert "instance_secrets" not in inspected(empty_app, lambda c: inspect(c).get_table_names())
    assert upgrade(empty_app) == migrate.Upgrade(before="0016", after=HEAD)
    assert sql(empty_app, "SELECT value FROM instance_secrets").scalar() != before
    assert inspected(empty_app, model_differences) == []


# --- rolling back a release --------------------------------------------------------------------


def test_db_downgrade_takes_the_database_back_for_the_release_before(empty_app: Flask) -> None:
    seeded_at(empty_app, HEAD)
    runner = empty_app.test_cli_runner()
    refused = runner.invoke(args=["db-downgrade", "0012"], input="n\n")
    assert refused.exit_code != 0 and inspected(empty_app, version) == [HEAD]
    result = runner.invoke(args=["db-downgrade", "0012", "--yes"])
    assert result.exit_code == 0, result.output
    assert f"Migrated the database back from {HEAD} to 0012." in result.output
    assert inspected(empty_app, version) == ["0012"]
    assert "ix_events_received_at" not in event_indexes(empty_app)
    # The release of 0012 upgrades it again as it did.
    assert runner.invoke(args=["db-upgrade", "0012"]).output.strip() == "The database is at revision 0012."
    assert runner.invoke(args=["db-upgrade"]).exit_code == 0
    assert inspected(empty_app, version) == [HEAD]


def test_an_upgrade_to_an_older_revision_or_a_downgrade_to_a_newer_one_is_refused(empty_app: Flask) -> None:
    seeded_at(empty_app, "0012")
    runner = empty_app.test_cli_runner()
    older = runner.invoke(args=["db-upgrade", "0011"])
    assert older.exit_code != 0 and "db-downgrade" in older.output
    newer = runner.invoke(args=["db-downgrade", "0013", "--yes"])
    assert newer.exit_code != 0 and "Nothing was changed" in newer.output
    unknown = runner.invoke(args=["db-downgrade", "9999", "--yes"])
    assert unknown.exit_code != 0 and "Nothing was changed" in unknown.output
    assert inspected(empty_app, version) == ["0012"]


# --- databases made by create_all, before migrations ----------------------------------------


def test_a_create_all_database_that_matches_is_stamped_and_kept(empty_app: Flask, seed) -> None:
    create_all(empty_app)
    with empty_app.app_context():
        load_catalog(db.session, SEED_DATA_DIR)
        recipe_id = int(next(iter(seed.recipes)))
        db.session.add(Like(supplier_id=1, user_id="legacy", recipe_id=recipe_id))
        db.session.commit()

    result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert "predate migrations" in result.output
    assert f"stamped as revision {HEAD}" in result.output
    assert "nothing to do" in result.output
    assert inspected(empty_app, version) == [HEAD]
    assert inspected(empty_app, model_differences) == []
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Like)) == 1
        assert db.session.scalar(select(func.count()).select_from(Recipe)) == len(seed.recipes)


def test_a_create_all_database_that_differs_is_refused_untouched(empty_app: Flask) -> None:
    create_all(empty_app)
    with empty_app.app_context(), db.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_likes_recipe_id"))
    for command_line in (["db-upgrade"], ["init-db"]):
        result = empty_app.test_cli_runner().invoke(args=command_line)
        assert result.exit_code == 1, result.output
        assert "differ from the models" in result.output
        assert "ix_likes_recipe_id" in result.output
        assert "init-db --reset" in result.output
        assert "alembic_version" not in inspected(empty_app, tables)
        with empty_app.app_context():
            assert db.session.scalar(select(func.count()).select_from(Recipe)) == 0


def test_other_tables_do_not_make_a_database_legacy(empty_app: Flask) -> None:
    """Tables that are not coreapi's are neither compared nor touched by an upgrade."""
    with empty_app.app_context(), db.engine.begin() as connection:
        connection.execute(text("CREATE TABLE someone_elses (id INTEGER PRIMARY KEY)"))
    assert upgrade(empty_app) == migrate.Upgrade(before=None, after=HEAD)
    assert "someone_elses" in inspected(empty_app, tables)


def test_a_revision_the_scripts_do_not_know_is_refused(empty_app: Flask) -> None:
    upgrade(empty_app)
    with empty_app.app_context(), db.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'from-elsewhere'"))
    result = empty_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 1, result.output
    assert "Can't locate revision identified by 'from-elsewhere'" in result.output
    assert "init-db --reset" in result.output
    assert inspected(empty_app, version) == ["from-elsewhere"]


# --- reset and new revisions ---------------------------------------------------------------


def test_reset_drops_every_table_then_migrates_and_seeds(empty_app: Flask, seed) -> None:
    runner = empty_app.test_cli_runner()
    assert runner.invoke(args=["init-db"]).exit_code == 0
    with empty_app.app_context(), db.engine.begin() as connection:
        connection.execute(text("CREATE TABLE left_behind (id INTEGER PRIMARY KEY)"))
        connection.execute(text("UPDATE alembic_version SET version_num = 'gone'"))
    result = runner.invoke(args=["init-db", "--reset"])
    assert result.exit_code == 0, result.output
    assert "Dropped every table" in result.output
    assert "Seeded" in result.output
    assert inspected(empty_app, tables) == set(db.metadata.tables) | {"alembic_version"}
    assert inspected(empty_app, version) == [HEAD]
    with empty_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Recipe)) == len(seed.recipes)


def test_db_revision_writes_nothing_when_the_models_match(empty_app: Flask) -> None:
    versions = sorted(path.name for path in (migrate.MIGRATIONS_DIR / "versions").glob("*.py"))
    upgrade(empty_app)
    result = empty_app.test_cli_runner().invoke(args=["db-revision", "-m", "nothing"])
    assert result.exit_code == 0, result.output
    assert "no revision written" in result.output
    assert sorted(p.name for p in (migrate.MIGRATIONS_DIR / "versions").glob("*.py")) == versions


def test_db_revision_autogenerates_the_next_numbered_script(
    empty_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against a copy of the scripts: a database missing an index gets the next revision, adding it."""
    copy = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", copy)
    upgrade(empty_app)
    with empty_app.app_context(), db.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_likes_recipe_id"))

    result = empty_app.test_cli_runner().invoke(args=["db-revision", "-m", "Index likes by recipe"])
    assert result.exit_code == 0, result.output
    (written,) = (copy / "versions").glob(f"{NEXT}_*.py")
    assert written.name == f"{NEXT}_index_likes_by_recipe.py"
    script = written.read_text("utf-8")
    assert f"down_revision: str | Sequence[str] | None = '{HEAD}'" in script
    assert "ix_likes_recipe_id" in script
    assert migrate.head_revision() == NEXT
    assert upgrade(empty_app) == migrate.Upgrade(before=HEAD, after=NEXT)
    assert inspected(empty_app, model_differences) == []


# --- the distribution ----------------------------------------------------------------------


def test_the_wheel_carries_the_migration_scripts_and_finds_them_installed(tmp_path: Path) -> None:
    """coreapi's own distribution (coreapi/pyproject.toml), built offline from a copy of coreapi/ with the
    lock's setuptools and build: every subpackage, the Alembic scripts and the seed catalog; installed
    alone, it finds its migrations beside its modules."""
    source = Path(migrate.__file__).resolve().parent
    project = tmp_path / "coreapi"
    shutil.copytree(
        source, project, ignore=shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info", "build", "dist")
    )

    def packaged(paths: Any) -> set[str]:
        return {f"coreapi/{path.relative_to(project).as_posix()}" for path in paths if path.is_file()}

    scripts = packaged((project / "migrations").rglob("*"))
    packages = packaged(project.rglob("__init__.py"))
    catalog = packaged((project / "seed" / "data").glob("*.json"))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("prerender_coreapi-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())

    assert {name.split("/")[0] for name in names} == {"coreapi", "prerender_coreapi-0.1.0.dist-info"}
    assert scripts >= {
        "coreapi/migrations/env.py",
        "coreapi/migrations/script.py.mako",
        "coreapi/migrations/versions/0001_initial.py",
        "coreapi/migrations/versions/0002_baskets_per_supplier_idempotency_keys.py",
        "coreapi/migrations/versions/0003_menus.py",
        "coreapi/migrations/versions/0004_basket_transfers.py",
        "coreapi/migrations/versions/0005_preferences_equipment.py",
        "coreapi/migrations/versions/0006_favorite_items.py",
        "coreapi/migrations/versions/0007_store_coordinates.py",
    }
    assert scripts <= names
    assert packages <= names  # a subpackage missing from [tool.setuptools] packages fails here
    assert catalog and catalog <= names

    target = tmp_path / "installed"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    elsewhere = tmp_path / "elsewhere"  # neither the repository nor the copy on sys.path
    elsewhere.mkdir()
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "from coreapi import migrate, config; "
            "print(migrate.head_revision(), migrate.MIGRATIONS_DIR, config.SEED_DATA_DIR, sep='\\n')",
        ],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    head, migrations_dir, seed_dir = probe.stdout.split()
    assert head == HEAD
    assert Path(migrations_dir).is_relative_to(target) and Path(seed_dir).is_relative_to(target)

"""flask --app coreapi prune (coreapi/services/retention.py): the analytics events stored longer ago than
COREAPI_EVENT_RETENTION_DAYS, and the logged-out visitors' baskets and menus that hold no recipe and were not
written for COREAPI_IDLE_AUTHLESS_RETENTION_DAYS, go; nothing else does. The rows are written with explicit times
on either side of each limit, an hour away from it: nothing waits, nothing is timed. On both backends, on a
database of this module's own (the command deletes across every shopper)."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, text, update

from coreapi.extensions import db
from coreapi.models import (
    AwaitedProduct,
    Basket,
    BasketEntry,
    BasketTransfer,
    Event,
    IdempotencyKey,
    Menu,
    MenuRecipe,
    ShownProduct,
)
from coreapi.services import retention

HOUR = dt.timedelta(hours=1)
EVENT_DAYS = dt.timedelta(days=395)
IDLE_DAYS = dt.timedelta(days=90)


@pytest.fixture(autouse=True)
def _nothing_left_to_prune(own_app: Flask) -> None:
    """Each test counts what its own rows make the command delete: whatever an earlier one left is gone first."""
    prune(own_app)


def prune(app: Flask) -> str:
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.exit_code == 0, result.output
    return str(result.output)


def ago(delta: dt.timedelta) -> dt.datetime:
    return dt.datetime.now(dt.UTC) - delta


def add_events(app: Flask, *received: dt.datetime) -> list[int]:
    """Events stored at those times (their browser's times a year later: the storage time is what counts)."""
    with app.app_context():
        rows = [
            Event(
                name="recipe.show",
                timestamp=moment + dt.timedelta(days=365),
                received_at=moment,
                supplier_id=1,
                identity_kind="user_id",
                identity_id=f"pruned-{uuid.uuid4().hex}",
            )
            for moment in received
        ]
        db.session.add_all(rows)
        db.session.commit()
        return [row.id for row in rows]


def add_basket(app: Flask, kind: str, touched: dt.datetime, *, recipe: bool = False, status: str = "open") -> int:
    """A basket of a new shopper last written at ``touched``; ``recipe``: holding one. An empty one keeps what a
    browser's cart showed of it (a merge leaves such a basket)."""
    with app.app_context():
        basket = Basket(
            supplier_id=1,
            identity_kind=kind,
            identity_id=f"pruned-{uuid.uuid4().hex}",
            store_id=1001,
            status=status,
            created_at=touched,
            updated_at=touched,
            confirmed_at=touched if status == "confirmed" else None,
        )
        db.session.add(basket)
        db.session.flush()
        if recipe:
            db.session.add(BasketEntry(basket_id=basket.id, recipe_id=1, guests=2, position=1, added_at=touched))
        else:
            db.session.add(
                ShownProduct(
                    basket_id=basket.id,
                    recipe_id=1,
                    product_id=100001,
                    reporter="r" * 32,
                    quantity=1,
                    reported_at=1_000.0,
                    shown_at=touched,
                )
            )
            db.session.add(
                AwaitedProduct(basket_id=basket.id, recipe_id=1, product_id=100001, quantity=1, asked_at=touched)
            )
        db.session.commit()
        return basket.id


def add_menu(app: Flask, kind: str, touched: dt.datetime, *, recipe: bool = False) -> int:
    with app.app_context():
        menu = Menu(
            supplier_id=1,
            identity_kind=kind,
            identity_id=f"pruned-{uuid.uuid4().hex}",
            store_id=1001,
            guests=2,
            created_at=touched,
            updated_at=touched,
        )
        db.session.add(menu)
        db.session.flush()
        if recipe:
            db.session.add(MenuRecipe(menu_id=menu.id, recipe_id=1, guests=2, position=1))
        db.session.commit()
        return menu.id


def present(app: Flask, model: Any, ids: list[int]) -> list[int]:
    """Which of ``ids`` are still there, in their order."""
    with app.app_context():
        kept = set(db.session.scalars(select(model.id).where(model.id.in_(ids))))
    return [key for key in ids if key in kept]


def test_events_go_once_stored_longer_ago_than_the_retention(own_app: Flask) -> None:
    old, recent, new = add_events(own_app, ago(EVENT_DAYS + HOUR), ago(EVENT_DAYS - HOUR), ago(HOUR))
    output = prune(own_app)
    assert output.startswith("Pruned 1 event(s) older than 395 days, and 0 empty basket(s) and 0 empty menu(s)")
    assert present(own_app, Event, [old, recent, new]) == [recent, new]
    assert prune(own_app).startswith("Pruned 0 event(s)")


def test_old_events_go_in_batches_until_none_is_left(own_app: Flask) -> None:
    """Each batch a transaction of its own (a first prune of a year of events holds no lock for long): all go, the
    rows of the last, partial batch too, and the recent ones stay."""
    old = add_events(own_app, *[ago(EVENT_DAYS + HOUR)] * 5)
    (recent,) = add_events(own_app, ago(HOUR))
    with own_app.app_context():
        done = retention.prune(db.session, events_before=ago(EVENT_DAYS), idle_before=ago(IDLE_DAYS), batch=2)
    assert done.events == 5
    assert present(own_app, Event, [*old, recent]) == [recent]


def test_the_event_retention_is_a_setting(own_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(own_app.config, "EVENT_RETENTION_DAYS", 30)
    prune(own_app)  # what the shorter period takes of the earlier tests' rows
    old, recent = add_events(own_app, ago(dt.timedelta(days=30) + HOUR), ago(dt.timedelta(days=30) - HOUR))
    assert prune(own_app).startswith("Pruned 1 event(s) older than 30 days")
    assert present(own_app, Event, [old, recent]) == [recent]


def test_a_visitor_s_empty_basket_goes_once_untouched_longer_than_the_retention(own_app: Flask) -> None:
    idle = add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR))
    kept = [
        add_basket(own_app, "authless_id", ago(IDLE_DAYS - HOUR)),  # written within the period
        add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR), recipe=True),  # holds a recipe
        add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR), status="confirmed"),  # an order
        add_basket(own_app, "user_id", ago(IDLE_DAYS + HOUR)),  # a connected user's
    ]
    output = prune(own_app)
    assert "and 1 empty basket(s) and 0 empty menu(s) of logged-out visitors untouched for 90 days;" in output
    assert present(own_app, Basket, [idle, *kept]) == kept
    with own_app.app_context():  # what hung from it went with it
        for model in (ShownProduct, AwaitedProduct):
            assert db.session.scalars(select(model.basket_id).where(model.basket_id == idle)).all() == []
    assert "and 0 empty basket(s)" in prune(own_app)


def test_a_visitor_s_empty_menu_goes_once_untouched_longer_than_the_retention(own_app: Flask) -> None:
    idle = add_menu(own_app, "authless_id", ago(IDLE_DAYS + HOUR))
    kept = [
        add_menu(own_app, "authless_id", ago(IDLE_DAYS - HOUR)),
        add_menu(own_app, "authless_id", ago(IDLE_DAYS + HOUR), recipe=True),
        add_menu(own_app, "user_id", ago(IDLE_DAYS + HOUR)),
    ]
    assert "and 0 empty basket(s) and 1 empty menu(s) of logged-out visitors" in prune(own_app)
    assert present(own_app, Menu, [idle, *kept]) == kept
    assert "and 0 empty menu(s)" in prune(own_app)


def test_the_idle_retention_is_a_setting(own_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(own_app.config, "IDLE_AUTHLESS_RETENTION_DAYS", 7)
    prune(own_app)  # what the shorter period takes of the earlier tests' rows
    week = dt.timedelta(days=7)
    baskets = [
        add_basket(own_app, "authless_id", ago(week + HOUR)),
        add_basket(own_app, "authless_id", ago(week - HOUR)),
    ]
    menus = [
        add_menu(own_app, "authless_id", ago(week + HOUR)),
        add_menu(own_app, "authless_id", ago(week - HOUR)),
    ]
    assert "and 1 empty basket(s) and 1 empty menu(s) of logged-out visitors untouched for 7 days;" in prune(own_app)
    assert present(own_app, Basket, baskets) == baskets[1:]
    assert present(own_app, Menu, menus) == menus[1:]


def test_the_idempotency_outcomes_past_their_retention_go_on_a_database_no_write_reaches(own_app: Flask) -> None:
    """The writes prune them now and then (coreapi/services/idempotency.py); with no write they stayed for ever."""
    day = dt.timedelta(days=1)
    with own_app.app_context():
        for key, created in (("old-key", ago(day + HOUR)), ("recent-key", ago(day - HOUR))):
            db.session.add(
                IdempotencyKey(
                    supplier_id=1,
                    identity_kind="authless_id",
                    identity_id=f"pruned-{uuid.uuid4().hex}",
                    key=key,
                    fingerprint="0" * 64,
                    method="POST",
                    path="/api/v1/basket/recipes",
                    status=200,
                    body={},
                    created_at=created,
                )
            )
        db.session.commit()
    assert prune(own_app).endswith("; 1 idempotency outcome(s) past their retention.\n")
    with own_app.app_context():
        keys = db.session.scalars(select(IdempotencyKey.key).where(IdempotencyKey.key.in_(["old-key", "recent-key"])))
        assert keys.all() == ["recent-key"]


def add_transfer(app: Flask, expires: dt.datetime, *, redeemed: bool = False) -> int:
    with app.app_context():
        transfer = BasketTransfer(
            token_hash=uuid.uuid4().hex * 2,
            supplier_id=3,
            identity_kind="authless_id",
            identity_id=f"pruned-{uuid.uuid4().hex}",
            target_supplier_id=1,
            store_id=1001,
            created_at=expires - dt.timedelta(minutes=15),
            expires_at=expires,
            redeemed_at=expires - dt.timedelta(minutes=10) if redeemed else None,
        )
        db.session.add(transfer)
        db.session.commit()
        return transfer.id


def test_basket_transfers_expired_longer_ago_than_the_idle_retention_go(own_app: Flask) -> None:
    """A transfer's row names the shopper who handed a basket over; its token is useless once expired."""
    old = [
        add_transfer(own_app, ago(IDLE_DAYS + HOUR)),
        add_transfer(own_app, ago(IDLE_DAYS + HOUR), redeemed=True),
    ]
    kept = [add_transfer(own_app, ago(IDLE_DAYS - HOUR)), add_transfer(own_app, ago(-HOUR))]  # one still valid
    assert "; 2 basket transfer(s) expired that long ago;" in prune(own_app)
    assert present(own_app, BasketTransfer, [*old, *kept]) == kept


def test_every_kind_goes_in_batches_until_none_is_left(own_app: Flask) -> None:
    """Baskets, menus and transfers go in batches too (a first prune at a retailer's volume meets a quarter's
    abandoned visitors): every row of the last, partial batch goes, and what is kept stays."""
    baskets = [add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR)) for _ in range(5)]
    menus = [add_menu(own_app, "authless_id", ago(IDLE_DAYS + HOUR)) for _ in range(5)]
    transfers = [add_transfer(own_app, ago(IDLE_DAYS + HOUR)) for _ in range(5)]
    kept_basket = add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR), recipe=True)
    kept_menu = add_menu(own_app, "authless_id", ago(IDLE_DAYS - HOUR))
    with own_app.app_context():
        done = retention.prune(db.session, events_before=ago(EVENT_DAYS), idle_before=ago(IDLE_DAYS), batch=2)
    assert (done.idle_baskets, done.idle_menus, done.old_transfers) == (5, 5, 5)
    assert present(own_app, Basket, [*baskets, kept_basket]) == [kept_basket]
    assert present(own_app, Menu, [*menus, kept_menu]) == [kept_menu]
    assert present(own_app, BasketTransfer, transfers) == []


def test_a_basket_written_while_its_batch_waits_for_its_lock_is_kept(own_app: Flask, backend: Any) -> None:
    """A visitor's write to an idle basket that holds the row's lock when the prune's batch reaches it: once the
    write commits, the delete checks the row again and keeps it (PostgreSQL; SQLite's one write lock serializes the
    two whole transactions, so the prune reads the written row)."""
    if backend.name != "postgresql":
        pytest.skip(
            "SQLite has no row locks: its one write lock runs the write and the prune one after the other, so the "
            "prune reads the written row (the other backend runs this test)"
        )
    idle = add_basket(own_app, "authless_id", ago(IDLE_DAYS + HOUR))
    with own_app.app_context():
        engine = db.engine
    outcome: dict[str, Any] = {}
    with engine.connect() as writer:
        writer.execute(update(Basket).where(Basket.id == idle).values(updated_at=ago(dt.timedelta(0))))
        writer_pid = writer.scalar(text("SELECT pg_backend_pid()"))
        waiting = threading.Thread(target=lambda: outcome.update(done=prune(own_app)))
        waiting.start()
        with engine.connect() as watcher:  # until the prune waits for the row the write holds
            blocked = text("SELECT count(*) FROM pg_stat_activity WHERE :writer = ANY(pg_blocking_pids(pid))")
            for _ in range(3000):
                if watcher.scalar(blocked, {"writer": writer_pid}) or not waiting.is_alive():
                    break
                threading.Event().wait(0.01)
            assert waiting.is_alive(), f"the prune ended without waiting for the basket's lock: {outcome}"

        writer.commit()
        waiting.join(10)
    assert "and 0 empty basket(s)" in outcome["done"]
    assert present(own_app, Basket, [idle]) == [idle]

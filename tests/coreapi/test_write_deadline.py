"""A shopper's write has ``WRITE_DEADLINE_SECONDS`` (coreapi/services/write_deadline.py), less than prerender waits
for it: a write held up by a row another transaction keeps locked is a 409, one that ran past its deadline a 503,
both rolled back, with ``Retry-After``, and the key free for the same request sent again. A write prerender gave up
on is never committed after its answer was lost. And a request that finds no free connection is a 503 at once.

The suite's apps have a roomy deadline (tests/coreapi/conftest.py); these tests set their own.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text
from werkzeug.test import TestResponse

from coreapi.extensions import db
from coreapi.services import baskets, idempotency

from .conftest import make_app, migrate_and_seed
from .test_baskets import Shopper, ok
from .test_idempotency import keyed, new_key


def recipes_of(shopper: Shopper) -> list[str]:
    return [entry["recipe_id"] for entry in shopper.basket()["recipes"]]


def held_shopper(app: Flask, backend: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Shopper]:
    """A shopper with a basket (recipe 3 at store 1001), on PostgreSQL, whose writes have 0.5 s from then on (the
    basket's first write keeps the suite's roomy deadline: a loaded machine takes more than 0.5 s for it)."""
    if backend.name != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite serialises writers itself")
    user = f"held-{uuid.uuid4().hex}"
    shopper = Shopper(app.test_client(), f"user_id {user}")
    ok(shopper.add("3", 4))
    monkeypatch.setitem(app.config, "WRITE_DEADLINE_SECONDS", 0.5)
    return user, shopper


def sent_while_the_basket_is_held(app: Flask, user: str, send: Callable[[], TestResponse]) -> TestResponse:
    """`send()`'s answer while another session (an operator's, a stuck write) keeps the user's open basket row
    locked; it must come while the lock is still held, far sooner than the test's 20 s."""
    with app.app_context(), db.engine.connect() as holder:
        locked = holder.execute(
            text("SELECT id FROM baskets WHERE identity_id = :user AND status = 'open' FOR UPDATE"), {"user": user}
        ).all()
        assert len(locked) == 1
        answers: list[TestResponse] = []
        sender = threading.Thread(target=lambda: answers.append(send()))
        sender.start()
        sender.join(timeout=20)
        answered_while_held = not sender.is_alive()
        holder.rollback()
        sender.join(timeout=30)
    assert answered_while_held, "the request waited for the lock past its deadline"
    return answers[0]


def test_a_write_behind_a_row_another_transaction_holds_is_409_and_not_applied(
    app: Flask, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write waits until its deadline, not for as long as the lock lasts, then is refused without being
    applied; the same request applies once afterwards."""
    user, shopper = held_shopper(app, backend, monkeypatch)
    key = new_key()
    answer = sent_while_the_basket_is_held(app, user, lambda: keyed(shopper, key).add("1", 4))
    assert answer.status_code == 409 and answer.mimetype == "application/problem+json"
    assert answer.headers["Retry-After"] == "1" and "not applied" in answer.json["detail"]
    assert recipes_of(shopper) == ["3"]
    monkeypatch.undo()
    again = keyed(shopper, key).add("1", 4)  # the key is free: the same request now applies, once
    assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers
    assert recipes_of(shopper) == ["3", "1"]


def test_moving_a_basket_behind_a_row_another_transaction_holds_is_409_too(
    app: Flask, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GET /basket` at another store moves the basket (a write in a read): the same deadline, the same refusal,
    and the basket stays where it was."""
    user, shopper = held_shopper(app, backend, monkeypatch)
    answer = sent_while_the_basket_is_held(
        app, user, lambda: shopper.client.get("/api/v1/basket?store_id=1002", headers=shopper.headers)
    )
    assert answer.status_code == 409 and answer.headers["Retry-After"] == "1"
    where = shopper.client.get("/api/v1/basket", headers=shopper.headers)  # at its own store: not moved
    assert where.status_code == 200 and where.json["store_id"] == "1001"


def test_a_statement_running_past_the_deadline_is_cut_and_503(
    app: Flask, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow statement (a slow database, a long scan) is cut where the write's deadline ends, not left to run: the
    worker and its connection are free again, and nothing was written."""
    if backend.name != "postgresql":
        pytest.skip("statement_timeout is PostgreSQL's")
    monkeypatch.setitem(app.config, "WRITE_DEADLINE_SECONDS", 0.5)
    shopper = Shopper(app.test_client(), f"user_id slow-{uuid.uuid4().hex}")
    ok(shopper.add("3", 4))
    lock_open_basket = baskets._lock_open_basket

    def slow(session: Any, *args: Any, **kwargs: Any) -> Any:
        session.execute(text("SELECT pg_sleep(20)"))
        return lock_open_basket(session, *args, **kwargs)

    monkeypatch.setattr(baskets, "_lock_open_basket", slow)
    answers: list[TestResponse] = []
    writer = threading.Thread(target=lambda: answers.append(keyed(shopper, new_key()).add("1", 4)))
    writer.start()
    writer.join(timeout=15)  # far longer than the deadline, shorter than the statement
    assert not writer.is_alive(), "the statement ran past the deadline"
    monkeypatch.undo()
    assert answers[0].status_code == 503 and answers[0].headers["Retry-After"] == "1"
    assert recipes_of(shopper) == ["3"]


@pytest.mark.parametrize("with_key", [True, False], ids=["keyed", "unkeyed"])
def test_a_write_past_its_deadline_is_rolled_back_and_503(
    app: Flask, monkeypatch: pytest.MonkeyPatch, with_key: bool
) -> None:
    """No time at all: whatever the write did is rolled back (on PostgreSQL its statements are cut, or the check
    before the commit stops it; on SQLite the check), and the same request applies once it has time."""
    shopper = Shopper(app.test_client(), f"user_id late-{uuid.uuid4().hex}")
    ok(shopper.add("3", 4))
    sender = keyed(shopper, new_key()) if with_key else shopper
    monkeypatch.setitem(app.config, "WRITE_DEADLINE_SECONDS", 0)
    late = sender.add("1", 4)
    assert late.status_code == 503 and late.mimetype == "application/problem+json"
    assert late.headers["Retry-After"] == "1" and "nothing was changed" in late.json["detail"]
    monkeypatch.undo()
    assert recipes_of(shopper) == ["3"]
    assert sender.add("1", 4).status_code == 200
    assert recipes_of(shopper) == ["3", "1"]


def test_no_free_connection_is_503_at_once(backend: Any) -> None:
    """Every connection of the pool held (by requests behind a locked row, say): the next request is refused once
    DATABASE_POOL_TIMEOUT_SECONDS have passed, not after SQLAlchemy's 30 s."""
    if backend.name != "postgresql":
        pytest.skip("the pool timeout is set for PostgreSQL (SQLite's test pools take none)")
    app = migrate_and_seed(make_app(backend, {"pool_size": 1, "max_overflow": 0}, DATABASE_POOL_TIMEOUT_SECONDS=1))
    try:
        shopper = Shopper(app.test_client(), f"user_id pool-{uuid.uuid4().hex}")
        with app.app_context():
            assert db.engine.pool.timeout() == 1  # type: ignore[attr-defined]  # QueuePool: not its default 30 s
        with app.app_context(), db.engine.connect():  # the pool's one connection
            answer = shopper.client.get("/api/v1/basket?store_id=1001", headers=shopper.headers)
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
        assert answer.mimetype == "application/problem+json"
        assert shopper.basket()["recipes"] == []
    finally:
        with app.app_context():
            db.engine.dispose()


@pytest.mark.parametrize(("stops", "applied"), [(-1.0, False), (60.0, True), (None, True)])
def test_a_write_has_no_more_time_than_its_client_waits(app: Flask, stops: float | None, applied: bool) -> None:
    """prerender says when it stops waiting for the answer (X-Request-Deadline, Unix time in milliseconds): a time,
    so that a request left in the socket while every worker was stopped does not get its whole time afresh. A write
    keeps a margin before it. Past already: refused, not applied (it would have been applied after prerender gave
    up). Later than the write's own deadline changes nothing; a value that is not a time is ignored."""
    shopper = Shopper(app.test_client(), f"user_id waits-{uuid.uuid4().hex}")
    ok(shopper.add("3", 4))
    said = "soon" if stops is None else str(int((time.time() + stops) * 1000))
    answer = keyed(shopper, new_key()).with_headers({"X-Request-Deadline": said}).add("1", 4)
    if applied:
        assert answer.status_code == 200
        assert recipes_of(shopper) == ["3", "1"]
    else:
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
        assert recipes_of(shopper) == ["3"]


@pytest.mark.parametrize("stops", [-2.0, -0.05, 30.0, None, "soon"])
def test_a_request_its_client_stopped_waiting_for_is_refused_at_once(app: Flask, stops: float | str | None) -> None:
    """A request that arrives well after its client's X-Request-Deadline (it waited behind others on a busy day), a
    read as well as a write, is a 503 at once, nothing done, with its request id: its answer would reach nobody, and
    its work would take the time of the requests whose clients still wait. A basket read that would move the basket
    to another store (GET /basket writes) leaves it where it was. Past by less than the hosts' clocks may differ
    (0.1 s), later, missing or not a time: served (a write then has its own deadline, as above)."""
    shopper = Shopper(app.test_client(), f"user_id abandoned-{uuid.uuid4().hex}")
    ok(shopper.add("3", 4))

    def said() -> dict[str, str]:
        """The headers, the deadline taken now (each request's own: on a loaded machine the first request's time
        would push a deadline "just past" beyond the hosts' tolerance by the second one)."""
        headers = {**shopper.headers, "X-Request-Id": "abandoned-1"}
        if isinstance(stops, float):
            headers["X-Request-Deadline"] = str(int((time.time() + stops) * 1000))
        elif stops is not None:
            headers["X-Request-Deadline"] = stops
        return headers

    recipe = shopper.client.get("/api/v1/recipes/1", headers=said())
    moved = shopper.client.get("/api/v1/basket?store_id=1002", headers=said())
    if stops == -0.05:  # served; the move, a write, has no time left of its own (the test above)
        assert recipe.status_code == 200 and moved.status_code == 503
        assert "stopped waiting" not in moved.get_json()["detail"]
        return
    if stops != -2.0:
        assert recipe.status_code == 200 and moved.status_code == 200
        return
    for answer in (recipe, moved):
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "1", answer.get_json()
        assert answer.headers["X-Request-Id"] == "abandoned-1"
        assert answer.get_json()["detail"] == (
            "The client stopped waiting for this request before it was read; nothing was done."
        )
    assert shopper.client.get("/api/v1/basket", headers=shopper.headers).get_json()["store_id"] == "1001"


def test_a_write_stalled_after_its_work_is_not_committed_late(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker stalled between the write's work and its commit (stopped, starved of CPU): the deadline is checked
    last, just before the commit, so the write is rolled back rather than committed after its client gave up."""
    shopper = Shopper(app.test_client(), f"user_id stalled-{uuid.uuid4().hex}")
    ok(shopper.add("3", 4))
    monkeypatch.setitem(app.config, "WRITE_DEADLINE_SECONDS", 0.5)
    record = idempotency.record

    def stalled(*args: Any, **kwargs: Any) -> None:
        record(*args, **kwargs)
        time.sleep(1.0)  # the stall: twice the deadline, after the outcome is recorded

    monkeypatch.setattr(idempotency, "record", stalled)
    late = keyed(shopper, new_key()).add("1", 4)
    monkeypatch.undo()
    assert late.status_code == 503 and late.headers["Retry-After"] == "1"
    assert recipes_of(shopper) == ["3"]

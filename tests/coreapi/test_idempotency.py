"""``Idempotency-Key`` on the basket writes: a retried write (prerender answered 504 while coreapi
went on and committed) applies once, and answers what the first attempt answered.

Concurrent requests with one key are in ``test_concurrency.py``.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select, update
from werkzeug.test import TestResponse

from coreapi.extensions import db
from coreapi.models import Basket, IdempotencyKey
from coreapi.services import baskets, idempotency

from .test_baskets import NOPERS_TOKEN, ROUTES, Shopper, call, ok

KEY = "Idempotency-Key"
WRITES = [route for route in ROUTES if route[:2] != ("get", "/api/v1/basket?store_id=1001")]


def new_key() -> str:
    return f"key-{uuid.uuid4().hex}"


def keyed(shopper: Shopper, key: str) -> Shopper:
    return shopper.with_headers({KEY: key})


def same_answer(replayed: TestResponse, first: TestResponse) -> None:
    assert (replayed.status_code, replayed.json) == (first.status_code, first.json)
    assert replayed.mimetype == first.mimetype
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers


@pytest.fixture
def shopper(client: FlaskClient) -> Shopper:
    return Shopper(client, f"user_id keyed-{uuid.uuid4().hex}")


# --- the header ----------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
@pytest.mark.parametrize("key", ["", "with space", "k" * 129, "clé", "tab\tkey", "\x7f"])
def test_a_malformed_key_is_400(client: FlaskClient, method: str, path: str, body: Any, key: str) -> None:
    headers = {"Authorization": "user_id u-key", "Supplier-Token": "demo-retailer-token", KEY: key}
    response = call(client, method, path, body, **headers)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert list(response.json["errors"]) == ["headers"]
    assert list(response.json["errors"]["headers"]) == [KEY]


def test_the_longest_key_and_every_printable_character_are_accepted(shopper: Shopper) -> None:
    printable = "".join(chr(code) for code in range(0x21, 0x7F))
    for key in ("k" * 128, printable[:128], printable[128:] or "!"):
        ok(keyed(shopper, key).add("1", 4))


def test_reads_ignore_the_key(shopper: Shopper) -> None:
    response = shopper.client.get("/api/v1/basket?store_id=1001", headers={**shopper.headers, KEY: "with space"})
    assert response.status_code == 200


# --- one write, once -----------------------------------------------------------------------

Scenario = tuple[
    Callable[[Shopper, str], None],  # setup
    Callable[[Shopper, str], TestResponse],  # the keyed write
    Callable[[Shopper, str], None],  # another write in between, without key
]


_first_totals: dict[str, float] = {}


def _confirm(shopper: Shopper, scenario_id: str) -> TestResponse:
    """Confirm with the total of the first attempt (a retry sends the same body)."""
    return shopper.confirm(total=_first_totals.setdefault(scenario_id, shopper.basket()["total"]))


def _merge_setup(shopper: Shopper, visitor_id: str) -> None:
    ok(Shopper(shopper.client, f"authless_id {visitor_id}").add("1", 4))


def _merge_between(shopper: Shopper, visitor_id: str) -> None:
    ok(Shopper(shopper.client, f"authless_id {visitor_id}").add("2", 4))


SCENARIOS: dict[str, Scenario] = {
    "add": (
        lambda s, v: None,
        lambda s, v: s.add("1", 4),
        lambda s, v: ok(s.rescale("1", 8)) and None,
    ),
    "rescale": (
        lambda s, v: ok(s.add("1", 4)) and None,
        lambda s, v: s.rescale("1", 8),
        lambda s, v: ok(s.rescale("1", 2)) and None,
    ),
    "remove": (
        lambda s, v: ok(s.add("1", 4)) and ok(s.add("2", 4)) and None,
        lambda s, v: s.remove("2"),
        lambda s, v: ok(s.add("2", 4)) and None,
    ),
    "set-line": (
        lambda s, v: ok(s.add("1", 4)) and None,
        lambda s, v: s.set_line("1", "thon", "100153", 3),
        lambda s, v: ok(s.set_line("1", "thon", "100153", 5)) and None,
    ),
    "reconcile": (
        lambda s, v: ok(s.add("1", 4)) and None,
        lambda s, v: s.reconcile({}),
        lambda s, v: ok(s.add("1", 4)) and None,
    ),
    "confirm": (
        lambda s, v: ok(s.add("1", 4)) and None,
        _confirm,
        lambda s, v: ok(s.add("2", 4)) and None,
    ),
    "merge": (_merge_setup, lambda s, v: s.merge(v), _merge_between),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_replayed_key_applies_once_and_answers_the_same(app: Flask, shopper: Shopper, name: str) -> None:
    """The retry comes after the basket changed again: it neither re-applies the write nor answers
    about the basket as it is now, but answers exactly what the first attempt answered."""
    setup, write, between = SCENARIOS[name]
    visitor_id = f"visitor-{uuid.uuid4().hex}"
    key = new_key()
    setup(shopper, visitor_id)
    first = write(keyed(shopper, key), visitor_id)
    assert first.status_code == 200, first.json
    between(shopper, visitor_id)
    now = shopper.basket()
    visitor_now = Shopper(shopper.client, f"authless_id {visitor_id}").basket()

    for _ in range(2):
        same_answer(write(keyed(shopper, key), visitor_id), first)
    assert shopper.basket() == now
    assert Shopper(shopper.client, f"authless_id {visitor_id}").basket() == visitor_now


def test_a_confirmation_retried_with_its_key_confirms_once(app: Flask, shopper: Shopper) -> None:
    """Without an order id a second confirmation would confirm the next basket: the key stops it."""
    key = new_key()
    total = ok(shopper.add("1", 4))["basket"]["total"]
    first = ok(keyed(shopper, key).confirm(total=total))
    assert first["confirmed"] is True
    ok(shopper.add("2", 4))
    assert ok(keyed(shopper, key).confirm(total=total)) == first
    identity = shopper.headers["Authorization"].split()[1]
    with app.app_context():
        statuses = db.session.scalars(select(Basket.status).where(Basket.identity_id == identity)).all()
    assert sorted(statuses) == ["confirmed", "open"]


def test_a_key_used_for_another_request_is_422(shopper: Shopper) -> None:
    key = new_key()
    ok(keyed(shopper, key).add("1", 4))
    before = shopper.basket()
    other_store = Shopper(shopper.client, shopper.headers["Authorization"], store_id="1002").with_headers({KEY: key})
    for response in (
        keyed(shopper, key).add("2", 4),  # another body
        keyed(shopper, key).add("1", 5),
        keyed(shopper, key).rescale("1", 4),  # another method and path
        keyed(shopper, key).remove("1"),
        other_store.remove("1"),  # another query
        keyed(shopper, key).confirm(total=before["total"]),
    ):
        assert response.status_code == 422, response.json
        assert response.mimetype == "application/problem+json"
        assert list(response.json["errors"]["headers"]) == [KEY]
    assert shopper.basket() == before


def test_the_body_is_compared_as_json(shopper: Shopper) -> None:
    """The same JSON written otherwise (key order, spaces) is the same request."""
    key = new_key()
    headers = {**shopper.headers, KEY: key, "Content-Type": "application/json"}
    first = shopper.client.post(
        "/api/v1/basket/recipes", data='{"recipe_id": "1", "guests": 4, "store_id": "1001"}', headers=headers
    )
    assert first.status_code == 200
    again = shopper.client.post(
        "/api/v1/basket/recipes", data='{"store_id":"1001","guests":4,"recipe_id":"1"}', headers=headers
    )
    same_answer(again, first)


def test_keys_belong_to_a_supplier_and_an_identity(client: FlaskClient, shopper: Shopper) -> None:
    key = new_key()
    ok(keyed(shopper, key).add("1", 4))
    someone_else = Shopper(client, f"user_id other-{uuid.uuid4().hex}").with_headers({KEY: key})
    other_supplier = Shopper(client, shopper.headers["Authorization"], supplier_token=NOPERS_TOKEN)
    for other in (someone_else, other_supplier.with_headers({KEY: key})):
        answer = other.add("2", 4)
        assert ok(answer)["basket"]["recipes"][0]["recipe_id"] == "2"
        assert "Idempotent-Replayed" not in answer.headers
    assert [e["recipe_id"] for e in shopper.basket()["recipes"]] == ["1"]


# --- what is stored ------------------------------------------------------------------------


def test_a_refused_write_is_stored_too(shopper: Shopper) -> None:
    """404 (not in the basket) and 409 (wrong total) answer the same on a retry, even once the
    basket would take the write."""
    remove_key, confirm_key = new_key(), new_key()
    ok(shopper.add("1", 4))
    refused = keyed(shopper, remove_key).remove("2")
    assert refused.status_code == 404
    wrong_total = keyed(shopper, confirm_key).confirm(total=0.5)
    assert wrong_total.status_code == 409
    ok(shopper.add("2", 4))
    ok(shopper.rescale("1", 1))
    same_answer(keyed(shopper, remove_key).remove("2"), refused)
    same_answer(keyed(shopper, confirm_key).confirm(total=0.5), wrong_total)
    assert [e["recipe_id"] for e in shopper.basket()["recipes"]] == ["1", "2"]


def test_invalid_requests_and_server_errors_spend_no_key(shopper: Shopper, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 400 on the arguments or a 500 changed nothing and stored nothing: the key is still free."""
    key = new_key()
    assert keyed(shopper, key).add("1", 0).status_code == 400
    answer = keyed(shopper, key).add("1", 4)
    assert ok(answer)["basket"]["recipe_count"] == 1
    assert "Idempotent-Replayed" not in answer.headers

    other = new_key()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the answer could not be built")

    monkeypatch.setattr(baskets, "_view", broken)
    assert keyed(shopper, other).add("2", 4).status_code == 500
    monkeypatch.undo()
    answer = keyed(shopper, other).add("2", 4)
    assert ok(answer)["basket"]["recipe_count"] == 2
    assert "Idempotent-Replayed" not in answer.headers


def test_the_outcome_is_stored_in_the_writes_transaction(
    app: Flask, shopper: Shopper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When storing the outcome fails, the write is undone with it: never applied without its key."""
    key = new_key()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the outcome could not be stored")

    monkeypatch.setattr(idempotency, "record", broken)
    assert keyed(shopper, key).add("1", 4).status_code == 500
    monkeypatch.undo()
    assert shopper.basket()["recipes"] == []
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(IdempotencyKey).where(IdempotencyKey.key == key)) == 0


# --- in progress, and kept for a day -------------------------------------------------------


def test_a_key_whose_first_request_is_still_running_is_409(
    app: Flask, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL, a retry that finds the first attempt still running waits a moment for it
    (IDEMPOTENCY_WAIT_SECONDS), then answers 409 rather than hang; once the first is done, the
    retry answers its outcome. (SQLite has one writer at a time: the retry waits for the
    database's write lock, as every write does.)"""
    if backend.name != "postgresql":
        pytest.skip("SQLite serialises writers itself")
    monkeypatch.setitem(app.config, "IDEMPOTENCY_WAIT_SECONDS", 0.2)
    authorization = f"user_id slow-{uuid.uuid4().hex}"
    key = new_key()
    locked, release = threading.Event(), threading.Event()
    lock_open_basket = baskets._lock_open_basket

    def slow(*args: Any, **kwargs: Any) -> Any:
        basket = lock_open_basket(*args, **kwargs)
        if threading.current_thread().name == "first":
            locked.set()
            assert release.wait(timeout=30)
        return basket

    monkeypatch.setattr(baskets, "_lock_open_basket", slow)
    answers: dict[str, TestResponse] = {}

    def first() -> None:
        answers["first"] = Shopper(app.test_client(), authorization).with_headers({KEY: key}).add("1", 4)

    thread = threading.Thread(target=first, name="first")
    thread.start()
    try:
        assert locked.wait(timeout=30)
        retry = Shopper(app.test_client(), authorization).with_headers({KEY: key}).add("1", 4)
        assert retry.status_code == 409
        assert retry.mimetype == "application/problem+json"
        assert "in progress" in retry.json["detail"]
        assert retry.headers["Retry-After"] == "1"
    finally:
        release.set()
        thread.join(timeout=60)
    monkeypatch.undo()
    same_answer(Shopper(app.test_client(), authorization).with_headers({KEY: key}).add("1", 4), answers["first"])


def test_outcomes_are_kept_a_day_then_pruned(app: Flask, shopper: Shopper) -> None:
    """Keyed writes prune the outcomes older than IDEMPOTENCY_RETENTION_SECONDS now and then
    (every IDEMPOTENCY_PRUNE_INTERVAL_SECONDS per process); a pruned key is free again."""
    old, recent = new_key(), new_key()
    ok(keyed(shopper, old).add("1", 4))
    ok(keyed(shopper, recent).add("2", 4))
    now = dt.datetime.now(dt.UTC)
    with app.app_context():
        for key, age in ((old, dt.timedelta(hours=24, minutes=1)), (recent, dt.timedelta(hours=23, minutes=59))):
            db.session.execute(update(IdempotencyKey).where(IdempotencyKey.key == key).values(created_at=now - age))
        db.session.commit()

    app.extensions[idempotency.PRUNED_AT] = None  # as if this process had never pruned
    ok(keyed(shopper, new_key()).add("3", 4))
    with app.app_context():
        kept = set(db.session.scalars(select(IdempotencyKey.key).where(IdempotencyKey.key.in_([old, recent]))))
    assert kept == {recent}
    assert "Idempotent-Replayed" in keyed(shopper, recent).add("2", 4).headers
    answer = keyed(shopper, old).add("1", 4)
    assert ok(answer) and "Idempotent-Replayed" not in answer.headers


def test_pruning_is_not_run_on_every_write(app: Flask, shopper: Shopper) -> None:
    old = new_key()
    ok(keyed(shopper, old).add("1", 4))
    with app.app_context():
        db.session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.key == old)
            .values(created_at=dt.datetime.now(dt.UTC) - dt.timedelta(days=2))
        )
        db.session.commit()
    app.extensions[idempotency.PRUNED_AT] = None
    ok(keyed(shopper, new_key()).add("2", 4))  # prunes
    ok(keyed(shopper, old).add("1", 4))  # stored again, now
    with app.app_context():
        db.session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.key == old)
            .values(created_at=dt.datetime.now(dt.UTC) - dt.timedelta(days=2))
        )
        db.session.commit()
    ok(keyed(shopper, new_key()).add("3", 4))  # within the interval: no pruning
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(IdempotencyKey).where(IdempotencyKey.key == old))
        db.session.execute(delete(IdempotencyKey).where(IdempotencyKey.key == old))
        db.session.commit()


def test_pruning_deletes_only_what_is_older(app: Flask, shopper: Shopper) -> None:
    keys = [new_key(), new_key()]
    for key, recipe_id in zip(keys, ("1", "2"), strict=True):
        ok(keyed(shopper, key).add(recipe_id, 4))
    with app.app_context():
        mine = IdempotencyKey.key.in_(keys)
        created = sorted(db.session.scalars(select(IdempotencyKey.created_at).where(mine)))
        assert idempotency.prune(db.session(), created[0] - dt.timedelta(days=3650)) == 0
        # Everything stored before the second key's row (the first one among them) goes.
        assert idempotency.prune(db.session(), created[1]) >= 1
        assert db.session.scalars(select(IdempotencyKey.key).where(mine)).all() == [keys[1]]

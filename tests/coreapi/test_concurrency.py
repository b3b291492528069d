"""Concurrent writes through real threads, each with its own test client (so its own session and
connection): no lost update, no duplicate row, no error.

What holds on each backend: on PostgreSQL, a basket write locks the identity's open basket row
(``SELECT ... FOR UPDATE``; a basket two writers create at once is settled by the one-open-basket
unique index and ``ON CONFLICT DO NOTHING``), and likes are ``INSERT ... ON CONFLICT DO NOTHING``.
On SQLite the database has one writer at a time: a write transaction takes the write lock with its
first statement and the others wait (the driver's busy timeout). The same tests run on both; the
barriers hold every thread just before its write, so all the transactions are open at once
whatever the scheduling.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from flask import Flask
from sqlalchemy import func, select

from coreapi.extensions import db
from coreapi.models import Basket, BasketEntry, IdempotencyKey, Like
from coreapi.services import baskets, idempotency, likes

from .test_baskets import Shopper, basket_products, entry, expected_lines, ok, products_of

THREADS = 8
RETAILER = {"Supplier-Token": "demo-retailer-token"}
T = TypeVar("T")


def at_once(calls: list[Callable[[], T]]) -> list[T]:
    """Run each call in a thread of its own, all started together; their results, in order."""
    results: list[Any] = [None] * len(calls)
    failures: list[BaseException] = []
    start = threading.Barrier(len(calls), timeout=30)

    def run(index: int, call: Callable[[], T]) -> None:
        try:
            start.wait()
            results[index] = call()
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a writer never finished"
    assert not failures, failures
    return results


def meet_before(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, parties: int = THREADS) -> None:
    """``module.name`` waits, the first time a thread calls it, until all ``parties`` threads have come."""
    original = getattr(module, name)
    barrier = threading.Barrier(parties, timeout=30)
    met = threading.local()

    def meet_then_call(*args: Any, **kwargs: Any) -> Any:
        if not getattr(met, "done", False):
            met.done = True
            barrier.wait()
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, meet_then_call)


def summed_changes(answers: list[Any]) -> Counter[str]:
    """What the retailer cart holds after applying every answer's ``changes``, in any order."""
    cart: Counter[str] = Counter()
    for answer in answers:
        for change in ok(answer)["changes"]:
            cart[change["id"]] += change["quantity"]
    return +cart


def count(app: Flask, *where: Any, of: Any) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(of).where(*where))


# --- baskets -------------------------------------------------------------------------------


@pytest.mark.parametrize("existing", [False, True], ids=["new-basket", "existing-basket"])
def test_eight_tabs_adding_one_recipe_leave_one_entry(
    app: Flask, seed, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    """Eight writers add the same recipe, each for its own guests: one open basket, one entry
    whose lines fit its guests, and the changes the answers sent add up to the basket."""
    identity = f"tabs-{uuid.uuid4().hex}"
    authorization = f"authless_id {identity}"
    if existing:
        ok(Shopper(app.test_client(), authorization).add("2", 4))
    meet_before(monkeypatch, baskets, "_lock_open_basket")
    guests = list(range(2, 2 + THREADS))
    answers = at_once([lambda g=g: Shopper(app.test_client(), authorization).add("1", g) for g in guests])
    monkeypatch.undo()

    assert [answer.status_code for answer in answers] == [200] * THREADS
    basket = Shopper(app.test_client(), authorization).basket()
    added = entry(basket, "1")
    assert added["guests"] in guests
    lines = [(ln["ingredient_id"], ln["product_id"], ln["quantity"]) for ln in added["lines"]]
    assert lines == expected_lines(seed, "1", "1001", added["guests"])
    # Applied in any order, the answers' changes bring a cart to exactly the recipe's products.
    assert summed_changes(answers) == products_of(lines)
    before = products_of(expected_lines(seed, "2", "1001", 4)) if existing else Counter()
    assert basket_products(basket) == before + products_of(lines)
    open_basket = (Basket.identity_id == identity, Basket.status == "open")
    assert count(app, *open_basket, of=Basket) == 1
    entries = BasketEntry.basket_id.in_(select(Basket.id).where(*open_basket))
    assert count(app, entries, of=BasketEntry) == (2 if existing else 1)


def test_eight_recipes_added_at_once_all_land(app: Flask, seed, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight writers add eight recipes to one new basket: none lost, each at its own position."""
    authorization = f"user_id tabs-{uuid.uuid4().hex}"
    recipe_ids = sorted(seed.recipes, key=int)[:THREADS]
    meet_before(monkeypatch, baskets, "_lock_open_basket")
    answers = at_once([lambda r=r: Shopper(app.test_client(), authorization).add(r, 4) for r in recipe_ids])
    monkeypatch.undo()

    assert [answer.status_code for answer in answers] == [200] * THREADS
    basket = Shopper(app.test_client(), authorization).basket()
    assert sorted(e["recipe_id"] for e in basket["recipes"]) == recipe_ids
    held: Counter[str] = Counter()
    for recipe_id in recipe_ids:
        held += products_of(expected_lines(seed, recipe_id, "1001", 4))
    assert basket_products(basket) == held
    assert summed_changes(answers) == held
    # The order of the answers' baskets is the order of commit: each one more recipe.
    assert sorted(ok(a)["basket"]["recipe_count"] for a in answers) == list(range(1, 9))


def test_concurrent_confirmations_confirm_once(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight confirmations of one basket under one order id: one confirms, the others see it
    done; eight without an order id: one confirms, the others find no basket left."""
    for order_id, refusal in (("order-at-once", "already-confirmed"), (None, "empty")):
        identity = f"buyer-{uuid.uuid4().hex}"
        shopper = Shopper(app.test_client(), f"user_id {identity}")
        total = ok(shopper.add("1", 4))["basket"]["total"]
        meet_before(monkeypatch, baskets, "_lock_open_basket")
        answers = at_once(
            [
                lambda identity=identity, order_id=order_id, total=total: Shopper(
                    app.test_client(), f"user_id {identity}"
                ).confirm(total, order_id=order_id)
                for _ in range(THREADS)
            ]
        )
        monkeypatch.undo()

        confirmations = [ok(answer) for answer in answers]
        confirmed = [c for c in confirmations if c["confirmed"]]
        assert len(confirmed) == 1, confirmations
        assert [c for c in confirmations if not c["confirmed"]] == [{"confirmed": False, "reason": refusal}] * (
            THREADS - 1
        )
        mine = Basket.identity_id == identity
        assert count(app, mine, Basket.status == "confirmed", of=Basket) == 1
        assert count(app, mine, Basket.status == "open", of=Basket) == 0


def test_concurrent_merges_move_the_visitors_entries_once(app: Flask, seed, monkeypatch: pytest.MonkeyPatch) -> None:
    authless_id = f"visitor-{uuid.uuid4().hex}"
    visitor = Shopper(app.test_client(), f"authless_id {authless_id}")
    ok(visitor.add("1", 4))
    ok(visitor.add("2", 2))
    user_id = f"member-{uuid.uuid4().hex}"
    meet_before(monkeypatch, baskets, "_lock_open_basket")
    answers = at_once(
        [lambda: Shopper(app.test_client(), f"user_id {user_id}").merge(authless_id) for _ in range(THREADS)]
    )
    monkeypatch.undo()

    basket = Shopper(app.test_client(), f"user_id {user_id}").basket()
    assert [e["recipe_id"] for e in basket["recipes"]] == ["1", "2"]
    held = products_of(expected_lines(seed, "1", "1001", 4)) + products_of(expected_lines(seed, "2", "1001", 2))
    assert basket_products(basket) == held
    assert summed_changes(answers) == held
    assert visitor.basket()["recipes"] == []


# --- one idempotency key, many requests ---------------------------------------------------


@pytest.mark.parametrize("order_id", [None, "order-keyed"], ids=["without-order-id", "with-order-id"])
def test_concurrent_requests_with_one_key_apply_once(
    app: Flask, monkeypatch: pytest.MonkeyPatch, order_id: str | None
) -> None:
    """Eight retries of one confirmation, with one Idempotency-Key, all at once: one confirms, the
    others answer its outcome (never "empty" or "already-confirmed": the write is the same one),
    or 409 while it is still in progress. The key's row is claimed first, and the database's unique
    key settles who claims it."""
    identity = f"keyed-{uuid.uuid4().hex}"
    authorization = f"user_id {identity}"
    total = ok(Shopper(app.test_client(), authorization).add("1", 4))["basket"]["total"]
    key = f"key-{uuid.uuid4().hex}"
    meet_before(monkeypatch, idempotency, "claim")
    answers = at_once(
        [
            lambda: (
                Shopper(app.test_client(), authorization)
                .with_headers({"Idempotency-Key": key})
                .confirm(total, order_id=order_id)
            )
            for _ in range(THREADS)
        ]
    )
    monkeypatch.undo()

    done = [answer for answer in answers if answer.status_code == 200]
    in_progress = [answer for answer in answers if answer.status_code == 409]
    assert len(done) + len(in_progress) == THREADS, [(a.status_code, a.json) for a in answers]
    assert all("in progress" in answer.json["detail"] for answer in in_progress)
    assert [answer.headers.get("Idempotent-Replayed") for answer in done].count(None) == 1
    (outcome,) = {tuple(sorted(answer.json.items())) for answer in done}
    assert dict(outcome)["confirmed"] is True
    mine = Basket.identity_id == identity
    assert count(app, mine, Basket.status == "confirmed", of=Basket) == 1
    assert count(app, mine, Basket.status == "open", of=Basket) == 0
    assert count(app, IdempotencyKey.key == key, of=IdempotencyKey) == 1


def test_concurrent_additions_with_one_key_add_once(app: Flask, seed, monkeypatch: pytest.MonkeyPatch) -> None:
    authorization = f"authless_id keyed-{uuid.uuid4().hex}"
    key = f"key-{uuid.uuid4().hex}"
    meet_before(monkeypatch, idempotency, "claim")
    answers = at_once(
        [
            lambda: Shopper(app.test_client(), authorization).with_headers({"Idempotency-Key": key}).add("1", 4)
            for _ in range(THREADS)
        ]
    )
    monkeypatch.undo()
    done = [answer for answer in answers if answer.status_code == 200]
    assert len(done) + sum(answer.status_code == 409 for answer in answers) == THREADS
    assert all(answer.json == done[0].json for answer in done)
    assert [answer.headers.get("Idempotent-Replayed") for answer in done].count(None) == 1
    lines = expected_lines(seed, "1", "1001", 4)
    assert basket_products(done[0].json["basket"]) == products_of(lines)
    basket = Shopper(app.test_client(), authorization).basket()
    assert basket_products(basket) == products_of(lines)


# --- likes and events ----------------------------------------------------------------------


def test_concurrent_likes_then_unlikes_keep_one_row_then_none(
    app: Flask, seed, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = {"Authorization": f"user_id {user_id}", **RETAILER}
    recipe_id = next(iter(seed.recipes))
    mine = (Like.user_id == user_id, Like.recipe_id == int(recipe_id))
    for method, rows in (("put", 1), ("delete", 0)):
        meet_before(monkeypatch, likes, "recipe_exists")
        answers = at_once(
            [
                lambda method=method: getattr(app.test_client(), method)(f"/api/v1/likes/{recipe_id}", headers=headers)
                for _ in range(THREADS)
            ]
        )
        monkeypatch.undo()
        assert [answer.status_code for answer in answers] == [204] * THREADS
        assert count(app, *mine, of=Like) == rows


def test_concurrent_likes_of_different_recipes_all_land(
    app: Flask, seed, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    headers = {"Authorization": f"user_id {user_id}", **RETAILER}
    recipe_ids = sorted(seed.recipes, key=int)[:THREADS]
    meet_before(monkeypatch, likes, "recipe_exists")
    answers = at_once([lambda r=r: app.test_client().put(f"/api/v1/likes/{r}", headers=headers) for r in recipe_ids])
    monkeypatch.undo()
    assert [answer.status_code for answer in answers] == [204] * THREADS
    listed = app.test_client().get(f"/api/v1/likes?recipe_ids={','.join(recipe_ids)}", headers=headers)
    assert listed.json == {"data": recipe_ids}


def test_concurrent_events_are_all_stored(app: Flask) -> None:
    session_id = f"session-{uuid.uuid4().hex}"
    headers = {
        "Session-Id": session_id,
        "Authorization": "authless_id v-concurrent",
        "Supplier-Token": "demo-retailer-token",
    }

    def name(thread: int, n: int) -> str:
        return f"thread-{'abcdefghij'[thread]}.event-{'abcdefghij'[n]}"

    def send(thread: int) -> Any:
        events = [{"name": name(thread, n)} for n in range(5)]
        return app.test_client().post("/api/v1/events", json={"events": events}, headers=headers)

    answers = at_once([lambda t=t: send(t) for t in range(THREADS)])
    assert [answer.status_code for answer in answers] == [202] * THREADS
    listed = app.test_client().get(f"/api/v1/events?session_id={session_id}", headers=headers)
    names = [event["name"] for event in listed.json["data"]]
    assert sorted(names) == sorted(name(t, n) for t in range(THREADS) for n in range(5))


def test_concurrent_retries_of_one_batch_store_it_once(app: Flask) -> None:
    """A batch whose answer was lost, sent again by several retries at once: each id stored once, each
    retry answered 202 (the unique constraint settles the race, not a read before the insert)."""
    session_id = f"session-{uuid.uuid4().hex}"
    headers = {"Session-Id": session_id, "Supplier-Token": "demo-retailer-token"}
    batch = {"events": [{"id": f"retried-{session_id}-{n}", "name": "recipe.show"} for n in range(5)]}
    answers = at_once([lambda: app.test_client().post("/api/v1/events", json=batch, headers=headers)] * THREADS)
    assert [answer.status_code for answer in answers] == [202] * THREADS
    assert sum(answer.json["stored"] - answer.json["duplicates"] for answer in answers) == 5
    listed = app.test_client().get(f"/api/v1/events?session_id={session_id}", headers=headers)
    assert sorted(event["id"] for event in listed.json["data"]) == sorted(e["id"] for e in batch["events"])

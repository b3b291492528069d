"""The gateway's session pool (prerender/gateway/sessions.py): a session serves one call at a time and is
reused by the next, whether calls run on threads (gthread workers) or greenlets (gevent workers); a forked
process never uses its parent's. (The demo shop's own sessions: tests/shop/test_sessions.py.)"""

from __future__ import annotations

import os
import threading

import gevent
import pytest
import requests

from prerender.gateway.sessions import SessionPool


@pytest.fixture
def counting() -> tuple[list[requests.Session], SessionPool]:
    """A pool whose factory counts the sessions it makes."""
    made: list[requests.Session] = []

    def factory() -> requests.Session:
        made.append(requests.Session())
        return made[-1]

    return made, SessionPool(factory=factory)


def test_a_session_is_made_on_first_use_and_reused_by_the_next_call(counting) -> None:
    made, pool = counting
    assert made == []
    with pool.borrow() as first:
        pass
    with pool.borrow() as second:
        pass
    assert first is second is made[0] and len(made) == 1 and len(pool) == 1


def test_calls_at_the_same_time_never_share_a_session(counting) -> None:
    made, pool = counting
    with pool.borrow() as outer, pool.borrow() as inner:
        assert outer is not inner
    assert len(made) == 2 and len(pool) == 2


def test_threads_borrow_from_the_same_pool(counting) -> None:
    made, pool = counting
    with pool.borrow() as mine:
        pass
    theirs: list[requests.Session] = []

    def call() -> None:
        with pool.borrow() as session:
            theirs.append(session)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join()
    assert theirs == [mine] and len(made) == 1


def test_greenlets_reuse_sessions_across_requests(counting) -> None:
    """Under gevent, each request is a new greenlet: a per-greenlet session would be a new connection per
    request. Calls made one after another in distinct greenlets share one session."""
    made, pool = counting

    def call() -> None:
        with pool.borrow():
            gevent.sleep(0)

    for _ in range(5):
        gevent.spawn(call).join()
    assert len(made) == 1
    gevent.joinall([gevent.spawn(call) for _ in range(3)])  # three at once: three sessions
    assert len(made) == 3


def test_a_forked_process_makes_its_own_session(counting, monkeypatch: pytest.MonkeyPatch) -> None:
    made, pool = counting
    with pool.borrow() as before:
        pass
    parent = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # the pool as a forked child finds it
    with pool.borrow() as after:
        pass
    assert after is not before and len(made) == 2 and len(pool) == 1

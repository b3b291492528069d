"""The transactions of the shopper's writes (baskets, menus, preferences), and their ``Idempotency-Key``.

Each write route is one transaction, committed once its answer is built. With an
``Idempotency-Key`` it is applied once per key: ``idempotent_writes`` makes the decorator of an
area's writes, given the exception its service raises for a refused write and the problem answer of
that refusal (a refusal is stored with the key, like a success), and the status of a success (``200``,
or ``201`` for a write that creates something).
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, ParamSpec, TypeVar

from flask import Flask, Response, current_app, g, json, request
from flask.typing import ResponseReturnValue
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from coreapi.context import current_identity, current_supplier
from coreapi.extensions import db
from coreapi.services import idempotency
from coreapi.services.connection_watchdog import stop_watching, watch_this_context
from coreapi.services.database_errors import RETRY_SOON, driver_message
from coreapi.services.write_deadline import WriteBusy, WriteDeadline, WriteTooLate, cut_short, disarm
from plumbing.log_text import clipped
from plumbing.problems import (
    PROBLEM_MIMETYPE,
    BadRequest,
    Conflict,
    Problem,
    ServiceUnavailable,
    UnprocessableContent,
    field_error,
    problem_response,
)

P = ParamSpec("P")
E = TypeVar("E", bound=Exception)
T = TypeVar("T")
log = logging.getLogger(__name__)
# The database's failures of any request, read or write (the handlers below are the app's, not this blueprint's).
DATABASE_LOG = logging.getLogger("coreapi.database")

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
_ARRIVED = "coreapi_arrived"  # flask.g: when the request arrived (time.monotonic())
_WATCHING = "coreapi_watching"  # flask.g: what ends the watch of the request's connections
# When the client stops waiting for the answer (prerender sends it within a request's budget): Unix time in
# milliseconds. A write keeps a margin before it for its answer to travel back (and the hosts' clocks to differ).
CLIENT_DEADLINE_HEADER = "X-Request-Deadline"
CLIENT_DEADLINE = re.compile(r"[0-9]{1,15}")
ANSWER_MARGIN_SECONDS = 0.25
# How long after its client's deadline a request is refused unread: past it by more than hosts kept in step by NTP
# differ (milliseconds), so that a call its client still waits for is not refused. Small: on a busy day most
# abandoned calls are read less than half a second late (docs/decisions.md measures 0, 0.1 and 0.5 s).
ABANDONED_AFTER_SECONDS = 0.1


def note_arrival() -> None:
    """before_request of the app, before any blueprint's (the supplier's lookup takes a connection): a write's
    deadline counts from here, and the connections the request takes are held for ``DATABASE_HOLD_SECONDS`` at most
    (coreapi/services/connection_watchdog.py)."""
    setattr(g, _ARRIVED, time.monotonic())
    setattr(g, _WATCHING, watch_this_context(g.get("request_id", "-")))


def end_watch(_error: BaseException | None) -> None:
    """teardown_request of the app: the request's session is closed while its connection is watched (a read leaves
    its transaction open until then, and the database may stop answering after its last statement): a cut of the
    closing rollback is one log line, where it was a 500 after the answer was made. Then the request's later
    connections (none) are not watched; the watch of those it held ended when they went back to the pool."""
    try:
        db.session.close()
    except SQLAlchemyError as error:
        DATABASE_LOG.error("closing the request's database session failed: %s", driver_message(error))
    token = g.pop(_WATCHING, None)
    if token is not None:
        stop_watching(token)


def client_stops_waiting() -> float | None:
    """When the request's client stops waiting for the answer (``X-Request-Deadline``, Unix time in seconds), or
    None when it did not say (or said something that is not a time)."""
    said = request.headers.get(CLIENT_DEADLINE_HEADER, "")
    return int(said) / 1000 if CLIENT_DEADLINE.fullmatch(said) else None


def refuse_when_abandoned() -> Response | None:
    """before_request of the app, after ``note_arrival``: a request whose client said it stopped waiting before
    coreapi got to it (``X-Request-Deadline`` passed by more than ``ABANDONED_AFTER_SECONDS``: it waited behind
    others on a busy day) is a 503 at once, nothing done. Its answer would reach nobody; doing its work anyway
    would take the time of requests whose clients still wait, and on a busy day the queue of abandoned work grows
    until every answer is late."""
    stops = client_stops_waiting()
    if stops is None:
        return None
    late = time.time() - stops
    if late <= ABANDONED_AFTER_SECONDS:
        return None
    log.info("refused a request its client stopped waiting for %.3f s ago", late)
    return problem_response(
        503, "The client stopped waiting for this request before it was read; nothing was done.", headers=RETRY_SOON
    )


def pool_exhausted(_error: PoolTimeout) -> Response:
    """No connection of the pool came free within ``DATABASE_POOL_TIMEOUT_SECONDS`` (every one held by a request,
    as when rows stay locked): a 503 at once, nothing done, rather than a wait past what any client waits."""
    return problem_response(503, "The service is busy; nothing was done: retry in a moment.", headers=RETRY_SOON)


def database_unavailable(error: OperationalError) -> Response:
    """The database failed the request (unreachable, a connection lost, a lock or a statement that failed on the
    server's side; a write's own deadline is answered by ``within_deadline``): a 503 to try again, not the 500 of a
    bug, so that the callers' circuit breakers see an upstream that cannot serve now. Whether a write's commit took
    is not known when its connection was lost: the caller sends it again with its key."""
    DATABASE_LOG.error("database error: %s", driver_message(error))
    return problem_response(503, "The database is unavailable; try again in a moment.", headers=RETRY_SOON)


def register_write_deadline(app: Flask) -> None:
    """The request's arrival, from which its write's deadline counts, and the watch of the connections it holds; a
    request that arrives after its client's deadline, finds no free connection, fails in the database or holds a
    connection past ``DATABASE_HOLD_SECONDS`` is a 503 (a read or a write alike)."""
    app.before_request(note_arrival)
    app.before_request(refuse_when_abandoned)
    app.teardown_request(end_watch)
    app.register_error_handler(PoolTimeout, pool_exhausted)
    app.register_error_handler(OperationalError, database_unavailable)


def in_transaction(work: Callable[[], dict[str, Any]], deadline: WriteDeadline) -> dict[str, Any]:
    """``work`` in one transaction, under ``deadline`` (``within_deadline`` disarms it): committed after it answers,
    rolled back when it fails or is late (coreapi/services/write_deadline.py)."""
    session = db.session()
    try:
        deadline.arm()
        body = work()
        deadline.check()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return body


def transactional(view: Callable[P, dict[str, Any]]) -> Callable[P, dict[str, Any]]:
    """A route that may write without being a keyed write (``GET /basket`` moves the basket to the
    store asked, ``GET /menus/current`` creates the menu), within a write's deadline."""

    @functools.wraps(view)
    def run(*args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
        return within_deadline(lambda deadline: in_transaction(lambda: view(*args, **kwargs), deadline))

    return run


def write_deadline() -> WriteDeadline:
    """When a write must be done: ``WRITE_DEADLINE_SECONDS`` after the request's arrival, or sooner when its client
    stops waiting sooner (``X-Request-Deadline``: a request that waited in the socket while every worker was busy
    or stopped arrives late, and must not get the whole time afresh), less the time the answer takes back."""
    own = WriteDeadline.start(float(current_app.config["WRITE_DEADLINE_SECONDS"]), arrived=g.get(_ARRIVED))
    stops = client_stops_waiting()
    if stops is None:
        return own
    client = WriteDeadline.start(stops - time.time() - ANSWER_MARGIN_SECONDS)
    return min(own, client, key=lambda deadline: deadline.ends_at)


def within_deadline(work: Callable[[WriteDeadline], T]) -> T:
    """``work`` given ``WRITE_DEADLINE_SECONDS`` (coreapi/services/write_deadline.py); a write its deadline cut
    short (rolled back) is its problem answer, with ``Retry-After``."""
    deadline = write_deadline()
    try:
        return work(deadline)
    except OperationalError as error:  # rolled back already
        reason = cut_short(error)
        if reason is None:
            raise
        raise not_applied(reason) from error
    except (WriteBusy, WriteTooLate) as reason:
        raise not_applied(reason) from None
    finally:
        disarm()


def idempotency_key() -> str | None:
    """The request's ``Idempotency-Key``; ``400`` when present but not 1 to 128 printable ASCII
    characters without space (an empty one too: a client that sends the header means a key)."""
    value = request.headers.get(IDEMPOTENCY_KEY_HEADER)
    if value is None:
        return None
    if not idempotency.valid_key(value):
        message = "Must be 1 to 128 printable ASCII characters, without spaces."
        raise BadRequest(
            "The request has an invalid header.", errors=field_error("headers", IDEMPOTENCY_KEY_HEADER, message)
        )
    return value


def idempotent_writes(
    refusal: type[E], refused: Callable[[E], Response], *, status: int = HTTPStatus.OK
) -> Callable[[Callable[P, dict[str, Any]]], Callable[P, ResponseReturnValue]]:
    """The decorator of an area's writes: each in one transaction, answering ``status`` when it
    succeeds; with an ``Idempotency-Key``, applied once per key.

    The key's outcome (``coreapi.services.idempotency``) is stored in the transaction of the
    write: a success, or a ``refusal`` of the service, answered by ``refused`` (stored in a transaction
    of its own after the write's rollback). The same key again answers the stored outcome with
    ``Idempotent-Replayed: true``, whatever the shopper's data became meanwhile; for another request
    (method, path, query, body) it is 422; while its first request is still running (past
    ``IDEMPOTENCY_WAIT_SECONDS``), 409. Invalid arguments (400), 401/403 and server errors store
    nothing: the key stays free, as nothing was written.

    Every write has ``WRITE_DEADLINE_SECONDS`` from the request's arrival (coreapi/services/write_deadline.py): one
    that waited that long for a row another transaction holds is a 409, one that took longer a 503, both rolled
    back and with ``Retry-After``: the same request may be sent again, with its key. A refusal is stored after the
    write's rollback within what is left, or not at all (a 503: the retry is refused again, and stored).
    """

    def decorate(view: Callable[P, dict[str, Any]]) -> Callable[P, ResponseReturnValue]:
        @functools.wraps(view)
        def write(*args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
            return within_deadline(lambda deadline: keyed_or_not(deadline, *args, **kwargs))

        def keyed_or_not(deadline: WriteDeadline, *args: P.args, **kwargs: P.kwargs) -> ResponseReturnValue:
            key = idempotency_key()
            if key is None:
                return in_transaction(lambda: view(*args, **kwargs), deadline), int(status)
            scope = idempotency.Scope(current_supplier().id, current_identity(), key)
            fingerprint = idempotency.Fingerprint.of(
                request.method, request.path, request.args.items(multi=True), request.get_data()
            )
            session = db.session()
            try:
                try:
                    answer = _apply_once(
                        scope, fingerprint, lambda: view(*args, **kwargs), refusal, refused, int(status), deadline
                    )
                except idempotency.KeyReused as error:
                    # The detail names no route: prerender passes it on to browsers, which know other paths.
                    log.info("idempotency key reused: stored for %s %s", error.method, clipped(error.path))
                    raise UnprocessableContent(
                        "This Idempotency-Key was used for another request (another route, query or body); "
                        "use a new key for a new request.",
                        errors=field_error("headers", IDEMPOTENCY_KEY_HEADER, "Used for another request."),
                    ) from None
                except idempotency.KeyInProgress:
                    raise Conflict(
                        "A request with this Idempotency-Key is in progress; retry it in a moment.",
                        headers=RETRY_SOON,
                    ) from None
            except BaseException:
                session.rollback()
                raise
            disarm()  # the write is done: pruning has no deadline of it
            _prune_now_and_then()
            return answer

        return write

    return decorate


def not_applied(reason: WriteBusy | WriteTooLate) -> Problem:
    """The answer of a write its deadline cut short: rolled back, to be sent again in a moment."""
    if isinstance(reason, WriteBusy):
        return Conflict(
            "Another change to the same data is still being written; this one was not applied: retry it in a moment.",
            headers=RETRY_SOON,
        )
    return ServiceUnavailable(
        "The request took too long; nothing was changed: retry it in a moment.", headers=RETRY_SOON
    )


def _apply_once(
    scope: idempotency.Scope,
    fingerprint: idempotency.Fingerprint,
    work: Callable[[], dict[str, Any]],
    refusal: type[E],
    refused: Callable[[E], Response],
    status: int,
    deadline: WriteDeadline,
) -> ResponseReturnValue:
    session = db.session()
    wait = float(current_app.config["IDEMPOTENCY_WAIT_SECONDS"])
    stored = idempotency.claim(session, scope, fingerprint, wait_seconds=wait)
    if stored is not None:
        session.rollback()
        return _replay(stored)
    deadline.arm()  # after the claim, which has its own lock wait
    try:
        body = work()
    except refusal as error:
        session.rollback()  # the write, and the claim with it
        answer = refused(error)
        stored = idempotency.claim(session, scope, fingerprint, wait_seconds=wait)
        if stored is not None:  # the same request, retried meanwhile, was stored first
            session.rollback()
            return _replay(stored)
        idempotency.record(session, scope, idempotency.Outcome(answer.status_code, answer.get_json()))
        session.commit()
        return answer
    idempotency.record(session, scope, idempotency.Outcome(status, body))
    deadline.check()  # the last thing before the commit: a write stalled after its work is not committed late
    session.commit()
    return body, status


def _replay(outcome: idempotency.Outcome) -> Response:
    mimetype = PROBLEM_MIMETYPE if outcome.status >= 400 else "application/json"
    response = current_app.response_class(json.dumps(outcome.body), status=outcome.status, mimetype=mimetype)
    response.headers[REPLAYED_HEADER] = "true"
    return response


def _prune_now_and_then() -> None:
    """Forget the outcomes past their retention, now and then (after a keyed write)."""
    try:
        idempotency.prune_now_and_then(
            db.session(),
            current_app.extensions,
            every_seconds=float(current_app.config["IDEMPOTENCY_PRUNE_INTERVAL_SECONDS"]),
            retention_seconds=float(current_app.config["IDEMPOTENCY_RETENTION_SECONDS"]),
        )
    except Exception:  # the write is done: a failed pruning waits for the next one
        db.session.rollback()
        log.warning("Pruning old idempotency keys failed", exc_info=True)

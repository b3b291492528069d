"""Analytics events sent by browsers."""

from typing import Any

from flask import Blueprint

from coreapi.context import calling_supplier, current, current_supplier
from coreapi.extensions import db
from coreapi.schemas.events import EventsArgs, SessionEventsArgs, StoredEventSchema
from coreapi.schemas.parsing import use_args
from coreapi.services import events
from coreapi.services.identity import MAX_ID_LENGTH
from plumbing.problems import BadRequest, field_error

bp = Blueprint("events", __name__, url_prefix="/events")


def _session_id() -> str | None:
    session_id = current().session_id or None
    if session_id is not None and len(session_id) > MAX_ID_LENGTH:
        message = f"Longer than {MAX_ID_LENGTH} characters."
        raise BadRequest(message, errors=field_error("headers", "Session-Id", message))
    return session_id


@bp.post("")
@use_args(EventsArgs(), location="json")
def create(args: dict[str, Any]) -> tuple[dict[str, int], int]:
    """Store events with the session, supplier and identity of the headers, each id once per supplier."""
    supplier = calling_supplier()
    ctx = current()
    session_id = _session_id()
    # `Profiling: false`: the shopper's events are counted, not tied to them, nor to the session that would link
    # them to the same shopper's other events (docs/upstream.md, "Events").
    count = events.store_events(
        db.session(),
        args["events"],
        session_id=session_id if ctx.profiling else None,
        supplier_id=supplier.id if supplier is not None else None,
        identity=ctx.identity if ctx.profiling else None,
    )
    # Every event of the batch is stored, now or by an earlier call with its id; `duplicates`: those earlier.
    return {"stored": count.stored + count.duplicates, "duplicates": count.duplicates}, 202


@bp.get("")
@use_args(SessionEventsArgs(), location="query")
def index(args: dict[str, Any]) -> dict[str, Any]:
    """The calling supplier's events of a session, oldest first (for tests and the demo)."""
    # A session's events name its shopper: only the supplier they were sent for may read them (401 without).
    stored = events.session_events(db.session(), args["session_id"], supplier_id=current_supplier().id)
    return {"data": StoredEventSchema(many=True).dump(stored)}

"""POST /{v}/events: analytics events from the browser SDK, stored upstream."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from prerender.gateway import get_upstream
from prerender.schemas.actions import EventsBody
from prerender.schemas.responses import StoredSchema
from prerender.web.context import current_context
from prerender.web.contract import PASSED_THROUGH, UPSTREAM_FAILURES, Callers, declare, json_answer

bp = Blueprint("events", __name__)


@bp.post("/events")
@declare(
    callers=Callers.BROWSER,
    summary="Store analytics events",
    body=EventsBody(),
    beacon=True,
    body_example={"events": [{"name": "recipe.show", "path": "/", "props": {"recipe_id": "5"}}]},
    answers={202: json_answer(StoredSchema, "Accepted."), **PASSED_THROUGH, **UPSTREAM_FAILURES},
)
def post_events(body: dict[str, Any]) -> ResponseReturnValue:
    """Store a batch of events with the session, supplier and user of the request."""
    ctx = current_context()
    # The shopper's own choice, whatever the supplier's personalization (which only keeps cards the same for all).
    stored = get_upstream().events.store(dataclasses.replace(ctx.upstream, profiling=ctx.profiling), body["events"])
    return {"stored": stored}, 202

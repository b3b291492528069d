"""POST /{v}/events: analytics events from the browser SDK, stored upstream."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue

from plumbing.problems import problem_response
from prerender.gateway import EventQuotaSpent, get_upstream
from prerender.schemas.actions import EventsBody
from prerender.schemas.responses import StoredSchema
from prerender.web.context import current_context
from prerender.web.contract import PASSED_THROUGH, UPSTREAM_FAILURES, Callers, declare, json_answer, problem

bp = Blueprint("events", __name__)


@bp.post("/events")
@declare(
    callers=Callers.BROWSER,
    summary="Store analytics events",
    body=EventsBody(),
    beacon=True,
    body_example={"events": [{"name": "recipe.show", "path": "/", "props": {"recipe_id": "5"}}]},
    answers={
        202: json_answer(StoredSchema, "Accepted."),
        429: problem("The shopper's events of this window are past its quota: none stored (Retry-After)."),
        **PASSED_THROUGH,
        **UPSTREAM_FAILURES,
    },
)
def post_events(body: dict[str, Any]) -> ResponseReturnValue:
    """Store a batch of events with the session, supplier and user of the request."""
    ctx = current_context()
    # The shopper's own choice, whatever the supplier's personalization (which only keeps cards the same for all).
    identity = dataclasses.replace(ctx.upstream, profiling=ctx.profiling)
    try:
        stored = get_upstream().events.store(identity, body["events"])
    except EventQuotaSpent as spent:
        return problem_response(
            429,
            "This shopper's analytics events are past their quota for now; none of these was stored.",
            headers={"Retry-After": str(spent.retry_after)},
        )
    return {"stored": stored}, 202

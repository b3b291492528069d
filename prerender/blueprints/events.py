"""POST /{v}/events: analytics events from the browser SDK, stored upstream (spec: Events)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug.exceptions import UnsupportedMediaType

from prerender.web.context import accepts_beacon_headers, current_context
from prerender.gateway import get_gateway
from prerender.schemas.actions import EventsBody
from prerender.web.parsing import parser

bp = Blueprint("events", __name__)

# navigator.sendBeacon sends a string body as text/plain; fetch sends JSON.
ACCEPTED_TYPES = frozenset({"application/json", "text/plain"})


@bp.post("/events")
@accepts_beacon_headers
def post_events() -> Any:
    """Store a batch of events with the session, supplier and user of the request."""
    if request.mimetype not in ACCEPTED_TYPES:
        raise UnsupportedMediaType("Send the events as JSON (application/json, or text/plain from sendBeacon).")
    body = parser.parse(EventsBody(), request, location="beacon")
    stored = get_gateway().store_events(current_context().upstream, body["events"])
    return jsonify(stored=stored), 202

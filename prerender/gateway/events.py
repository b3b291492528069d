"""Analytics events at the upstream (docs/upstream.md, "Events")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prerender.gateway.calls import CallerIdentity, expect_object, send
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp


class EventGateway:
    """POST /events."""

    def __init__(self, *, http: UpstreamHttp) -> None:
        self.http = http

    def store(self, identity: CallerIdentity, events: Sequence[dict[str, Any]]) -> int:
        """Store analytics events upstream; the number stored. Retried like a read when every event carries its
        id (the upstream stores an id once per supplier, docs/upstream.md); never otherwise."""
        payload = expect_object(
            send(
                self.http,
                identity,
                "POST",
                "/events",
                resource=Resource.EVENTS,
                name="events",
                json={"events": list(events)},
                idempotent=all(event.get("id") for event in events),
            ),
            "events",
        )
        return int(payload.get("stored", 0))

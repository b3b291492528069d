"""Analytics events at the upstream (docs/upstream.md, "Events")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prerender.gateway.calls import CallerIdentity, expect_object, send
from prerender.gateway.errors import UpstreamError
from prerender.gateway.event_quota import EventQuota
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp


class EventGateway:
    """POST /events, within each shopper's quota."""

    def __init__(self, *, http: UpstreamHttp, quota: EventQuota) -> None:
        self.http = http
        self.quota = quota

    def store(self, identity: CallerIdentity, events: Sequence[dict[str, Any]]) -> int:
        """Store analytics events upstream; the number stored. EventQuotaSpent, nothing sent, when they would pass
        the shopper's quota (prerender/gateway/event_quota.py). Retried like a read when every event carries its
        id (the upstream stores an id once per supplier, docs/upstream.md); never otherwise."""
        shopper = f"{identity.supplier_id}\n{identity.authorization}"
        window = self.quota.take(shopper, len(events))
        try:
            answer = send(
                self.http,
                identity,
                "POST",
                "/events",
                resource=Resource.EVENTS,
                name="events",
                json={"events": list(events)},
                idempotent=all(event.get("id") for event in events),
            )
        except UpstreamError:
            self.quota.give_back(shopper, len(events), window)  # not stored: the SDK sends them again
            raise
        return int(expect_object(answer, "events").get("stored", 0))

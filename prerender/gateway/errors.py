"""Typed upstream failures. A blueprint decides what the customer sees (docs/architecture.md)."""

from __future__ import annotations

from typing import Any


class UpstreamError(Exception):
    """Any failure to get a usable answer from the upstream."""


class UpstreamUnavailable(UpstreamError):
    """The upstream could not be reached (connection refused, DNS, reset)."""


class Refused(UpstreamUnavailable):
    """prerender did not call the upstream about `resource`, to protect it or this worker
    (prerender/gateway/guards.py): nothing was sent, so a write was not applied; `retry_after` is when trying
    again makes sense (seconds)."""

    message = "refused for {resource}, upstream not called"

    def __init__(self, resource: str, *, retry_after: int = 1) -> None:
        super().__init__(self.message.format(resource=resource))
        self.resource = resource
        self.retry_after = retry_after


class CircuitOpen(Refused):
    """The breaker of the call's upstream resource is open (prerender/gateway/breaker.py)."""

    message = "circuit open for {resource}, upstream not called"


class Shed(Refused):
    """The resource's bulkhead was full and no place freed within the request's budget
    (prerender/gateway/bulkhead.py): the call was shed rather than queued."""

    message = "too many calls in flight to {resource}, upstream not called"


class UpstreamTimeout(UpstreamError):
    """The upstream did not answer within the configured timeouts. `given` is the time the attempt had (the
    configured timeout, or less when the request's budget cut it: `configured`)."""

    def __init__(self, message: str, *, given: float = 0.0, configured: float = 0.0) -> None:
        super().__init__(message)
        self.given = given
        self.configured = configured

    @property
    def cut_by_budget(self) -> bool:
        """Whether the request's own budget gave the attempt less than its configured timeout."""
        return self.given < self.configured


class BudgetSpent(UpstreamTimeout):
    """The request's time budget for upstream calls was spent before this call could be made (nothing was sent:
    the upstream is not to blame, so the circuit breaker does not count it)."""


class RequestShed(BudgetSpent):
    """The request was shed at the door (prerender/web/admission.py): it has no budget at all, and its calls are
    not attempted (no breaker, bulkhead nor call metric sees them). Its parts are the shed's doing, counted and
    logged once, with the request (`failure_level`)."""


class UnsendableBody(ValueError):
    """A call's body has no JSON form (a number that is not finite): nothing was sent. A gap in the route's
    validation, not the upstream's failure: no breaker counts it, and the request is answered with a 500."""


class UpstreamBadResponse(UpstreamError):
    """The upstream answered something that is not the contract (not JSON, missing fields)."""


class UpstreamStatusError(UpstreamError):
    """The upstream answered with an error status; `problem` is its problem body when it sent one, `retry_after`
    its `Retry-After` in seconds when it sent one (a 409 "in progress, retry in a moment": docs/upstream.md)."""

    def __init__(
        self, status: int, problem: dict[str, Any] | None, endpoint: str, *, retry_after: int | None = None
    ) -> None:
        super().__init__(f"upstream {endpoint} answered {status}")
        self.status = status
        self.problem = problem or {}
        self.endpoint = endpoint
        self.retry_after = retry_after

    def field_errors(self, location: str, name: str) -> list[str]:
        """The upstream's validation messages for one field, if it named that field."""
        errors = self.problem.get("errors")
        if not isinstance(errors, dict):
            return []
        at_location = errors.get(location)
        if not isinstance(at_location, dict):
            return []
        messages = at_location.get(name)
        return [str(m) for m in messages] if isinstance(messages, list) else []


class UnknownStore(UpstreamStatusError):
    """The upstream does not know the store_id it was given (a 400 naming `store_id`)."""

"""prerender's own errors, answered in the problem+json shape both services share (plumbing/problems.py, as
README.md shows customers): the shopper's missing credential, an upstream failure a view did not handle, an
unknown store."""

from __future__ import annotations

import logging
import math

from flask import Flask, Response, current_app, request

from plumbing.problems import INVALID_PARAMETERS, Problem, field_error, problem_response, register_problem_handlers
from prerender.gateway import (
    BudgetSpent,
    Refused,
    UnknownStore,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamUnavailable,
)

log = logging.getLogger(__name__)


# The two credentials a 401 may ask for (RFC 9110: every 401 names the schemes that would do).
SUPPLIER_TOKEN_CHALLENGE = 'SupplierToken realm="prerender"'
BEARER_CHALLENGE = 'Bearer realm="prerender"'


class CredentialProblem(Problem):
    """A browser route called without a valid shopper's credential: 401, with the Bearer challenge
    (RFC 6750; docs/security.md). `or_supplier_token`: the route also takes a server's supplier-token (the merges,
    the payment), and the challenge names both."""

    def __init__(self, detail: str, *, invalid: bool = False, or_supplier_token: bool = False) -> None:
        challenge = BEARER_CHALLENGE + (', error="invalid_token"' if invalid else "")
        if or_supplier_token:
            challenge = f"{challenge}, {SUPPLIER_TOKEN_CHALLENGE}"
        super().__init__(401, detail, headers={"WWW-Authenticate": challenge})


class SupplierUncheckedProblem(Problem):
    """A route that needs the supplier called while its supplier-token could not be checked (the recipe service did
    not answer): 503 + Retry-After, the service's failure, not a 401 or 403 that sends the caller to its token."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "The supplier-token could not be checked (the recipe service did not answer); nothing was done: try again.",
            headers={"Retry-After": "1"},
        )


class SupplierTokenProblem(Problem):
    """A route for suppliers' servers only (issuing an authless identity) called without a valid supplier-token:
    401, with a challenge naming that credential, as RFC 9110 asks of every 401 (docs/security.md)."""

    def __init__(self, detail: str) -> None:
        super().__init__(401, detail, headers={"WWW-Authenticate": SUPPLIER_TOKEN_CHALLENGE})


# Upstream 4xx a browser can act on pass through with the upstream's own explanation (410: a used or expired
# basket transfer link).
PASSED_THROUGH_STATUSES = frozenset({400, 403, 404, 409, 410, 422})
# The members every problem has, written by prerender itself; an upstream's others pass through.
PROBLEM_MEMBERS = frozenset({"type", "title", "status", "detail", "errors", "instance"})


def handle_upstream_error(error: UpstreamError) -> Response:
    """An upstream failure a view did not handle (JSON action routes): say what failed, never a trace nor the
    upstream's address or paths (the log has them, under the request's id, which the answer's X-Request-Id gives).

    Card routes handle their own (an empty card); here the caller is the browser SDK, which needs to know
    whether to retry (503, 504), give up (502), or fix its request (the upstream's 4xx)."""
    if isinstance(error, UpstreamStatusError) and error.status in PASSED_THROUGH_STATUSES:
        # The upstream's answer to this request (an unknown recipe, no menu to merge...), not a failure.
        log.info("upstream refused: %s", error)
        problem = error.problem
        errors = problem.get("errors") if isinstance(problem.get("errors"), dict) else None
        # The upstream's own members, such as a refused confirmation's expected_total (docs/upstream.md).
        extensions = {key: value for key, value in problem.items() if key not in PROBLEM_MEMBERS}
        # A refusal to retry in a moment (a write still in progress, or a row another write holds: the write was
        # not applied) keeps its Retry-After: the SDK sends it again, with its key (docs/browser-api.md).
        retry = {"Retry-After": str(error.retry_after)} if error.retry_after is not None else None
        return problem_response(
            error.status, str(problem.get("detail") or error), errors=errors, extensions=extensions, headers=retry
        )
    if isinstance(error, Refused):
        # Not sent (an open circuit, a full bulkhead): a write was not applied, and the SDK may try again later. The
        # breaker and the bulkhead log when they start refusing and when they stop; each refusal is INFO.
        log.info("upstream call refused: %s", error)
        return problem_response(
            503,
            "The recipe service is not being called for now; try again later.",
            headers={"Retry-After": str(error.retry_after)},
        )
    if isinstance(error, BudgetSpent):
        # The request's time ran out before the call was sent (waiting for a place in the bulkhead, say): nothing
        # reached the upstream, so a write was not applied (gateway/http.py raises it for a first attempt only).
        log.warning("upstream call not sent: %s", error)
        return problem_response(
            503,
            "The recipe service was not called in time; nothing was applied: try again.",
            headers={"Retry-After": "1"},
        )
    if isinstance(error, UpstreamStatusError) and error.status == 503:
        # The upstream cannot serve the call now (coreapi: no database connection free in time, a write past its
        # deadline, rolled back, or its database failing; docs/upstream.md): a 503 with its Retry-After and its
        # words, which say whether anything was done, not the 502 of an upstream that failed.
        log.error("upstream busy: %s", error)
        detail = error.problem.get("detail")
        said = f": {detail}" if isinstance(detail, str) and detail else ""
        return problem_response(
            503,
            f"The recipe service is busy{said}",
            headers={"Retry-After": str(error.retry_after if error.retry_after is not None else 1)},
        )
    log.error("upstream failure: %s", error)
    if isinstance(error, UpstreamUnavailable):
        # Try again once its breaker would let a call through again (gateway/breaker.py); a write's outcome is
        # unknown, as after a 504 (docs/browser-api.md: the SDK sends it again with its key).
        cooldown = math.ceil(float(current_app.config["UPSTREAM_BREAKER_COOLDOWN"]))
        return problem_response(503, "The recipe service is unreachable.", headers={"Retry-After": str(cooldown)})
    if isinstance(error, UpstreamTimeout):
        return problem_response(504, "The recipe service did not answer in time.")
    return problem_response(502, "The recipe service failed.")


def handle_unknown_store(error: UnknownStore) -> Response:
    """A store_id the upstream does not know: a 400 naming it where it was sent (the JSON body when the body
    names a store, else the query). A bug in the customer's integration it should see, unlike "no
    suggestion"; a route that answers otherwise (the basket: empty) catches it itself."""
    body = request.get_json(silent=True) if request.is_json else None
    location = "json" if isinstance(body, dict) and body.get("store_id") is not None else "query"
    return problem_response(400, INVALID_PARAMETERS, errors=field_error(location, "store_id", "Unknown store."))


def register_errorhandlers(app: Flask) -> None:
    """Route every error to a problem+json body: the shared handlers (a Problem, werkzeug's errors, the
    unexpected), then prerender's upstream errors."""
    register_problem_handlers(app)
    app.register_error_handler(UnknownStore, handle_unknown_store)
    app.register_error_handler(UpstreamError, handle_upstream_error)

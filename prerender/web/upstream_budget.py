"""Every request's time budget for its upstream calls (prerender/gateway/deadline.py), started with the request.

A fragment route (its answer is HTML, or it is a customer server's route, as the multiple cards are) gets
`UPSTREAM_FRAGMENT_BUDGET`: a retailer's page waits for it, so it answers without what is late. The browser's
JSON routes get `UPSTREAM_JSON_BUDGET` and answer a 504 problem when it is spent (prerender/web/errors.py).
Routes without a declaration (health, metrics, static files) get none. A fragment request shed at the door
(prerender/web/admission.py) gets nothing: it answers from what is cached, or its empty answer. Behind a front that
stamps each request's arrival, the budget counts from that arrival (prerender/web/queue_age.py).
"""

from __future__ import annotations

from flask import Flask, current_app, g

from prerender.gateway import deadline
from prerender.web.contract import Callers, RouteContract, request_contract
from prerender.web.queue_age import queued_seconds


def is_fragment_route(contract: RouteContract) -> bool:
    """Whether a route answers a fragment (HTML, or a customer server's call such as the multiple cards): it degrades
    rather than fails."""
    ok = contract.answers.get(200)
    return contract.callers is Callers.SERVER or (ok is not None and ok.media_type == "text/html")


def budget_of(contract: RouteContract) -> float:
    """The seconds a route's upstream calls get together."""
    key = "UPSTREAM_FRAGMENT_BUDGET" if is_fragment_route(contract) else "UPSTREAM_JSON_BUDGET"
    return float(current_app.config[key])


def budget_left(contract: RouteContract) -> float:
    """The route's budget less the time the request waited before this worker read it (prerender/web/queue_age.py)."""
    return max(0.0, budget_of(contract) - queued_seconds())


def start_upstream_budget() -> None:
    """Before anything calls the upstream (the header guard resolves the supplier): start the route's budget."""
    contract = request_contract()
    if contract is not None:
        # A request shed at the door (prerender/web/admission.py sets `g.shed`) gets none: its calls are not sent.
        g.upstream_budget = deadline.start(budget_left(contract), shed=bool(g.get("shed")))


def withdraw_upstream_budget() -> None:
    """A request shed after its budget started (admission's lane for requests no supplier vouches for, which is
    known once the header guard has run): its calls from now on are not sent."""
    end_upstream_budget()
    g.upstream_budget = deadline.start(None, shed=True)


def end_upstream_budget(_error: BaseException | None = None) -> None:
    """The request is over: calls made after it (none should be) get no budget of it."""
    token = g.pop("upstream_budget", None)
    if token is not None:
        deadline.stop(token)


def register_upstream_budget(app: Flask) -> None:
    """Attach the budget's hooks to the app."""
    app.before_request(start_upstream_budget)
    app.teardown_request(end_upstream_budget)

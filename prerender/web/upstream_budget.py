"""Every request's time budget for its upstream calls (prerender/gateway/deadline.py), started with the request.

A fragment route (its answer is HTML, or it is a customer server's route, as the multiple cards are) gets
`UPSTREAM_FRAGMENT_BUDGET`: a retailer's page waits for it, so it answers without what is late. The browser's
JSON routes get `UPSTREAM_JSON_BUDGET` and answer a 504 problem when it is spent (prerender/web/errors.py).
Routes without a declaration (health, metrics, static files) get none.
"""

from __future__ import annotations

from flask import Flask, current_app, g, request

from prerender.gateway import deadline
from prerender.web.contract import Callers, RouteContract, contract_of


def budget_of(contract: RouteContract) -> float:
    """The seconds a route's upstream calls get together."""
    ok = contract.answers.get(200)
    fragment = contract.callers is Callers.SERVER or (ok is not None and ok.media_type == "text/html")
    key = "UPSTREAM_FRAGMENT_BUDGET" if fragment else "UPSTREAM_JSON_BUDGET"
    return float(current_app.config[key])


def start_upstream_budget() -> None:
    """Before anything calls the upstream (the header guard resolves the supplier): start the route's budget."""
    contract = contract_of(current_app.view_functions.get(request.endpoint or ""))
    if contract is not None:
        g.upstream_budget = deadline.start(budget_of(contract))


def end_upstream_budget(_error: BaseException | None = None) -> None:
    """The request is over: calls made after it (none should be) get no budget of it."""
    token = g.pop("upstream_budget", None)
    if token is not None:
        deadline.stop(token)


def register_upstream_budget(app: Flask) -> None:
    """Attach the budget's hooks to the app."""
    app.before_request(start_upstream_budget)
    app.teardown_request(end_upstream_budget)

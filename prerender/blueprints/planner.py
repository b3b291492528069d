"""GET /v2/planner/entry: the planner's entry block as HTML (v2 only; the current-menu routes will follow)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.planner import planner_entry
from prerender.rendering.shopper import shopper_element
from prerender.schemas.menus import PlannerEntryQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, declare, html, problem
from prerender.web.http_caching import PRIVATE, set_policy

bp = Blueprint("planner", __name__)


@bp.get("/planner/entry")
@declare(
    summary="The planner entry block",
    query=PlannerEntryQuery(),
    answers={
        200: html(
            "The <svc-planner-entry> fragment (guest stepper, the two modes leading to the customer's "
            "current-menu page, the help link), its hidden onboarding modal and module scripts, then the "
            "shopper's credential element when a valid supplier-token named the shopper. Without a known "
            "supplier or routing for the environment, the modes are disabled with a notice."
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters or headers."),
    },
)
def get_entry(query: dict[str, Any]) -> Response:
    """The entry: the same markup for every shopper of a supplier and store, but it ends with the shopper's
    credential (the current-menu page acts for that shopper), so it is private."""
    ctx = current_context()
    set_policy(PRIVATE)
    fragment = planner_entry(ctx, store_id=query["store_id"]) + shopper_element(ctx)
    return Response(fragment, mimetype="text/html")

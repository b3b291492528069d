"""The planner's pages as HTML (v2 only): the entry block, the current-menu page (and its shareable landing
route), and the page's catalog panel.

The current-menu page never answers an upstream failure with a 5xx: a customer's server includes it in its
own page, so the page degrades to its "try again" state (prerender/web/degraded.py). The catalog panel's
route is the page module's alone (Callers.BROWSER): it keeps its 502/503/504 problems, which the module turns
into a message (docs/decisions.md, "Issue 22")."""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app

from prerender.rendering.current_menu import (
    CurrentMenuView,
    build_page,
    load_panel,
    panel_recipes,
    render_page,
    render_panel_items,
    retry_page,
)
from prerender.rendering.planner import check_store, planner_entry, read_preferred_guests
from prerender.schemas.menus import CurrentMenuPageQuery, PlannerEntryQuery, PlannerRecipesQuery
from prerender.web.context import current_context
from prerender.web.contract import (
    NOT_MODIFIED,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    html,
    problem,
)
from prerender.web.degraded import is_refusal
from prerender.web.fragment_response import Rendered, fragment_response
from prerender.web.http_caching import PRIVATE, cache_policy

log = logging.getLogger(__name__)

bp = Blueprint("planner", __name__)


@bp.get("/planner/entry")
@declare(
    summary="The planner entry block",
    query=PlannerEntryQuery(),
    answers={
        200: html(
            "The <svc-planner-entry> fragment (guest stepper, from the number of people of the shopper's preferences "
            "when it saved one, `preferred-guests`; the two modes leading to the customer's "
            "current-menu page, the help link), its hidden onboarding modal and module scripts, then the "
            "shopper's credential element when a valid supplier-token named the shopper. Without a known "
            "supplier or routing for the environment, the modes are disabled with a notice."
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters or headers, or an unknown store."),
    },
)
def get_entry(query: dict[str, Any]) -> Response:
    """The entry: its stepper starts from the number of people of the shopper's preferences, and it ends with the
    shopper's credential (the current-menu page acts for that shopper), so it is private."""
    ctx = current_context()
    check_store(ctx, query["store_id"])
    return fragment_response(
        lambda: planner_entry(ctx, store_id=query["store_id"], preferred_guests=read_preferred_guests(ctx))
    )


PAGE_ANSWERS = {
    200: html(
        "The <svc-planner> fragment (header with help and budget, the suggestions or catalog panel, the menu "
        "with its 6 plate slots, the quick menu), its hidden onboarding modal, module scripts, then the "
        "shopper's credential element. Without a known supplier it says the planner is not available. When "
        "the recipe service fails (unreachable, too slow, a 5xx, a malformed answer), the same element in its "
        "try-again state (`retry` attribute: a message and a retry button; the module asks again by itself), "
        "marked `X-Degraded: upstream` and `Cache-Control: private, no-store`."
    ),
    304: NOT_MODIFIED,
    400: problem("Invalid parameters or headers, or an unknown store."),
    **PASSED_THROUGH,
    # A browser's call is checked before the view runs: its credential's supplier is read from the recipe
    # service (prerender/web/context.py), and a failure there is the guard's problem, not a page.
    **{
        status: problem(f"A browser's call only (a credential), while checking its supplier: {answer.description}")
        for status, answer in UPSTREAM_FAILURES.items()
    },
}


@bp.get("/planner/current-menu", head=False)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The planner's current-menu page",
    query=CurrentMenuPageQuery(),
    answers=PAGE_ANSWERS,
)
def current_menu_page(query: dict[str, Any]) -> Response:
    """The shopper's menu (created from suggestions, or empty for mode=custom; moved to store_id) as a page."""
    return _page(query)


@bp.get("/planner", head=False)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The planner's shareable landing route (the current-menu page)",
    query=CurrentMenuPageQuery(),
    answers=PAGE_ANSWERS,
)
def landing_page(query: dict[str, Any]) -> Response:
    """Opens the shopper's menu, or creates one from current suggestions: the current-menu page."""
    return _page(query)


def _page(query: dict[str, Any]) -> Response:
    """The page for the request's shopper, ending with the shopper's credential (the page acts for them). An
    upstream failure is the page's try-again state, never a 5xx; the upstream's refusals (an unknown store)
    stay the caller's problem."""
    ctx = current_context()

    def render(page: CurrentMenuView) -> Rendered:
        return Rendered(render_page(page, ctx, api_version=ctx.api_version), degraded=page.retry is not None)

    return fragment_response(
        lambda: render(build_page(ctx, query, environment=str(current_app.config["ENVIRONMENT"]))),
        degraded=lambda: render(retry_page(ctx, query)),
        passes=is_refusal,
    )


@bp.get("/planner/recipes")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="A page of the planner's catalog panel, or the panel's own recipes again",
    query=PlannerRecipesQuery(),
    answers={
        200: html(
            "The panel's <li> items: a recipe card each with its see-the-recipe and add buttons (with recipe_ids, "
            "those recipes' items, in that order, and X-Has-More false).",
            headers={"X-Has-More": "`true` when a next page has more recipes, else `false`."},
        ),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters, or an unknown store."),
        **UPSTREAM_FAILURES,
    },
)
def catalog_panel(query: dict[str, Any]) -> Response:
    """Recipes of the types or keyword asked, at the store, without the menu's (its `exclude_ids`); or the
    recipes named (`recipe_ids`)."""
    ctx = current_context()
    if query["recipe_ids"]:
        panel = panel_recipes(ctx, query["recipe_ids"], store_id=query["store_id"], guests=query["guests"])
    else:
        panel = load_panel(
            ctx,
            store_id=query["store_id"],
            guests=query["guests"],
            types=query["recipe_type_id"],
            search=query["search"],
            page=query["page"],
            exclude_ids=query["exclude_ids"],
        )
    response = Response(render_panel_items(panel, ctx), mimetype="text/html")
    response.headers["X-Has-More"] = "true" if panel.has_more else "false"
    return response

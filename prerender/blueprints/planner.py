"""The planner's pages as HTML (v2 only): the entry block, the current-menu page (and its shareable landing
route), and the page's catalog panel."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app

from prerender.rendering.current_menu import build_page, load_panel, render_page, render_panel_items
from prerender.rendering.planner import planner_entry
from prerender.rendering.shopper import shopper_element
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
from prerender.web.http_caching import PRIVATE, cache_policy, set_policy

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


PAGE_ANSWERS = {
    200: html(
        "The <svc-planner> fragment (header with help and budget, the suggestions or catalog panel, the menu "
        "with its 6 plate slots, the quick menu), its hidden onboarding modal, module scripts, then the "
        "shopper's credential element. Without a known supplier it says the planner is not available."
    ),
    304: NOT_MODIFIED,
    400: problem("Invalid parameters or headers, or an unknown store."),
    **PASSED_THROUGH,
    **UPSTREAM_FAILURES,
}


@bp.get("/planner/current-menu")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The planner's current-menu page",
    query=CurrentMenuPageQuery(),
    answers=PAGE_ANSWERS,
)
def current_menu_page(query: dict[str, Any]) -> Response:
    """The shopper's menu (created from suggestions, or empty for mode=custom; moved to store_id) as a page."""
    return _page(query)


@bp.get("/planner")
@cache_policy(PRIVATE)
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
    """The page for the request's shopper, ending with the shopper's credential (the page acts for them)."""
    ctx = current_context()
    page = build_page(ctx, query, environment=str(current_app.config["ENVIRONMENT"]))
    fragment = render_page(page, ctx, api_version=ctx.api_version) + shopper_element(ctx)
    return Response(fragment, mimetype="text/html")


@bp.get("/planner/recipes")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="A page of the planner's catalog panel",
    query=PlannerRecipesQuery(),
    answers={
        200: html("The panel's <li> items: a recipe card each with its see-the-recipe and add buttons."),
        304: NOT_MODIFIED,
        400: problem("Invalid parameters, or an unknown store."),
        **UPSTREAM_FAILURES,
    },
)
def catalog_panel(query: dict[str, Any]) -> Response:
    """Recipes of the types or keyword asked, at the store, without the menu's (its `exclude_ids`)."""
    ctx = current_context()
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

"""The planner's menu routes (v2 only; docs/browser-api.md, "Menus"): the current-menu page's own calls,
for the shopper of the browser's credential, and the merge of a visitor's menu at the end of the auth flow."""

from __future__ import annotations

import functools
from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from prerender.gateway import menus
from prerender.rendering.preferences import has_preferences
from prerender.schemas.headers import MergeHeaders, WriteHeaders
from prerender.schemas.menus import (
    CurrentMenuQuery,
    MenuGuestsBody,
    MenuPatchBody,
    MenuProductPath,
    MenuRecipeBody,
    MenuRecipePath,
    MenuSchema,
    MenuSuggestionsQuery,
    MenuSuggestionsSchema,
    MergeAuthlessMenuQuery,
    SwapBody,
)
from prerender.schemas.responses import BasketChangeSchema
from prerender.web import upstream_answers
from prerender.web.context import current_context
from prerender.web.contract import (
    NOT_MODIFIED,
    PASSED_THROUGH,
    UPSTREAM_FAILURES,
    Callers,
    declare,
    json_answer,
    problem,
)
from prerender.web.forwarding import ForwardedRoute, add_forwarded_route, forward
from prerender.web.http_caching import PRIVATE, cache_policy
from prerender.web.merge_proof import MERGE_REFUSALS, merge_response

bp = Blueprint("menu", __name__, url_prefix="/menu")

WRITE_HEADERS = WriteHeaders()
MERGE_HEADERS = MergeHeaders()
MENU = json_answer(MenuSchema, "The whole menu.")
MENU_ANSWERS = {200: MENU, **PASSED_THROUGH, **UPSTREAM_FAILURES}
# What a logged-out visitor's finalize is told: what its caller must do, in the terms of this route (a browser
# credential), not the upstream's (`Authorization: user_id`, which prerender's browser routes refuse).
LOGIN_REQUIRED = (
    "Finalizing a menu needs a logged-in user, and this credential is a logged-out visitor's. Log the shopper in "
    "on your site, then give the page the credential of the user: the one your server's fragments carry when it "
    "asks them with `authorization: user_id <USER_ID>`, and call `merge-authless-menu` so the visitor's menu "
    "follows (svc.planner.defineLoginRequired is told when this happens on the current-menu page)."
)


@bp.get("/current", head=False)  # it makes the menu, or moves it to store_id
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="The shopper's menu (created when there is none)",
    query=CurrentMenuQuery(),
    answers={200: MENU, 304: NOT_MODIFIED, **PASSED_THROUGH, **UPSTREAM_FAILURES},
)
def current_menu(query: dict[str, Any]) -> dict[str, Any]:
    """The menu, moved to `store_id` when it is elsewhere; a new one from suggestions or empty (`from`), kept by
    the shopper's preferences and for its preferred guests unless `guests` names them."""
    ctx = current_context()
    return upstream_answers.current_menu(
        ctx.upstream,
        store_id=query["store_id"],
        origin=query["origin"],
        guests=query["guests"],
        apply_preferences=has_preferences(ctx),
    )


@bp.get("/current/suggestions")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="Recipes to add to the menu",
    query=MenuSuggestionsQuery(),
    answers={200: json_answer(MenuSuggestionsSchema), 304: NOT_MODIFIED, **PASSED_THROUGH, **UPSTREAM_FAILURES},
)
def menu_suggestions(query: dict[str, Any]) -> dict[str, Any]:
    """The shopper's suggestions not already in the menu, of the types asked, kept by its preferences."""
    ctx = current_context()
    return upstream_answers.menu_suggestions(
        ctx.upstream,
        store_id=query["store_id"],
        limit=query["limit"],
        types=query["type"] or (),
        apply_preferences=has_preferences(ctx),
    )


# The writes: each forwards its validated request to the upstream menu and answers the whole menu once it matches
# the schema (prerender/web/forwarding.py). Every menu write shares its answers and its idempotency key.
menu_write = functools.partial(ForwardedRoute, answers=MENU_ANSWERS, headers=WRITE_HEADERS)

FORWARDED = (
    menu_write(
        "/current",
        "update_menu",
        summary="Change the menu's store, guests or budget",
        description="Move the menu to a store (null: none), set every recipe's guests, set the budget.",
        call=menus.UPDATE,
        body=MenuPatchBody(),
        body_example={"store_id": "1001", "guests": 4, "budget": 60},
    ),
    menu_write(
        "/current/recipes",
        "add_recipe",
        summary="Add a recipe to the menu",
        description="Add a recipe after the others (re-scaled when already there).",
        call=menus.ADD_RECIPE,
        body=MenuRecipeBody(),
        body_example={"recipe_id": "5", "guests": 4},
    ),
    menu_write(
        "/current/recipes/<recipe_id>",
        "rescale_recipe",
        summary="Re-scale a recipe of the menu",
        description="Set a recipe's guests.",
        call=menus.RESCALE_RECIPE,
        path=MenuRecipePath(),
        body=MenuGuestsBody(),
    ),
    menu_write(
        "/current/recipes/<recipe_id>",
        "remove_recipe",
        summary="Remove a recipe from the menu",
        description="Remove a recipe; the others keep their order.",
        call=menus.REMOVE_RECIPE,
        path=MenuRecipePath(),
    ),
    menu_write(
        "/current/recipes/<recipe_id>/swap",
        "swap_recipe",
        summary="Swap a recipe of the menu for another",
        description="Put another recipe in this one's place, for the same guests.",
        call=menus.SWAP_RECIPE,
        path=MenuRecipePath(),
        body=SwapBody(),
    ),
    menu_write(
        "/current/recipes/<recipe_id>/products/<product_id>",
        "select_product",
        summary="Select a product of a menu recipe",
        description="Select a product (or a candidate instead of an ingredient's product).",
        call=menus.SELECT_PRODUCT,
        path=MenuProductPath(),
    ),
    menu_write(
        "/current/recipes/<recipe_id>/products/<product_id>",
        "unselect_product",
        summary="Unselect a product of a menu recipe",
        description="Leave a product out of the total and of finalize.",
        call=menus.UNSELECT_PRODUCT,
        path=MenuProductPath(),
    ),
)
for route in FORWARDED:
    add_forwarded_route(bp, route)


@bp.post("/current/finalize")
@declare(
    callers=Callers.BROWSER,
    summary="Put the menu in the basket",
    headers=WRITE_HEADERS,
    answers={
        200: json_answer(BasketChangeSchema, "The basket and what the retailer cart must do."),
        **PASSED_THROUGH,
        403: problem("A logged-out visitor's credential: the shopper must log in (the page asks the host)."),
        **UPSTREAM_FAILURES,
    },
)
def finalize(headers: dict[str, Any]) -> dict[str, Any]:
    """The selected products go to the user's basket at the menu's store; the menu is done. A logged-out visitor
    is refused here, in this route's terms (LOGIN_REQUIRED), without asking the upstream."""
    ctx = current_context()
    if not ctx.is_connected:
        raise Forbidden(LOGIN_REQUIRED)
    return forward(menus.FINALIZE, BasketChangeSchema, ctx.upstream, key=headers["idempotency_key"])


@bp.get("/merge-authless-menu", head=False)
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The logged-out menu replaces the user's",
    headers=MERGE_HEADERS,
    query=MergeAuthlessMenuQuery(),
    answers={
        200: MENU,
        **PASSED_THROUGH,
        # The call comes at every login: most visitors never opened the planner.
        404: problem("Neither the user nor the logged-out visitor has a menu: nothing to merge, nothing changed."),
        **{status: problem(description) for status, description in MERGE_REFUSALS.items()},
        **UPSTREAM_FAILURES,
    },
)
def merge_authless_menu(query: dict[str, Any], headers: dict[str, Any]) -> ResponseReturnValue:
    """End of the auth flow: the visitor's menu replaces the user's (no merge of their recipes). Never cached."""
    return merge_response(
        query,
        headers,
        lambda caller, params, key: forward(menus.MERGE_AUTHLESS, MenuSchema, caller, params=params, key=key),
    )

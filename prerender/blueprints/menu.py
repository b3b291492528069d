"""The planner's menu routes (v2 only; docs/browser-api.md, "Menus"): the current-menu page's own calls,
for the shopper of the browser's credential, and the merge of a visitor's menu at the end of the auth flow."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from prerender.gateway import get_menus
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


@bp.get("/current")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="The shopper's menu (created when there is none)",
    query=CurrentMenuQuery(),
    answers={200: MENU, 304: NOT_MODIFIED, **PASSED_THROUGH, **UPSTREAM_FAILURES},
)
def current_menu(query: dict[str, Any]) -> dict[str, Any]:
    """The menu, moved to `store_id` when it is elsewhere; a new one from suggestions or empty (`from`)."""
    params = {"store_id": query["store_id"], "from": query["origin"], "guests": query["guests"]}
    return get_menus().current(current_context().upstream, params={k: v for k, v in params.items() if v is not None})


@bp.get("/current/suggestions")
@cache_policy(PRIVATE)
@declare(
    callers=Callers.BROWSER,
    summary="Recipes to add to the menu",
    query=MenuSuggestionsQuery(),
    answers={200: json_answer(MenuSuggestionsSchema), 304: NOT_MODIFIED, **PASSED_THROUGH, **UPSTREAM_FAILURES},
)
def menu_suggestions(query: dict[str, Any]) -> dict[str, Any]:
    """The shopper's suggestions not already in the menu, of the types asked."""
    params: dict[str, Any] = {"store_id": query["store_id"], "limit": query["limit"]}
    if query["type"]:
        params["type"] = ",".join(query["type"])
    return get_menus().suggestions(
        current_context().upstream, params={k: v for k, v in params.items() if v is not None}
    )


@bp.patch("/current")
@declare(
    summary="Change the menu's store, guests or budget",
    body=MenuPatchBody(),
    body_example={"store_id": "1001", "guests": 4, "budget": 60},
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def update_menu(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Move the menu to a store (null: none), set every recipe's guests, set the budget."""
    if body.get("budget") is not None:
        body = {**body, "budget": float(body["budget"])}
    return get_menus().update(current_context().upstream, body=body, key=headers["idempotency_key"])


@bp.post("/current/recipes")
@declare(
    summary="Add a recipe to the menu",
    body=MenuRecipeBody(),
    body_example={"recipe_id": "5", "guests": 4},
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def add_recipe(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Add a recipe after the others (re-scaled when already there)."""
    return get_menus().add_recipe(current_context().upstream, body=body, key=headers["idempotency_key"])


@bp.patch("/current/recipes/<recipe_id>")
@declare(
    summary="Re-scale a recipe of the menu",
    path=MenuRecipePath(),
    body=MenuGuestsBody(),
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def rescale_recipe(recipe_id: str, body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Set a recipe's guests."""
    return get_menus().rescale_recipe(current_context().upstream, recipe_id, body=body, key=headers["idempotency_key"])


@bp.delete("/current/recipes/<recipe_id>")
@declare(
    summary="Remove a recipe from the menu",
    path=MenuRecipePath(),
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def remove_recipe(recipe_id: str, headers: dict[str, Any]) -> dict[str, Any]:
    """Remove a recipe; the others keep their order."""
    return get_menus().remove_recipe(current_context().upstream, recipe_id, key=headers["idempotency_key"])


@bp.post("/current/recipes/<recipe_id>/swap")
@declare(
    summary="Swap a recipe of the menu for another",
    path=MenuRecipePath(),
    body=SwapBody(),
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def swap_recipe(recipe_id: str, body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Put another recipe in this one's place, for the same guests."""
    return get_menus().swap_recipe(current_context().upstream, recipe_id, body=body, key=headers["idempotency_key"])


@bp.put("/current/recipes/<recipe_id>/products/<product_id>")
@declare(
    summary="Select a product of a menu recipe",
    path=MenuProductPath(),
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def select_product(recipe_id: str, product_id: str, headers: dict[str, Any]) -> dict[str, Any]:
    """Select a product (or a candidate instead of an ingredient's product)."""
    return get_menus().select_product(
        current_context().upstream, recipe_id, product_id, selected=True, key=headers["idempotency_key"]
    )


@bp.delete("/current/recipes/<recipe_id>/products/<product_id>")
@declare(
    summary="Unselect a product of a menu recipe",
    path=MenuProductPath(),
    callers=Callers.BROWSER,
    headers=WRITE_HEADERS,
    answers=MENU_ANSWERS,
)
def unselect_product(recipe_id: str, product_id: str, headers: dict[str, Any]) -> dict[str, Any]:
    """Leave a product out of the total and of finalize."""
    return get_menus().select_product(
        current_context().upstream, recipe_id, product_id, selected=False, key=headers["idempotency_key"]
    )


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
    return get_menus().finalize(ctx.upstream, key=headers["idempotency_key"])


@bp.get("/merge-authless-menu")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The logged-out menu replaces the user's",
    headers=MERGE_HEADERS,
    query=MergeAuthlessMenuQuery(),
    answers={
        200: MENU,
        **PASSED_THROUGH,
        **{status: problem(description) for status, description in MERGE_REFUSALS.items()},
        **UPSTREAM_FAILURES,
    },
)
def merge_authless_menu(query: dict[str, Any], headers: dict[str, Any]) -> ResponseReturnValue:
    """End of the auth flow: the visitor's menu replaces the user's (no merge of their recipes). Never cached."""
    return merge_response(
        query, headers, lambda caller, params, key: get_menus().merge_authless(caller, params=params, key=key)
    )

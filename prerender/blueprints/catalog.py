"""The catalog pages a retailer hosts (rendering/catalog.py): the header, the home, a category and the list."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from prerender.rendering.catalog_pages import category_fragment, header_fragment, home_fragment, list_fragment
from prerender.schemas.catalog import CATEGORY_QUERIES, HOME_QUERIES, LIST_QUERIES, HeaderQuery
from prerender.web.context import current_context
from prerender.web.contract import NOT_MODIFIED, Callers, declare, html, problem
from prerender.web.fragment_response import fragment_response

bp = Blueprint("catalog", __name__, url_prefix="/catalog")

BAD_REQUEST = {400: problem("Invalid parameters or headers, or an unknown store.")}


@bp.get("/header")
@declare(
    summary="The catalog home header",
    query=HeaderQuery(),
    answers={
        200: html(
            "The header: title, search, links to favorites and the planner, the preferences button and panel (a "
            "shopper of a supplier with personalization on), the category shortcuts; then the shopper's credential."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def header(query: dict[str, Any]) -> Response:
    """The catalog home's header alone."""
    return fragment_response(lambda: header_fragment(current_context(), query))


@bp.get("")
@declare(
    summary="The catalog home",
    query=HOME_QUERIES,
    answers={
        200: html(
            "The header, the planner entry (v2), then a row of recipe cards per category (the completion filter "
            "and the shopper's preferences applied), each with its see-all link; then the shopper's credential. "
            "When the upstream fails, the page says the recipes are unavailable."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def home(query: dict[str, Any]) -> Response:
    """Rows of categories with their first recipes."""
    return fragment_response(lambda: home_fragment(current_context(), query))


@bp.get("/category")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="A catalog category page",
    query=CATEGORY_QUERIES,
    answers={
        200: html("The toolbar, the category's title and count, its recipe cards (20 a page) and pagination links."),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
        404: problem("Unknown category."),
    },
)
def category(query: dict[str, Any]) -> Response:
    """One category's recipes, a page at a time."""
    return fragment_response(lambda: category_fragment(current_context(), query))


@bp.get("/list")
@declare(
    callers=Callers.SERVER_OR_BROWSER,
    summary="The catalog list page",
    query=LIST_QUERIES,
    answers={
        200: html(
            "The toolbar, a title (the search, every recipe, or the catalog), the type chips, recipe cards (20 a "
            "page) and pagination links."
        ),
        304: NOT_MODIFIED,
        **BAD_REQUEST,
    },
)
def recipe_list(query: dict[str, Any]) -> Response:
    """Search results, recipe types or every recipe, a page at a time."""
    return fragment_response(lambda: list_fragment(current_context(), query))

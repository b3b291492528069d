"""Recipes: summaries, details priced at a store, batches."""

from typing import Any

from flask import Blueprint

from coreapi.blueprints.preferences import applied
from coreapi.context import current
from coreapi.extensions import db
from coreapi.schemas.common import dump_one, dump_page
from coreapi.schemas.parsing import use_args
from coreapi.schemas.recipes import (
    BatchArgs,
    DetailArgs,
    RecipesArgs,
    RecipeSummarySchema,
    detail_pictures,
)
from coreapi.services import recipes
from coreapi.services.catalog import database_ids
from plumbing.problems import NotFound

bp = Blueprint("recipes", __name__, url_prefix="/recipes")


@bp.get("")
@use_args(RecipesArgs(), location="query")
def index(args: dict[str, Any]) -> dict[str, Any]:
    """A page of recipe summaries, filtered (``type``: one or several; ``exclude_ids``: recipes left
    out); the completion filter applies with ``store_id``, the shopper's preferences with
    ``preferences=apply``."""
    page = recipes.list_recipes(
        db.session(),
        page=args["page"],
        per_page=args["per_page"],
        store=args["store"],
        type=args["type"],
        category_id=args["category"],
        query=args["q"],
        exclude_ids=database_ids(args["exclude_ids"]),
        preferences=applied(args["preferences"]),
        language=current().language,
    )
    return dump_page(RecipeSummarySchema(), page)


@bp.get("/batch")
@use_args(BatchArgs(), location="query")
def batch(args: dict[str, Any]) -> dict[str, Any]:
    """Details of up to 100 recipes, in the order asked, unknown ids left out (``view=summary``: without
    ingredients and steps)."""
    details = recipes.recipe_details(
        db.session(),
        args["ids"],
        pictures=detail_pictures(),
        store=args["store"],
        serves=args["serves"],
        language=current().language,
        summary=args["view"] == "summary",
    )
    return {"data": details}


@bp.get("/by-external-id/<external_id>")
def by_external_id(external_id: str) -> dict[str, Any]:
    """The summary of the recipe a publisher knows by ``external_id``."""
    summary = recipes.find_summary_by_external_id(db.session(), external_id, current().language)
    if summary is None:
        raise NotFound(f"No recipe with external id {external_id!r}.")
    return dump_one(RecipeSummarySchema(), summary)


@bp.get("/<recipe_id>")
@use_args(DetailArgs(), location="query")
def detail(args: dict[str, Any], recipe_id: str) -> dict[str, Any]:
    """One recipe's details, priced at ``store_id``, for ``serves`` guests (``view=summary``: without
    ingredients and steps)."""
    detail = recipes.find_detail(
        db.session(),
        recipe_id,
        pictures=detail_pictures(),
        store=args["store"],
        serves=args["serves"],
        language=current().language,
        summary=args["view"] == "summary",
    )
    if detail is None:
        raise NotFound(f"No recipe {recipe_id!r}.")
    return detail

"""Recipe suggestions for product contexts."""

from typing import Any

from flask import Blueprint

from coreapi.blueprints.preferences import applied
from coreapi.context import calling_supplier, current
from coreapi.extensions import db
from coreapi.schemas.parsing import use_args
from coreapi.schemas.preferences import ApplyPreferencesArgs
from coreapi.schemas.suggestions import SuggestionSchema, SuggestionsRequestSchema
from coreapi.services.suggestions import suggest

bp = Blueprint("suggestions", __name__, url_prefix="/suggestions")


@bp.post("")
@use_args(SuggestionsRequestSchema(), location="json")
@use_args(ApplyPreferencesArgs(), location="query")
def create(args: dict[str, Any], query: dict[str, Any]) -> dict[str, Any]:
    """One recipe (or null) per context, in the order of the contexts, among the recipes the shopper's
    preferences keep with ``?preferences=apply``; read-only."""
    ctx = current()
    supplier = calling_supplier()
    suggestions = suggest(
        db.session(),
        args["contexts"],
        session_id=ctx.session_id,
        user_id=ctx.user_id,
        supplier_id=supplier.id if supplier is not None else None,
        profiling=ctx.profiling,
        store=args["store"],
        category_id=args["category_id"],
        keyword=args["keyword"],
        preferences=applied(query["preferences"]),
    )
    return {"data": SuggestionSchema(many=True).dump(suggestions)}

"""Liveness of the service and its database."""

from flask import Blueprint

from coreapi.extensions import db
from coreapi.services.database_errors import RETRY_SOON
from coreapi.services.health import database_answers
from plumbing.problems import Problem

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """``{"status": "ok"}`` when the database answers."""
    if not database_answers(db.session()):
        # As every request of coreapi answers while its database fails (docs/operations.md, "Health checks").
        raise Problem(503, "The database does not answer.", headers=RETRY_SOON)
    return {"status": "ok"}

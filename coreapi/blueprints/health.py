"""Liveness of the service and its database."""

from flask import Blueprint

from coreapi.extensions import db
from coreapi.services.health import database_answers
from plumbing.problems import ServiceUnavailable

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """``{"status": "ok"}`` when the database answers."""
    if not database_answers(db.session()):
        raise ServiceUnavailable("The database does not answer.")
    return {"status": "ok"}

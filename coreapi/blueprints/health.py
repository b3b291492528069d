"""Liveness of the service and its database, and the release it runs."""

from typing import Any

from flask import Blueprint

from coreapi.extensions import db
from coreapi.services.database_errors import RETRY_SOON
from coreapi.services.health import PACKAGE_VERSION, database_health
from plumbing.problems import Problem

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> dict[str, Any]:
    """``{"status": "ok", "version": {"package": ..., "schema": ...}}`` when the database answers: the version of
    the installed coreapi as this process read it at start, and the Alembic revision the database is at."""
    health = database_health(db.session())
    if not health.answers:
        # As every request of coreapi answers while its database fails (docs/operations.md, "Health checks").
        raise Problem(503, "The database does not answer.", headers=RETRY_SOON)
    return {"status": "ok", "version": {"package": PACKAGE_VERSION, "schema": health.schema}}

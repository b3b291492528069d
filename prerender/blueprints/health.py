"""GET /healthz: the process is alive (no upstream call, no headers needed)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness: answers as long as the worker can serve a request."""
    return {"status": "ok"}

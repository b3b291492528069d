"""Routes the specification removed: each answers 410 Gone (not 404), before any header check."""

from __future__ import annotations

from typing import NoReturn

from flask import Blueprint
from werkzeug.exceptions import Gone

from prerender.web.contract import declare, problem

bp = Blueprint("removed", __name__)

# Removed paths, per API version (v1 keeps its catalog favorites page; v2 lost it). "": without a version
# prefix, as the specification names the planner's two link routes (`GET /planner-card-link`).
REMOVED_PATHS: dict[str, tuple[str, ...]] = {
    "": ("/planner-card-link", "/planner-banner-link"),
    "v1": ("/planner-card-link", "/planner-banner-link", "/planner/dashboard"),
    "v2": ("/catalog/favorites", "/planner-card-link", "/planner-banner-link", "/planner/dashboard"),
}


# Whatever a client sends there, the route is gone (a 405 would say another method could work).
GONE_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@declare(
    summary="Removed by the specification",
    deprecated=True,
    answers={410: problem("This route was removed from the service.")},
)
def gone() -> NoReturn:
    """A route the specification removed."""
    raise Gone("This route was removed from the service.")


for _version, _paths in REMOVED_PATHS.items():
    for _path in _paths:
        _prefix = f"/{_version}" if _version else ""
        _endpoint = f"{_version or 'unversioned'}{_path}"
        bp.add_url_rule(f"{_prefix}{_path}", endpoint=_endpoint, view_func=gone, methods=GONE_METHODS)

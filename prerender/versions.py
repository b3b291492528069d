"""Which route lives in which API version: the one table (spec: versioning; DESIGN section 7).

Each API version is a parent blueprint (`/v1`, `/v2`) carrying the shared header guard; the component
blueprints are registered under the versions listed here. A path the spec lists as removed answers 410.
"""
from __future__ import annotations

from flask import Blueprint, Flask
from werkzeug.exceptions import Gone

from .blueprints import basket, bootstrap, events, likes, multiple, recipe_card, recipe_details, styles
from .context import API_VERSIONS, load_request_context

# Blueprint -> the API versions that serve it.
VERSIONED_BLUEPRINTS: tuple[tuple[Blueprint, tuple[str, ...]], ...] = (
    (recipe_card.bp, ("v1", "v2")),
    (multiple.bp, ("v1", "v2")),
    (styles.bp, ("v1", "v2")),
    (recipe_details.bp, ("v1", "v2")),
    (basket.bp, ("v1", "v2")),
    (likes.bp, ("v1", "v2")),
    (events.bp, ("v1", "v2")),
    (bootstrap.bp, ("v2",)),
)

# Paths the spec lists as removed, per version: answered 410 Gone, not 404.
REMOVED_PATHS: dict[str, tuple[str, ...]] = {
    "v1": ("/planner-card-link", "/planner-banner-link", "/planner/dashboard"),
    "v2": ("/catalog/favorites", "/planner-card-link", "/planner-banner-link", "/planner/dashboard"),
}


def _gone() -> None:
    raise Gone("This route was removed from the service.")


def version_blueprint(version: str) -> Blueprint:
    """The parent blueprint of one API version: the header guard and the version's children."""
    parent = Blueprint(version, __name__, url_prefix=f"/{version}")
    parent.before_request(load_request_context)
    for child, versions in VERSIONED_BLUEPRINTS:
        if version in versions:
            parent.register_blueprint(child)
    return parent


def register_versions(app: Flask) -> None:
    """Serve every API version side by side; removed paths answer 410 before any header check."""
    for version in API_VERSIONS:
        app.register_blueprint(version_blueprint(version))
        for path in REMOVED_PATHS[version]:
            app.add_url_rule(f"/{version}{path}", endpoint=f"removed.{version}{path}", view_func=_gone,
                             methods=["GET", "POST"])

"""Every route of the service, one blueprint per module, each named `bp`.

`register_blueprints` is the one table of which route lives in which API version: each version is a
parent blueprint (`/v1`, `/v2`) carrying the shared header guard (prerender/web/context.py), and the
component blueprints are registered under the versions listed here. Routes outside the versions (static
files, health, metrics, the OpenAPI document) need no headers.
"""

from __future__ import annotations

from flask import Blueprint, Flask

from prerender.blueprints import (
    authless,
    basket,
    basket_preview,
    bootstrap,
    catalog,
    cta,
    events,
    favorite_items,
    favorites,
    health,
    likes,
    menu,
    metrics,
    multiple,
    my_space,
    openapi,
    origin_check,
    payments,
    planner,
    preferences,
    recipe_card,
    recipe_details,
    removed,
    static_files,
    styles,
    transfers,
)
from prerender.web.admission import admit_unvouched
from prerender.web.context import load_request_context
from prerender.web.versions import API_VERSIONS

# Blueprint -> the API versions that serve it.
VERSIONED_BLUEPRINTS: tuple[tuple[Blueprint, tuple[str, ...]], ...] = (
    (recipe_card.bp, ("v1", "v2")),
    (multiple.bp, ("v1", "v2")),
    (styles.bp, ("v1", "v2")),
    (recipe_details.bp, ("v1", "v2")),
    (cta.bp, ("v1", "v2")),
    (basket.bp, ("v1", "v2")),
    (payments.bp, ("v1", "v2")),
    (transfers.bp, ("v1", "v2")),
    (likes.bp, ("v1", "v2")),
    (events.bp, ("v1", "v2")),
    (authless.bp, ("v1", "v2")),
    (catalog.bp, ("v1", "v2")),
    (favorites.bp, ("v1",)),
    (preferences.bp, ("v1", "v2")),
    (favorite_items.bp, ("v1", "v2")),
    (bootstrap.bp, ("v2",)),
    (planner.bp, ("v2",)),
    (menu.bp, ("v2",)),
    (my_space.bp, ("v1", "v2")),
    (basket_preview.bp, ("v2",)),
)
UNVERSIONED_BLUEPRINTS: tuple[Blueprint, ...] = (
    removed.bp,
    static_files.bp,
    health.bp,
    metrics.bp,
    openapi.bp,
    origin_check.bp,
)


def version_blueprint(version: str) -> Blueprint:
    """The parent blueprint of one API version: the header guard and the version's children."""
    parent = Blueprint(version, __name__, url_prefix=f"/{version}")
    parent.before_request(load_request_context)
    parent.before_request(admit_unvouched)  # once the guard knows whether a supplier vouches for the request
    for child, versions in VERSIONED_BLUEPRINTS:
        if version in versions:
            parent.register_blueprint(child)
    return parent


def register_blueprints(app: Flask) -> None:
    """Serve every API version side by side, then the routes outside them (removed paths answer 410
    before any header check: they are not under the versions' guard)."""
    for version in API_VERSIONS:
        app.register_blueprint(version_blueprint(version))
    for blueprint in UNVERSIONED_BLUEPRINTS:
        app.register_blueprint(blueprint)

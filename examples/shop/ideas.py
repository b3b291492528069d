"""Pages using the browser runtime without server-rendered cards: the shop's own recipe cards tracked like
native ones, with the planner's entry block ("Nos fiches maison", in the recipe section whose other pages are
prerender's catalog, recipe_catalog.py), and a page inserting prerender cards at runtime with innerHTML
("Injection")."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from concurrent.futures import Future

from flask import Blueprint, Response, current_app, make_response, render_template, request

from . import page_budget
from .catalog_client import CatalogClient, CatalogUnavailable, RecipeSummary, UnknownStore
from .runtime import module_tags, sdk_and_styles
from .services import get_services
from .texts import Texts
from .views import Page, catalog_answer, personal, stores_of
from .visitor import Visitor, valid_identifier, visitor_from

log = logging.getLogger(__name__)

bp = Blueprint("ideas", __name__)

# prerender's stylesheet of the planner entry block (v2, the planner's API version), besides the page's.
PLANNER_ENTRY_STYLES = "planner/planner-entry"


def _recipes(catalog: CatalogClient, visitor: Visitor, request_id: str, *, per_page: int) -> list[RecipeSummary]:
    """The shop's own recipes at the visitor's store (all of them at a store the catalog does not know), none when
    the catalog is down."""
    try:
        return catalog.recipes(
            store_id=visitor.store_id, language=visitor.language, per_page=per_page, request_id=request_id
        )
    except UnknownStore:
        return catalog.recipes(store_id=None, language=visitor.language, per_page=per_page, request_id=request_id)
    except CatalogUnavailable:
        return []


def _stores(visitor: Visitor, request_id: str) -> Future:
    services = get_services()
    return services.pool.submit(services.catalog.stores, language=visitor.language, request_id=request_id)


def _render(template: str, visitor: Visitor, page: Page, **values: object) -> Response:
    return personal(make_response(render_template(template, page=page, t=Texts(visitor.language), **values)), visitor)


@bp.get("/idees/fiches")
def sheets() -> Response:
    """The shop's own recipe cards ("Nos fiches maison"), tracked with attachRecipeCardShowTracking, the planner
    entry block and the live event panel."""
    return _runtime_page("ideas.html", analytics_path="/idees/fiches", scripts=lambda sdk: sdk, planner_entry=True)


@bp.get("/injection")
def injection() -> Response:
    """A page that inserts prerender cards at runtime: module scripts and stylesheets are already there."""
    return _runtime_page("injection.html", analytics_path="/injection", scripts=module_tags)


def _runtime_page(
    template: str, *, analytics_path: str, scripts: Callable[[str], str], planner_entry: bool = False
) -> Response:
    """A page of recipes running the browser runtime: the SDK tag (made into `scripts`) and the styles, and with
    `planner_entry` the planner's entry block (`entry_html`, "" when prerender gives none)."""
    services = get_services()
    visitor = visitor_from(request)
    request_id = uuid.uuid4().hex
    stores = _stores(visitor, request_id)
    # The shop's own recipes, asked beside the stores: with the catalog slow, the page waits for one timeout, not two
    # (two calls, at a store the catalog does not know).
    recipes = services.pool.submit(
        _recipes, services.catalog, visitor, request_id, per_page=current_app.config["IDEAS_SIZE"]
    )
    entry = _planner_entry(visitor, request_id) if planner_entry else None
    sdk, styles = sdk_and_styles(services.prerender, services.pool, visitor, request_id=request_id)
    entry_html, entry_styles = _entry_of(entry)
    page = Page(
        visitor=visitor,
        stores=stores_of(stores),
        styles_html=styles + entry_styles,
        scripts_html=scripts(sdk),
        analytics_path=analytics_path,
    )
    return _render(template, visitor, page, recipes=catalog_answer(recipes, calls=2), entry_html=entry_html)


def _planner_entry(visitor: Visitor, request_id: str) -> tuple[Future[str], Future[str]]:
    """The planner entry block at the visitor's store and its stylesheet links, asked at once."""
    services = get_services()
    prerender, pool = services.prerender, services.pool
    return (
        pool.submit(prerender.planner_entry, visitor, store_id=visitor.store_id, request_id=request_id),
        pool.submit(prerender.styles, visitor, PLANNER_ENTRY_STYLES, request_id=request_id, version="v2"),
    )


def _entry_of(entry: tuple[Future[str], Future[str]] | None) -> tuple[str, str]:
    """(the entry block, its stylesheet links), or ("", "") when it failed or is late: the page goes on without."""
    if entry is None:
        return "", ""
    try:
        html, styles = (
            entry[0].result(timeout=page_budget.remaining()),
            entry[1].result(timeout=page_budget.remaining()),
        )
    except TimeoutError:
        log.warning("the planner entry block missed the page budget; left out")
        return "", ""
    return (html, styles) if html else ("", "")


@bp.get("/injection/card")
def injection_card() -> Response:
    """One prerender card for a recipe, asked with the visitor's headers: HTML for innerHTML ("" if none)."""
    recipe_id = request.args.get("recipe_id", "")
    if not valid_identifier(recipe_id) or len(recipe_id) > 64:
        return Response("", status=400, mimetype="text/plain")
    visitor = visitor_from(request)
    html = get_services().prerender.recipe_card_of(
        visitor, recipe_id, store_id=visitor.store_id, display_variant=2, request_id=uuid.uuid4().hex
    )
    return personal(Response(html, mimetype="text/html"), visitor)

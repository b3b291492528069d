"""The planner's pages: prerender's current-menu page in the shop's layout. `/planner/current-menu` is where the
planner entry leads (`planner.current` of the supplier's routing) and `/planner` its shareable address
(`features.planner`); both ask prerender for the visitor's menu with the page's own query parameters.

The menu is the page's main content: when prerender fails or refuses the page's parameters, the shop still
shows its header and a message saying so (503, or 400 for parameters prerender refused)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping

from flask import Blueprint, Response, make_response, render_template, request, url_for

from .prerender_client import PlannerPage
from .services import get_services
from .texts import Texts
from .views import Page, personal, stores_of, styles_of
from .visitor import Visitor, visitor_from

log = logging.getLogger(__name__)

bp = Blueprint("planner", __name__, url_prefix="/planner")

# The parameters of the page's query string that prerender's page reads (README.md), passed through as strings:
# prerender validates them. `store_id` is decided apart (`store_of`); any other parameter stays the shop's.
FORWARDED = ("mode", "view", "guests", "recipe_type_id", "search", "page")
# prerender's stylesheets of the page (v2, the planner's API version).
STYLE_COMPONENTS = ("base", "planner")


def store_of(visitor: Visitor, args: Mapping[str, str]) -> str | None:
    """The store the menu is priced at: the visitor's (the header's), else the page's `store_id` if any."""
    return visitor.store_id or args.get("store_id") or None


def planner_query(args: Mapping[str, str], *, store_id: str | None) -> dict[str, str]:
    """What the page asks prerender: the store, and the forwarded parameters the page has (their first value;
    empty ones, as a search form sends them, are left out)."""
    query = {name: value for name in FORWARDED if (value := args.get(name))}
    if store_id:
        query["store_id"] = store_id
    return query


@bp.get("/current-menu")
def current_menu() -> Response:
    """The visitor's menu of the week: prerender's current-menu page (the planner entry's destination)."""
    return _planner_page(landing=False)


@bp.get("")
def landing() -> Response:
    """The planner's shareable address: the same page, from prerender's landing route."""
    return _planner_page(landing=True)


def _planner_page(*, landing: bool) -> Response:
    """The page: prerender's menu (or the message saying why there is none), the header, the stylesheets."""
    services = get_services()
    prerender, pool = services.prerender, services.pool
    visitor = visitor_from(request)
    request_id = uuid.uuid4().hex
    stores = pool.submit(services.catalog.stores, language=visitor.language, request_id=request_id)
    styles = [
        pool.submit(prerender.styles, visitor, name, request_id=request_id, version="v2") for name in STYLE_COMPONENTS
    ]
    visitor, fragment = _menu(visitor, landing=landing, request_id=request_id)
    page = Page(
        visitor=visitor,
        stores=stores_of(stores),
        styles_html=styles_of(styles),
        analytics_path=request.path,
    )
    t = Texts(visitor.language)
    # Only the parameters the page forwards go back into its own links (never the raw query string).
    retry_url = url_for(str(request.endpoint), **planner_query(request.args, store_id=request.args.get("store_id")))
    html = render_template("planner.html", page=page, t=t, fragment=fragment, retry_url=retry_url)
    response = personal(make_response(html), visitor)
    if not fragment.html:
        response.status_code = 400 if fragment.refused else 503
        if not fragment.refused:
            response.headers["Retry-After"] = "30"
    return response


def _menu(visitor: Visitor, *, landing: bool, request_id: str) -> tuple[Visitor, PlannerPage]:
    """prerender's page for the visitor. A store in the visitor's cookie that prerender does not know (a stale
    cookie) is dropped and the page asked again without a store, as the shelf does."""
    prerender = get_services().prerender
    store_id = store_of(visitor, request.args)
    fragment = prerender.planner_page(
        visitor, landing=landing, params=planner_query(request.args, store_id=store_id), request_id=request_id
    )
    if visitor.store_id and fragment.refused and fragment.names("query", "store_id"):
        log.info("unknown store %s in the visitor's cookie: the planner without a store", visitor.store_id)
        visitor = visitor.without_store()
        fragment = prerender.planner_page(
            visitor, landing=landing, params=planner_query(request.args, store_id=None), request_id=request_id
        )
    if not fragment.html and not fragment.refused:
        log.warning("planner page without prerender's menu (status %s, request %s)", fragment.status, request_id)
    return visitor, fragment

"""The shop's recipe section ("Idées", under `/idees`): prerender's catalog pages in the shop's layout, at the
addresses the supplier's routing gives them (coreapi's seed, supplier 1, `local`): the home (`features.catalog`),
a category, the list (a search, recipe types, every recipe), the favorites (v1), my space and the basket preview
(v2). Each page asks its prerender route with the page's own query parameters (those the route reads, passed
through as strings: prerender validates them), the visitor's store and the visitor's identity headers.

The fragment is the page's main content. When prerender refuses the page's parameters (400) the shop shows its
notice, when it fails or is late the shop's "unavailable" block (503): both within the shop's page, with the
section's navigation. An unknown category (prerender's 404) is the shop's 404 page. prerender's catalog pages
send their pageview themselves, with their analytics path: these pages have no `<meta name="svc-analytics-path">`
(its pageview would come on top of theirs, docs/sdk.md)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from flask import Blueprint, Response, make_response, render_template, request, url_for

from .planner import store_of
from .prerender_client import PageFragment
from .services import get_services
from .texts import Texts
from .views import Page, not_found_page, personal, stores_of, styles_of
from .visitor import Visitor, visitor_from

log = logging.getLogger(__name__)

bp = Blueprint("recipes", __name__, url_prefix="/idees")


@dataclass(frozen=True)
class CatalogPage:
    """One page of the section: its endpoint (`recipes.<name>`), prerender's route, the parameters of the page's
    address it forwards to it (the query its route reads; `store_id` is decided apart, `store_of`), what the shop
    asks when the address says nothing (the address wins), its stylesheets and its title (a key of texts.py)."""

    name: str
    route: str
    version: str
    forwarded: tuple[str, ...]
    styles: str
    title: str
    defaults: Mapping[str, str] = field(default_factory=dict)
    # Parameters the page cannot do without (the category's): kept in the link that reopens a refused page.
    required: tuple[str, ...] = ()
    # prerender's 404 means that what the page names does not exist (an unknown category): the shop's 404 page.
    not_found: bool = False


HOME = CatalogPage(
    name="home",
    route="/catalog",
    version="v2",
    forwarded=("max_recipes_per_category", "display_infos", "display_recipe_variant"),
    styles="catalog/catalog-home",
    title="nav_ideas",
)
CATEGORY = CatalogPage(
    name="category",
    route="/catalog/category",
    version="v2",
    forwarded=(
        "category_id",
        "search",
        "recipe_type_id",
        "recipe_type_filter",
        "planner",
        "page",
        "display_infos",
        "display_recipe_variant",
    ),
    styles="catalog/catalog-category",
    title="recipes_category",
    required=("category_id",),
    not_found=True,
)
SEARCH = CatalogPage(
    name="search",
    route="/catalog/list",
    version="v2",
    forwarded=(
        "search",
        "all_recipes",
        "recipe_type_id",
        "recipe_type_filter",
        "planner",
        "page",
        "display_infos",
        "display_recipe_variant",
    ),
    styles="catalog/catalog-list",
    title="recipes_search",
    # The shop shows the recipe-type chips on its search page.
    defaults={"recipe_type_filter": "true"},
)
FAVORITES = CatalogPage(
    name="favorites",
    route="/catalog/favorites",
    version="v1",
    forwarded=("page",),
    styles="catalog/catalog-favorites",
    title="recipes_favorites",
)
MY_SPACE = CatalogPage(
    name="my_space",
    route="/catalog/my-space",
    version="v2",
    forwarded=("tab", "history_style", "show_tab_selector", "page"),
    styles="catalog/my-space",
    title="my_space",
)
BASKET = CatalogPage(
    name="basket",
    route="/catalog/my-space/basket-preview",
    version="v2",
    forwarded=("title", "show_tab_selector", "embed"),
    styles="catalog/my-space",
    title="my_meals",
    # The basket with the my-space tabs above it (Favorites, History, the basket).
    defaults={"show_tab_selector": "true"},
)
PAGES = (HOME, CATEGORY, SEARCH, FAVORITES, MY_SPACE, BASKET)


def forwarded_of(page: CatalogPage, args: Mapping[str, str]) -> dict[str, str]:
    """The parameters of the page's address that it forwards (their first value; empty ones, as a search form
    sends them, are left out)."""
    return {name: value for name in page.forwarded if (value := args.get(name))}


def catalog_query(page: CatalogPage, args: Mapping[str, str], *, store_id: str | None) -> dict[str, str]:
    """What the page asks prerender: the shop's defaults, the forwarded parameters of its address, the store."""
    query = {**page.defaults, **forwarded_of(page, args)}
    if store_id:
        query["store_id"] = store_id
    return query


@bp.get("")
def home() -> Response:
    """The catalog home (`features.catalog`): prerender's header, planner entry and a row of recipes per
    category."""
    return _catalog_page(HOME)


@bp.get("/categorie")
def category() -> Response:
    """A category's recipes (`?category_id=`), a page at a time; an unknown category is the shop's 404."""
    return _catalog_page(CATEGORY)


@bp.get("/recherche")
def search() -> Response:
    """The list: a search, recipe types or every recipe, with the recipe-type chips."""
    return _catalog_page(SEARCH)


@bp.get("/favoris")
def favorites() -> Response:
    """The logged-in user's favorite recipes (prerender's v1 page; a prompt to log in otherwise)."""
    return _catalog_page(FAVORITES)


@bp.get("/mon-espace")
def my_space() -> Response:
    """My space: the visitor's favorites and history tabs."""
    return _catalog_page(MY_SPACE)


@bp.get("/panier")
def basket() -> Response:
    """My meals: the recipes of the visitor's basket at its store, with the my-space tabs."""
    return _catalog_page(BASKET)


def _catalog_page(page: CatalogPage) -> Response:
    """The page: prerender's fragment (or the shop's message saying why there is none), the header, the
    stylesheets (prerender's base, then the page's)."""
    services = get_services()
    prerender, pool = services.prerender, services.pool
    visitor = visitor_from(request)
    request_id = uuid.uuid4().hex
    stores = pool.submit(services.catalog.stores, language=visitor.language, request_id=request_id)
    styles = [
        pool.submit(prerender.styles, visitor, name, request_id=request_id, version=page.version)
        for name in ("base", page.styles)
    ]
    visitor, fragment = _fragment(page, visitor, request_id=request_id)
    if page.not_found and fragment.not_found:
        log.info("%s: prerender knows no such page (request %s)", request.full_path, request_id)
        return not_found_page(visitor, stores)
    shown = Page(visitor=visitor, stores=stores_of(stores), styles_html=styles_of(styles))
    t = Texts(visitor.language)
    # Only the parameters the page forwards go back into its own links (never the raw query string).
    retry_url = url_for(str(request.endpoint), **forwarded_of(page, request.args), **_store_arg(request.args))
    html = render_template(
        "recipe_catalog.html",
        page=shown,
        t=t,
        catalog=page,
        fragment=fragment,
        retry_url=retry_url,
        afresh=_afresh(page, fragment),
    )
    response = personal(make_response(html), visitor)
    if not fragment.html:
        response.status_code = 400 if fragment.refused else 503
        if not fragment.refused:
            response.headers["Retry-After"] = "30"
    return response


def _fragment(page: CatalogPage, visitor: Visitor, *, request_id: str) -> tuple[Visitor, PageFragment]:
    """prerender's page for the visitor. A store in the visitor's cookie that prerender does not know (a stale
    cookie: refused, or the basket preview's empty basket at it) is dropped and the page asked again without a
    store, as the shelf does."""
    prerender = get_services().prerender

    def ask(visitor: Visitor, store_id: str | None) -> PageFragment:
        return prerender.page_fragment(
            visitor,
            page.route,
            version=page.version,
            params=catalog_query(page, request.args, store_id=store_id),
            not_found=page.not_found,
            request_id=request_id,
        )

    fragment = ask(visitor, store_of(visitor, request.args))
    if visitor.store_id and (fragment.unknown_store or (fragment.refused and fragment.names("query", "store_id"))):
        log.info("unknown store %s in the visitor's cookie: the %s page without a store", visitor.store_id, page.name)
        visitor = visitor.without_store()
        fragment = ask(visitor, None)
    if fragment.refused:
        log.warning(
            "%s: prerender refused the page's parameters %s (status %s, request %s)",
            request.full_path,
            sorted(fragment.errors.get("query") or ()),
            fragment.status,
            request_id,
        )
    elif not fragment.html and not (page.not_found and fragment.not_found):
        log.warning("%s without prerender's page (status %s, request %s)", request.path, fragment.status, request_id)
    return visitor, fragment


def _store_arg(args: Mapping[str, str]) -> dict[str, str]:
    """The store of the page's own address, if any (a link of prerender's may carry one)."""
    return {"store_id": store_id} if (store_id := args.get("store_id")) else {}


def _afresh(page: CatalogPage, fragment: PageFragment) -> tuple[str, str]:
    """(the link, its text) reopening a refused page without its parameters: the page itself, with the ones it
    cannot do without unless they are what prerender refused (then the section's home)."""
    kept = {name: value for name in page.required if (value := request.args.get(name))}
    if any(fragment.names("query", name) for name in page.required) or len(kept) < len(page.required):
        return url_for("recipes.home"), HOME.title
    return url_for(f"recipes.{page.name}", **kept), page.title

"""The shop's pages: the shelf, the identity and preference forms, the health check."""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, jsonify, make_response, redirect, render_template, request, url_for

from examples.stylesheets import OPENED_LATER, defer_sheets

from . import page_budget
from .carts import cart_key, carts
from .catalog_client import CatalogClient, CatalogUnavailable, Product, Store, UnknownStore
from .fragments import fetch_shelf_fragments
from .runtime import shop_context
from .services import get_services
from .shelf import TALL_SCREEN_PX, after_first_screen, assemble
from .texts import Texts
from .visitor import (
    AUTHLESS_COOKIE,
    LANGUAGE_COOKIE,
    LANGUAGES,
    STORE_COOKIE,
    Visitor,
    new_authless_id,
    persist,
    set_cookie,
    valid_store_id,
    visitor_from,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

bp = Blueprint("shop", __name__)

# prerender's sheets that no first paint of the shop needs (examples/stylesheets.py): what opens on a click, and
# the publisher's add-to-cart button, which the shop never shows (the recipe-card route serves its sheet).
LATER_SHEETS = OPENED_LATER | {"no-supplier-cta"}


@dataclass(frozen=True)
class Page:
    """What the layout template needs besides the page's own content."""

    visitor: Visitor
    stores: list[Store]
    styles_html: str = ""
    # The SDK's module scripts for a page without server-rendered fragments (which carry their own).
    scripts_html: str = ""
    # <meta name="svc-analytics-path">: the SDK sends a pageview with it.
    analytics_path: str | None = None

    @property
    def head_styles(self) -> str:
        """prerender's stylesheet links for <head>: those of what opens later do not block the first paint."""
        return defer_sheets(self.styles_html, LATER_SHEETS)

    @property
    def context(self) -> dict[str, Any]:
        """What static/svc-setup.js needs (rendered as JSON in the page)."""
        return shop_context(self.visitor)

    @property
    def store(self) -> Store | None:
        return next((s for s in self.stores if s.id == self.visitor.store_id), None)


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness of the shop itself: never calls prerender or coreapi."""
    return {"status": "ok"}


@bp.get("/")
def shelf() -> Response:
    """The shelf: the store's products with recipe cards from prerender between them."""
    services = get_services()
    catalog, prerender, pool = services.catalog, services.prerender, services.pool
    visitor = visitor_from(request)
    request_id = uuid.uuid4().hex
    t = Texts(visitor.language)

    stores_future = pool.submit(catalog.stores, language=visitor.language, request_id=request_id)
    try:
        visitor, products = _products(catalog, visitor, request_id)
    except CatalogUnavailable:
        stores_future.cancel()
        return _catalog_unavailable(visitor, t)
    stores = stores_of(stores_future)

    fragments = fetch_shelf_fragments(
        prerender, pool, visitor, products, request_id=request_id, budget=page_budget.remaining()
    )
    items = assemble(products, fragments.singles, fragments.band)
    page = Page(visitor=visitor, stores=stores, styles_html=fragments.styles_html, analytics_path="/")
    return personal(
        make_response(
            render_template(
                "shelf.html",
                page=page,
                t=t,
                items=items,
                products=products,
                after_first_screen=after_first_screen(items),
                tall_screen_px=TALL_SCREEN_PX,
            )
        ),
        visitor,
    )


def personal(response: Response, visitor: Visitor) -> Response:
    """A page made for this visitor: never cached, and its cookies (identity, store, session) kept."""
    response.headers["Cache-Control"] = "private, no-store"
    persist(visitor, response, secure=current_app.config["COOKIE_SECURE"])
    return response


def _products(catalog: CatalogClient, visitor: Visitor, request_id: str) -> tuple[Visitor, list[Product]]:
    """The shelf's products; a store coreapi does not know (a stale cookie) is dropped."""
    per_page = current_app.config["SHELF_SIZE"]
    try:
        return visitor, catalog.products(
            store_id=visitor.store_id, language=visitor.language, per_page=per_page, request_id=request_id
        )
    except UnknownStore:
        log.info("unknown store %s in the visitor's cookie: showing the shelf without a store", visitor.store_id)
        visitor = visitor.without_store()
        return visitor, catalog.products(
            store_id=None, language=visitor.language, per_page=per_page, request_id=request_id
        )


def stores_of(future: Future[list[Store]]) -> list[Store]:
    """The stores of the picker, or none when the catalog is late or down (the page goes on)."""
    return catalog_answer(future)


def catalog_answer(future: Future[list[T]], *, calls: int = 1) -> list[T]:
    """What a task of the page's pool asking the shop's catalog (`calls` calls in turn) found, or nothing when the
    catalog is down or late: waited for as long as their read timeouts and a second (the task may have queued
    behind a busy pool), then the page goes on."""
    try:
        return future.result(timeout=calls * current_app.config["COREAPI_READ_TIMEOUT"] + 1)
    except (CatalogUnavailable, TimeoutError):
        return []


def styles_of(futures: list[Future[str]]) -> str:
    """prerender's stylesheet links fetched within the page's budget (a late or failed one is left out)."""
    links = []
    for future in futures:
        try:
            links.append(future.result(timeout=page_budget.remaining()))
        except TimeoutError:
            log.warning("prerender stylesheets missed the page budget; left out")
    return "".join(links)


def not_found_page(visitor: Visitor, stores: Future) -> Response:
    """The shop's 404 page, for an address that names what does not exist (an unknown recipe category)."""
    page = Page(visitor=visitor, stores=stores_of(stores))
    html = render_template("not_found.html", page=page, t=Texts(visitor.language))
    return personal(make_response(html, 404), visitor)


def _catalog_unavailable(visitor: Visitor, t: Texts) -> Response:
    page = Page(visitor=visitor, stores=[])
    response = make_response(render_template("unavailable.html", page=page, t=t), 503)
    response.headers["Retry-After"] = "30"
    response.headers["Cache-Control"] = "no-store"
    persist(visitor, response, secure=current_app.config["COOKIE_SECURE"])
    return response


def local_path(target: str) -> str | None:
    """`target` when it is a path of this site (its query too), else None: no scheme nor host, no backslash, no
    whitespace nor control character (browsers drop tabs and newlines from a URL: `/<tab>/host` is `//host`)."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    if any(char.isspace() or not char.isprintable() for char in target):
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


def _back_to_shelf() -> Response:
    """Back to the page the form was on (a local path in the form's `next`, such as the planner's page the
    login was asked from), else the shelf."""
    target = local_path(request.form.get("next", "")) or url_for("shop.shelf")
    return redirect(target, code=303)


@bp.post("/connexion")
def login() -> Response:
    """Log in as the demo user (no password: it is a demo). What the visitor gathered while logged out, its
    recipe basket and its cart, becomes the user's (`_join_authless_history`)."""
    config = current_app.config
    visitor = visitor_from(request)
    user = visitor.logged_in_as(config["DEMO_USER_ID"])
    # A visitor with an authless history: logged out until now, with an authless id from an earlier page.
    if not visitor.logged_in and AUTHLESS_COOKIE not in visitor.new_cookies:
        _join_authless_history(visitor, user, request_id=uuid.uuid4().hex)
    response = _back_to_shelf()
    persist(user, response, secure=config["COOKIE_SECURE"])
    return response


def _join_authless_history(visitor: Visitor, user: Visitor, *, request_id: str) -> None:
    """At login, the logged-out visitor's recipe basket and cart become the user's.

    - The planner menu: the one the visitor built replaces the user's (prerender's `merge-authless-menu`,
      as the spec's menu lifecycle says: replaced, not merged); nothing happens when the visitor built none.
    - The recipe basket, at the visitor's store (baskets are per store): the shop's server asks prerender to
      merge it into the user's (prerender's `merge-authless-basket`, its supplier-token vouching for both
      identities), and with it the visitor's favorite products, its order history (my space's history tab) and,
      for a user who saved none, its preferences. Without a store there is no basket to merge (and the route,
      which needs one, carries nothing else either). A failure is logged; the login goes on.
    - The shop's cart: every line of the authless cart is added to the user's cart (quantities add up) and
      the authless cart is emptied, whatever the merge's outcome. The basket never holds more than the cart
      (the SDK reports the cart and the basket follows it), so the user's cart then holds at least the merged
      basket's products: the report of the next page leaves the merged recipes in place, and nothing the
      visitor put in the cart is lost.
    """
    get_services().prerender.merge_authless_menu(user, visitor.authless_id, request_id=request_id)
    if visitor.store_id:
        merged = get_services().prerender.merge_authless_basket(
            user, visitor.authless_id, store_id=visitor.store_id, request_id=request_id
        )
        if merged is None:
            log.warning(
                "login: the recipe basket of the logged-out visitor was not merged into the user's (request %s)",
                request_id,
            )
    carts().move(cart_key(visitor), cart_key(user))


@bp.post("/deconnexion")
def logout() -> Response:
    """Log out: the browser becomes a new logged-out visitor, with a new authless id from prerender (its
    basket and cart start empty; the user's stay the user's)."""
    config = current_app.config
    visitor = visitor_from(request)
    response = _back_to_shelf()
    if visitor.logged_in:
        authless_id = new_authless_id(
            language=visitor.language, session_id=visitor.session_id, request_id=uuid.uuid4().hex
        )
        persist(visitor.logged_out(authless_id), response, secure=config["COOKIE_SECURE"])
    else:
        persist(visitor, response, secure=config["COOKIE_SECURE"])
    return response


@bp.post("/preferences")
def preferences() -> Response:
    """Store and/or language pickers. Unknown values are ignored.

    A form goes back to its page (303). A page's script may post the same form with fetch and `Accept:
    application/json` (static/svc-setup.js, when prerender's SDK asks the page to move to a store): the answer is
    then `{"storeId": ...}`, the visitor's store from now on (null: none), 200 when what was asked is done, 422
    when the store asked for was refused (malformed, or unknown to the catalog) and nothing changed.
    """
    secure = current_app.config["COOKIE_SECURE"]
    language = request.form.get("language")
    current = request.cookies.get(STORE_COOKIE)
    store_id: str | None = current if valid_store_id(current) else None
    store_changed = refused = False
    if "store_id" in request.form:
        asked = request.form["store_id"].strip()
        if not asked:
            store_id, store_changed = None, True
        elif valid_store_id(asked) and _known_store(asked):
            store_id, store_changed = asked, True
        else:
            refused = True
    if _wants_json():
        response = jsonify(storeId=store_id)
        response.status_code = 422 if refused else 200
        response.headers["Cache-Control"] = "no-store"
    else:
        response = _back_to_shelf()
    if language in LANGUAGES:
        set_cookie(response, LANGUAGE_COOKIE, language, secure=secure)
    if store_changed:
        set_cookie(response, STORE_COOKIE, store_id, secure=secure)
    return response


def _wants_json() -> bool:
    """Whether the request prefers a JSON answer to the HTML page (a script's fetch, not a form)."""
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def _known_store(store_id: str) -> bool:
    """Whether coreapi knows the store; when it cannot tell, the shelf checks it later anyway."""
    try:
        stores = get_services().catalog.stores(language="fr")
    except CatalogUnavailable:
        return True
    return any(store.id == store_id for store in stores)

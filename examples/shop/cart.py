"""The shop's own cart: kept server-side per visitor (carts.py), fed by prerender's basket (basketSync) and
shown on its page."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, make_response, redirect, render_template, request, url_for

from .carts import MAX_QUANTITY, cart_key, carts
from .catalog_client import CatalogUnavailable, UnknownStore
from .runtime import sdk_and_styles
from .services import get_services
from .texts import Texts
from .views import Page, local_path, personal, stores_of
from .visitor import Visitor, persist, valid_identifier, visitor_from

bp = Blueprint("cart", __name__, url_prefix="/cart")

MAX_LINES = 500


def _answer(lines: dict[str, int], visitor: Visitor) -> Response:
    response = jsonify(lines=[{"id": pid, "quantity": q} for pid, q in lines.items()], count=sum(lines.values()))
    response.headers["Cache-Control"] = "no-store"
    persist(visitor, response, secure=current_app.config["COOKIE_SECURE"])
    return response


def _problem(detail: str, status: int = 400) -> Response:
    response = jsonify(
        type="about:blank",
        title="Bad Request" if status == 400 else "Unsupported Media Type",
        status=status,
        detail=detail,
    )
    response.status_code = status
    response.mimetype = "application/problem+json"
    return response


def _deltas(body: Any) -> list[tuple[str, int]] | None:
    """[{id, quantity}] with product ids and non-zero integer quantities; None when malformed."""
    if not isinstance(body, list) or len(body) > MAX_LINES:
        return None
    deltas = []
    for item in body:
        if not isinstance(item, dict):
            return None
        product_id, quantity = item.get("id"), item.get("quantity")
        if isinstance(product_id, int) and not isinstance(product_id, bool):
            product_id = str(product_id)
        if not isinstance(product_id, str) or not valid_identifier(product_id) or len(product_id) > 64:
            return None
        if not isinstance(quantity, int) or isinstance(quantity, bool) or abs(quantity) > MAX_QUANTITY:
            return None
        deltas.append((product_id, quantity))
    return deltas


@bp.app_context_processor
def cart_counter() -> dict[str, int]:
    """The number of items in the visitor's cart, for the header of every page."""
    return {"cart_count": sum(carts().lines(cart_key(visitor_from(request))).values())}


@bp.get("/lines")
def lines() -> Response:
    """The visitor's cart as JSON: {lines: [{id, quantity}], count}."""
    visitor = visitor_from(request)
    return _answer(carts().lines(cart_key(visitor)), visitor)


@bp.post("/lines")
def change_lines() -> Response:
    """Apply [{id, quantity}] deltas (positive adds, negative removes) and answer the new cart."""
    if not request.is_json:
        return _problem("Send the deltas as application/json.", 415)
    deltas = _deltas(request.get_json(silent=True))
    if deltas is None:
        return _problem("Expected a JSON array of {id, quantity} with non-zero integer quantities.")
    visitor = visitor_from(request)
    return _answer(carts().apply(cart_key(visitor), deltas), visitor)


@bp.post("/add")
def add() -> Response:
    """The shelf's "Ajouter" without JavaScript (static/shelf.js posts to /cart/lines instead): one more of
    the form's product, then back to the form's page (303). A malformed product id changes nothing."""
    product_id = request.form.get("product_id", "")
    visitor = visitor_from(request)
    if valid_identifier(product_id) and len(product_id) <= 64:
        carts().apply(cart_key(visitor), [(product_id, 1)])
    response = redirect(local_path(request.form.get("next", "")) or url_for("shop.shelf"), code=303)
    persist(visitor, response, secure=current_app.config["COOKIE_SECURE"])
    return response


@bp.get("")
def page() -> Response:
    """The cart page: its lines with name and price from the catalog, and the payment button."""
    services = get_services()
    visitor = visitor_from(request)
    request_id = uuid.uuid4().hex
    t = Texts(visitor.language)
    quantities = carts().lines(cart_key(visitor))
    stores_future = services.pool.submit(services.catalog.stores, language=visitor.language, request_id=request_id)
    sdk, styles = sdk_and_styles(services.prerender, services.pool, visitor, request_id=request_id)
    products = {}
    catalog_down = False
    if quantities:
        try:
            found = services.catalog.products(
                store_id=visitor.store_id,
                language=visitor.language,
                ids=list(quantities),
                per_page=len(quantities),
                request_id=request_id,
            )
            products = {p.id: p for p in found}
        except (CatalogUnavailable, UnknownStore):
            catalog_down = True
    lines = [
        {
            "id": pid,
            "quantity": q,
            "product": products.get(pid),
            "total": (products[pid].price * q) if pid in products and products[pid].price is not None else None,
        }
        for pid, q in quantities.items()
    ]
    total = sum((line["total"] for line in lines if line["total"] is not None), Decimal("0"))
    page_ = Page(
        visitor=visitor, stores=stores_of(stores_future), styles_html=styles, scripts_html=sdk, analytics_path="/cart"
    )
    return personal(
        make_response(
            render_template(
                "cart.html",
                page=page_,
                t=t,
                lines=lines,
                total=total,
                catalog_down=catalog_down,
                max_quantity=MAX_QUANTITY,
            )
        ),
        visitor,
    )

"""The request context of the API routes: headers parsed once into ``g.ctx``."""

from __future__ import annotations

import datetime as dt
import functools
import hmac
import logging
from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeVar

from flask import current_app, g

from coreapi.extensions import db
from coreapi.models import Supplier
from coreapi.schemas.headers import RequestHeadersSchema
from coreapi.schemas.parsing import parser
from coreapi.services.catalog import find_active_supplier, find_active_supplier_by_id
from coreapi.services.identity import Identity, IdentityKind, RequestContext
from plumbing.problems import BadRequest, Forbidden, Unauthorized

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


def load_request_context() -> None:
    """``before_request`` of the API: parse the headers, resolve the calling supplier.

    The supplier is named by its ``Supplier-Token``, or, for a service holding one of the
    ``SERVICE_KEYS`` (``X-Service-Key``), by its id (``Supplier-Id``). Malformed headers are ``400``,
    and so are ``Supplier-Token`` and ``X-Service-Key`` together; a ``Supplier-Token``, an
    ``X-Service-Key`` or a ``Supplier-Id`` that is present but unknown is ``401``, and so is a
    ``Supplier-Id`` without ``X-Service-Key``. A suspended supplier is unknown here (``catalog.supplier_active``):
    its clients' handling of a revoked token applies as it is; so is a token a rotation replaced, once its overlap
    ended (``catalog.token_names``). The service key is never logged nor echoed.
    """
    ctx: RequestContext = parser.parse(RequestHeadersSchema(), location="headers")
    g.ctx = ctx
    g.supplier = None
    g.service = False
    if ctx.supplier_token is not None and ctx.service_key is not None:
        raise BadRequest("Send either a Supplier-Token or an X-Service-Key (with a Supplier-Id), not both.")
    if ctx.service_key is not None:
        if not is_service_key(ctx.service_key, current_app.config["SERVICE_KEYS"]):
            log.warning("Refused a request whose X-Service-Key matches no configured key.")
            raise Unauthorized("Invalid X-Service-Key.")
        g.service = True
    if ctx.supplier_id is not None:
        if not g.service:
            raise Unauthorized("Supplier-Id needs X-Service-Key.")
        g.supplier = find_active_supplier_by_id(db.session(), ctx.supplier_id)
        if g.supplier is None:
            raise Unauthorized("Unknown Supplier-Id.")
    elif ctx.supplier_token is not None:
        g.supplier = find_active_supplier(db.session(), ctx.supplier_token, now=dt.datetime.now(dt.UTC))
        if g.supplier is None:
            raise Unauthorized("Unknown Supplier-Token.")


def is_service_key(candidate: str, keys: Iterable[str]) -> bool:
    """Whether ``candidate`` is one of ``keys``, compared in constant time with each of them."""
    given = candidate.encode()
    matches = [hmac.compare_digest(given, key.encode()) for key in keys]
    return any(matches)


def current() -> RequestContext:
    ctx: RequestContext = g.ctx
    return ctx


def calling_supplier() -> Supplier | None:
    """The supplier of the ``Supplier-Token`` header (or of the service's ``Supplier-Id``), if any."""
    supplier: Supplier | None = g.supplier
    return supplier


def current_supplier() -> Supplier:
    """The calling supplier; ``401`` when the request names none (``Supplier-Token``, or
    ``X-Service-Key`` with ``Supplier-Id``)."""
    if g.supplier is None:
        if g.get("service", False):
            raise Unauthorized("This route needs a Supplier-Id header.")
        raise Unauthorized("This route needs a Supplier-Token header.")
    supplier: Supplier = g.supplier
    return supplier


def require_supplier() -> None:
    """``before_request`` of the routes for a known supplier only (see ``current_supplier``)."""
    current_supplier()


def current_identity() -> Identity:
    """The caller, connected or not: ``401`` without an ``Authorization`` header."""
    identity = current().identity
    if identity is None:
        raise Unauthorized(
            "This route needs an 'Authorization: user_id <ID>' or 'authless_id <ID>' header.",
            headers={"WWW-Authenticate": "user_id, authless_id"},
        )
    return identity


def require_identity() -> None:
    """``before_request`` of the routes for any identity (see ``current_identity``)."""
    current_identity()


def connected_user_id() -> str:
    """The connected user's id: ``401`` without an identity, ``403`` for a logged-out visitor."""
    identity = current().identity
    if identity is None:
        raise Unauthorized(
            "This route needs an 'Authorization: user_id <ID>' header.",
            headers={"WWW-Authenticate": "user_id"},
        )
    if identity.kind is not IdentityKind.USER:
        raise Forbidden("This route is for connected users only (Authorization: user_id <ID>).")
    return identity.value


def require_connected_user() -> None:
    """``before_request`` of the routes for connected users only (see ``connected_user_id``)."""
    connected_user_id()


def connected_users_only(view: Callable[P, R]) -> Callable[P, R]:
    """Decorate a view so that ``401``/``403`` come before any validation of its arguments."""

    @functools.wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        connected_user_id()
        return view(*args, **kwargs)

    return guarded

"""The request context of the API routes: headers parsed once into ``g.ctx``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from flask import g

from coreapi.errors import Forbidden, Unauthorized
from coreapi.extensions import db
from coreapi.models import Supplier
from coreapi.schemas.headers import RequestHeadersSchema
from coreapi.schemas.parsing import parser
from coreapi.services.catalog import find_supplier
from coreapi.services.identity import Identity, IdentityKind, RequestContext

P = ParamSpec("P")
R = TypeVar("R")


def load_request_context() -> None:
    """``before_request`` of the API: parse the headers, resolve the supplier token.

    Malformed headers are ``400``; a ``Supplier-Token`` that is present but unknown is ``401``.
    """
    ctx: RequestContext = parser.parse(RequestHeadersSchema(), location="headers")
    g.ctx = ctx
    g.supplier = None
    if ctx.supplier_token is not None:
        g.supplier = find_supplier(db.session(), ctx.supplier_token)
        if g.supplier is None:
            raise Unauthorized("Unknown Supplier-Token.")


def current() -> RequestContext:
    ctx: RequestContext = g.ctx
    return ctx


def calling_supplier() -> Supplier | None:
    """The supplier of the ``Supplier-Token`` header, if the request carries one."""
    supplier: Supplier | None = g.supplier
    return supplier


def current_supplier() -> Supplier:
    """The calling supplier; ``401`` when the request carries no ``Supplier-Token``."""
    if g.supplier is None:
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

"""Who is browsing: identity, store, language and browsing session, all kept in cookies.

A new visitor's authless id is issued by prerender (`GET /v1/generate-authless-token`, asked by the shop's
server with its supplier-token): an identity nobody can guess. Only when prerender cannot issue one does the
shop make its own (logged), so that the page still works.

The two identity cookies (`dm_user`, `dm_authless`) hold their id signed with the shop's `SECRET_KEY`
(examples/identity_cookies.py): the page shows the ids to its scripts, and an id read there must not be enough
to be that shopper in another browser. A value the shop did not sign counts as missing.
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass, replace

from flask import Request, Response, g

from examples.identity_cookies import site_identity_cookies

from .services import get_services

log = logging.getLogger(__name__)

LANGUAGES = ("fr", "en")
DEFAULT_LANGUAGE = "fr"

USER_COOKIE = "dm_user"
AUTHLESS_COOKIE = "dm_authless"
SESSION_COOKIE = "dm_session"
STORE_COOKIE = "dm_store"
LANGUAGE_COOKIE = "dm_lang"
ONE_YEAR = 365 * 24 * 3600
# The cookies whose value is signed: who the visitor is.
IDENTITY_COOKIES = (USER_COOKIE, AUTHLESS_COOKIE)

# The identifier format the shop keeps in its cookies (prerender accepts any of them in its headers). It holds
# the URL-safe alphabet of the authless ids prerender issues.
_IDENTIFIER = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
_STORE_ID = re.compile(r"^[0-9]{1,12}$")
# Where the visitor of the current request is kept (flask.g), so that it is read (and a new visitor's
# authless id asked for) once per request.
_CURRENT = "shop_visitor"


def valid_identifier(value: str | None) -> bool:
    return bool(value) and bool(_IDENTIFIER.match(value))


def valid_store_id(value: str | None) -> bool:
    return bool(value) and bool(_STORE_ID.match(value))


@dataclass(frozen=True)
class Visitor:
    """The visitor of one page. `user_id` is set when logged in; the authless id always exists."""

    session_id: str
    authless_id: str
    language: str = DEFAULT_LANGUAGE
    user_id: str | None = None
    store_id: str | None = None
    # Cookies that were missing or invalid and must be (re)written on the response.
    new_cookies: tuple[str, ...] = ()

    @property
    def logged_in(self) -> bool:
        return self.user_id is not None

    def without_store(self) -> Visitor:
        return replace(self, store_id=None, new_cookies=(*self.new_cookies, STORE_COOKIE))

    def logged_in_as(self, user_id: str) -> Visitor:
        """The same browser once the user logged in (its user cookie to write)."""
        return replace(self, user_id=user_id, new_cookies=(*self.new_cookies, USER_COOKIE))

    def logged_out(self, authless_id: str) -> Visitor:
        """The same browser after logout, under a new authless identity (its cookies to write)."""
        return replace(
            self, user_id=None, authless_id=authless_id, new_cookies=(*self.new_cookies, USER_COOKIE, AUTHLESS_COOKIE)
        )


def local_authless_id() -> str:
    """The shop's own authless id, for when prerender cannot issue one."""
    return f"anon-{uuid.uuid4().hex}"


def new_authless_id(*, language: str, session_id: str, request_id: str | None = None) -> str:
    """A new authless id, issued by prerender; the shop's own when prerender is down or refuses (logged)."""
    issued = get_services().prerender.generate_authless_id(
        language=language, session_id=session_id, request_id=request_id
    )
    if issued is not None and valid_identifier(issued):
        return issued
    if issued is not None:
        log.error("prerender issued an authless id the shop cannot keep in a cookie (request %s)", request_id)
    log.warning("no authless id from prerender (request %s): the visitor gets one made by the shop", request_id)
    return local_authless_id()


def new_session_id() -> str:
    return uuid.uuid4().hex


def visitor_from(request: Request) -> Visitor:
    """The visitor of the request's cookies; missing or malformed values are replaced by fresh ones (a new
    visitor's authless id comes from prerender). Read once per request: later calls answer the same visitor."""
    visitor: Visitor | None = g.get(_CURRENT)
    if visitor is None:
        visitor = _read(request)
        setattr(g, _CURRENT, visitor)
    return visitor


def _read(request: Request) -> Visitor:
    cookies = request.cookies
    signed = site_identity_cookies(max_age=ONE_YEAR)
    fresh: list[str] = []
    session_id = cookies.get(SESSION_COOKIE)
    if not valid_identifier(session_id):
        session_id = new_session_id()
        fresh.append(SESSION_COOKIE)
    language = cookies.get(LANGUAGE_COOKIE)
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    authless_id = signed.read(AUTHLESS_COOKIE, cookies.get(AUTHLESS_COOKIE))
    if not valid_identifier(authless_id):
        authless_id = new_authless_id(language=language, session_id=session_id)
        fresh.append(AUTHLESS_COOKIE)
    user_cookie = cookies.get(USER_COOKIE)
    user_id = signed.read(USER_COOKIE, user_cookie)
    if user_cookie is not None and not valid_identifier(user_id):
        user_id = None
        fresh.append(USER_COOKIE)
    store_id = cookies.get(STORE_COOKIE) or None
    if store_id is not None and not valid_store_id(store_id):
        store_id = None
        fresh.append(STORE_COOKIE)
    return Visitor(
        session_id=session_id,
        authless_id=authless_id,
        language=language,
        user_id=user_id,
        store_id=store_id,
        new_cookies=tuple(fresh),
    )


def set_cookie(response: Response, name: str, value: str | None, *, secure: bool) -> None:
    """Write (or, for None, delete) one of the shop's cookies, an identity signed. The browsing session ends with
    the browser."""
    if value is None:
        response.delete_cookie(name, samesite="Lax", secure=secure, httponly=True)
        return
    if name in IDENTITY_COOKIES:
        value = site_identity_cookies(max_age=ONE_YEAR).sign(name, value)
    max_age = None if name == SESSION_COOKIE else ONE_YEAR
    response.set_cookie(name, value, max_age=max_age, samesite="Lax", secure=secure, httponly=True)


def persist(visitor: Visitor, response: Response, *, secure: bool) -> None:
    """Write the cookies the visitor was given fresh values for during this request."""
    values = {
        SESSION_COOKIE: visitor.session_id,
        AUTHLESS_COOKIE: visitor.authless_id,
        USER_COOKIE: visitor.user_id,
        STORE_COOKIE: visitor.store_id,
    }
    for name in dict.fromkeys(visitor.new_cookies):
        set_cookie(response, name, values[name], secure=secure)

"""Who is browsing: identity, store, language and browsing session, all kept in cookies."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, replace

from flask import Request, Response

DEMO_USER_ID = "demo-user"
LANGUAGES = ("fr", "en")
DEFAULT_LANGUAGE = "fr"

USER_COOKIE = "dm_user"
AUTHLESS_COOKIE = "dm_authless"
SESSION_COOKIE = "dm_session"
STORE_COOKIE = "dm_store"
LANGUAGE_COOKIE = "dm_lang"
ONE_YEAR = 365 * 24 * 3600

# The identifier format prerender accepts in its headers.
_IDENTIFIER = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
_STORE_ID = re.compile(r"^[0-9]{1,12}$")


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


def new_authless_id() -> str:
    return f"anon-{uuid.uuid4().hex}"


def new_session_id() -> str:
    return uuid.uuid4().hex


def visitor_from(request: Request) -> Visitor:
    """The visitor of the request's cookies; missing or malformed values are replaced by fresh ones."""
    cookies = request.cookies
    fresh: list[str] = []
    session_id = cookies.get(SESSION_COOKIE)
    if not valid_identifier(session_id):
        session_id = new_session_id()
        fresh.append(SESSION_COOKIE)
    authless_id = cookies.get(AUTHLESS_COOKIE)
    if not valid_identifier(authless_id):
        authless_id = new_authless_id()
        fresh.append(AUTHLESS_COOKIE)
    user_id = cookies.get(USER_COOKIE)
    if user_id is not None and not valid_identifier(user_id):
        user_id = None
        fresh.append(USER_COOKIE)
    language = cookies.get(LANGUAGE_COOKIE)
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
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
    """Write (or, for None, delete) one of the shop's cookies. The browsing session ends with the browser."""
    if value is None:
        response.delete_cookie(name, samesite="Lax", secure=secure, httponly=True)
        return
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

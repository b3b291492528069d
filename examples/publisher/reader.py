"""Who is reading: a logged-out visitor (the blog has no accounts), kept in two cookies.

- `lmc_session`: the browsing session (`session-id`), made by the blog, ending with the browser.
- `lmc_authless`: the reader's authless identity (`authless-id`), issued by prerender
  (`GET /v1/generate-authless-token`, asked by the blog's server with its supplier-token) on the first page
  view, and kept a year. When prerender cannot issue one the page renders without prerender's button, and the
  next page asks again: the blog never makes an identity of its own.

Both are HttpOnly and SameSite=Lax: only the blog's server reads them. `lmc_authless` holds the id signed with
the blog's `SECRET_KEY` (examples/identity_cookies.py): the page shows the id to its scripts, and an id read there
must not be enough to be that reader in another browser. A value the blog did not sign counts as missing.
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass

from flask import Request, Response

from examples.identity_cookies import site_identity_cookies

from .prerender_client import PrerenderClient

log = logging.getLogger(__name__)

SESSION_COOKIE = "lmc_session"
AUTHLESS_COOKIE = "lmc_authless"
ONE_YEAR = 365 * 24 * 3600

# What the blog keeps in its cookies (prerender's authless ids are URL-safe base64).
_IDENTIFIER = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")


def valid_identifier(value: str | None) -> bool:
    return value is not None and bool(_IDENTIFIER.match(value))


@dataclass(frozen=True)
class Reader:
    """The reader of one page. `authless_id` is None when prerender could not issue one."""

    session_id: str
    authless_id: str | None
    language: str
    # Cookies that were missing or invalid and must be written on the response.
    new_cookies: tuple[str, ...] = ()

    @property
    def user_id(self) -> None:
        """Never logged in (the blog has no accounts): prerender's headers carry the authless id."""
        return None


def reader_from(
    request: Request, prerender: PrerenderClient, *, language: str, request_id: str | None = None
) -> Reader:
    """The reader of the request's cookies; a missing or malformed session is replaced by a new one, and a
    reader without an authless id gets one from prerender (or none, when prerender fails)."""
    fresh: list[str] = []
    session_id = request.cookies.get(SESSION_COOKIE, "")
    if not valid_identifier(session_id):
        session_id = uuid.uuid4().hex
        fresh.append(SESSION_COOKIE)
    authless_id = site_identity_cookies(max_age=ONE_YEAR).read(AUTHLESS_COOKIE, request.cookies.get(AUTHLESS_COOKIE))
    if not valid_identifier(authless_id):
        authless_id = prerender.generate_authless_id(language=language, session_id=session_id, request_id=request_id)
        if authless_id is not None and not valid_identifier(authless_id):
            log.error("prerender issued an authless id the blog cannot keep in a cookie (request %s)", request_id)
            authless_id = None
        if authless_id is None:
            log.warning("no authless id from prerender (request %s): the page goes without its button", request_id)
        else:
            fresh.append(AUTHLESS_COOKIE)
    return Reader(session_id=session_id, authless_id=authless_id, language=language, new_cookies=tuple(fresh))


def persist(reader: Reader, response: Response, *, secure: bool) -> None:
    """Write the cookies the reader was given new values for during this request."""
    if SESSION_COOKIE in reader.new_cookies:
        response.set_cookie(SESSION_COOKIE, reader.session_id, samesite="Lax", secure=secure, httponly=True)
    if AUTHLESS_COOKIE in reader.new_cookies and reader.authless_id:
        signed = site_identity_cookies(max_age=ONE_YEAR).sign(AUTHLESS_COOKIE, reader.authless_id)
        response.set_cookie(AUTHLESS_COOKIE, signed, max_age=ONE_YEAR, samesite="Lax", secure=secure, httponly=True)

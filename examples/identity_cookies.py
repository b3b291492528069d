"""The demo sites' identity cookies, signed with the site's secret key.

The ids a site gives prerender are not secret from the page: the `<svc-shopper>` element and the credential's
payload name them to any script (docs/security.md). A cookie whose value is the id itself would let anyone who
read an id, from a page, a log or a screenshot, set that cookie in another browser and be that shopper for as
long as the site keeps it. So the cookie holds the id, when it was signed and a signature of both (HMAC-SHA256
with the site's `SECRET_KEY`, salted with the cookie's name): a value changed by hand, taken from another of the
site's cookies, or older than the cookie's own lifetime (a copy kept past its expiry), is not the site's and
counts as missing.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import Flask, current_app
from itsdangerous import BadSignature, TimestampSigner


def require_secret_key(app: Flask, *, variable: str, kept_in: str) -> None:
    """The site's `SECRET_KEY` must be set (from `variable`): a key made per process would have each of the
    server's workers refuse the others' cookies (gunicorn builds the app in each worker), so a site without one
    refuses to start, naming it, rather than log shoppers out at random. A test's app, one process, makes its own.
    `kept_in`: where `make run` keeps it, for the message."""
    if app.config.get("SECRET_KEY"):
        return
    if not app.testing:
        raise RuntimeError(
            f"{variable} is not set: the site signs its identity cookies with it, the same key in every process and"
            f" across restarts (`make run` keeps one in {kept_in})"
        )
    app.config["SECRET_KEY"] = secrets.token_hex(32)


class IdentityCookies:
    """Signs and reads the values of a site's identity cookies (`name` keeps one cookie's values out of another);
    a value is the site's for `max_age` seconds after it was signed (the cookies' own Max-Age)."""

    def __init__(self, *, secret_key: str, max_age: int) -> None:
        self._secret_key = secret_key
        self._max_age = max_age

    def _signer(self, name: str) -> TimestampSigner:
        return TimestampSigner(self._secret_key, salt=f"identity-cookie:{name}", digest_method=hashlib.sha256)

    def sign(self, name: str, value: str) -> str:
        """The cookie's value for `value`: the value, when it was signed, and their signature, dot-separated."""
        return self._signer(name).sign(value).decode("ascii")

    def read(self, name: str, cookie: str | None) -> str | None:
        """The value the site signed in `cookie`, or None (no cookie, one the site did not sign, or expired)."""
        if not cookie:
            return None
        try:
            return self._signer(name).unsign(cookie, max_age=self._max_age).decode("ascii")
        except (BadSignature, UnicodeError):  # SignatureExpired is a BadSignature
            return None


def site_identity_cookies(*, max_age: int) -> IdentityCookies:
    """The identity cookies of the site serving the request, signed with its `SECRET_KEY`."""
    return IdentityCookies(secret_key=current_app.config["SECRET_KEY"], max_age=max_age)

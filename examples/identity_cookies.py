"""The demo sites' identity cookies, signed with the site's secret key.

The ids a site gives prerender are not secret from the page: the `<svc-shopper>` element and the credential's
payload name them to any script (docs/security.md). A cookie whose value is the id itself would let anyone who
read an id, from a page, a log or a screenshot, set that cookie in another browser and be that shopper for as
long as the site keeps it. So the cookie holds the id and a signature of it (HMAC-SHA256 with the site's
`SECRET_KEY`, salted with the cookie's name): a value changed by hand, or taken from another of the site's
cookies, is not the site's and counts as missing.
"""

from __future__ import annotations

import hashlib

from itsdangerous import BadSignature, Signer


class IdentityCookies:
    """Signs and reads the values of a site's identity cookies (`name` keeps one cookie's values out of another)."""

    def __init__(self, *, secret_key: str) -> None:
        self._secret_key = secret_key

    def _signer(self, name: str) -> Signer:
        return Signer(self._secret_key, salt=f"identity-cookie:{name}", digest_method=hashlib.sha256)

    def sign(self, name: str, value: str) -> str:
        """The cookie's value for `value`: the value, a dot and its signature."""
        return self._signer(name).sign(value).decode("ascii")

    def read(self, name: str, cookie: str | None) -> str | None:
        """The value the site signed in `cookie`, or None (no cookie, or one the site did not sign)."""
        if not cookie:
            return None
        try:
            return self._signer(name).unsign(cookie).decode("ascii")
        except (BadSignature, UnicodeError):
            return None

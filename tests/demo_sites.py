"""The demo sites' secret keys in the tests, and their identity cookies as the sites sign them
(examples/identity_cookies.py): a test that logs a browser in by its cookie signs it, and one that compares a
cookie with the id the page shows reads the id out of it."""

from __future__ import annotations

from flask.testing import FlaskClient

from examples.identity_cookies import IdentityCookies
from examples.shop.visitor import IDENTITY_COOKIES, ONE_YEAR

SHOP_SECRET_KEY = "the-test-shop-s-secret-key-for-its-identity-cookies"
PUBLISHER_SECRET_KEY = "the-test-blog-s-secret-key-for-its-identity-cookies"


def shop_cookies(secret_key: str = SHOP_SECRET_KEY) -> IdentityCookies:
    """The shop's identity cookies, as the test shop signs them (another key: a forger's)."""
    return IdentityCookies(secret_key=secret_key, max_age=ONE_YEAR)


def blog_cookies(secret_key: str = PUBLISHER_SECRET_KEY) -> IdentityCookies:
    """The blog's identity cookie, as the test blog signs it (another key: a forger's)."""
    return IdentityCookies(secret_key=secret_key, max_age=ONE_YEAR)


def shop_cookie(name: str, value: str) -> str:
    """The value of the shop's identity cookie `name` for the id `value`."""
    return shop_cookies().sign(name, value)


def shop_id(name: str, cookie: str | None) -> str | None:
    """The id the shop's identity cookie `name` holds (None when absent or not the shop's)."""
    return shop_cookies().read(name, cookie)


def blog_id(name: str, cookie: str | None) -> str | None:
    """The id the blog's identity cookie `name` holds (None when absent or not the blog's)."""
    return blog_cookies().read(name, cookie)


def shop_cookie_of(client: FlaskClient, name: str) -> str | None:
    """The value of the shop's cookie `name` in a test client, an identity cookie's id read out of it."""
    found = client.get_cookie(name)
    if found is None:
        return None
    return shop_id(name, found.value) if name in IDENTITY_COOKIES else found.value

"""Shoppers' credentials: what prerender issues so that a browser can act for one shopper (docs/security.md).

A credential is signed with the app's SECRET_KEYS (HMAC-SHA256, itsdangerous), expires after
SHOPPER_CREDENTIAL_SECONDS, and is bound to the supplier and to one identity, a logged-in user or an
authless visitor. Only the customer's server can obtain one, through a private fragment or the bootstrap
it asks for with its supplier token; a browser cannot make or alter one. Key rotation: the last key of
SECRET_KEYS signs, every key verifies.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

EXTENSION_KEY = "prerender.credentials"
# Distinguishes these signatures from any other use of the same keys.
SALT = "prerender.shopper-credential.v1"
# An authless id the service issues: 32 random bytes, URL-safe (43 characters).
AUTHLESS_ID_BYTES = 32


class InvalidCredential(Exception):
    """A credential that is malformed, altered, signed by an unknown key or expired."""


@dataclass(frozen=True)
class Shopper:
    """Who a valid credential lets a browser act for."""

    supplier_id: str
    user_id: str | None = None
    authless_id: str | None = None

    def __post_init__(self) -> None:
        if (self.user_id is None) == (self.authless_id is None):
            raise ValueError("a shopper is a user or an authless visitor, exactly one of the two")


class CredentialSigner:
    """Issues and verifies shoppers' credentials with a list of keys (the last one signs)."""

    def __init__(self, *, keys: list[str], max_age: int) -> None:
        if not keys:
            raise ValueError("no signing key")
        self.max_age = max_age
        self._serializer = URLSafeTimedSerializer(keys, salt=SALT, signer_kwargs={"digest_method": hashlib.sha256})

    def issue(self, shopper: Shopper) -> str:
        """A credential for the shopper, valid for max_age seconds from now."""
        payload: dict[str, Any] = {"s": shopper.supplier_id}
        if shopper.user_id is not None:
            payload["u"] = shopper.user_id
        else:
            payload["a"] = shopper.authless_id
        return str(self._serializer.dumps(payload))

    def verify(self, credential: str) -> Shopper:
        """The shopper of a valid credential, or InvalidCredential saying why not."""
        try:
            payload = self._serializer.loads(credential, max_age=self.max_age)
        except SignatureExpired as error:
            raise InvalidCredential("the credential has expired") from error
        except BadSignature as error:
            raise InvalidCredential("the credential is not one this service issued") from error
        try:
            return Shopper(supplier_id=str(payload["s"]), user_id=payload.get("u"), authless_id=payload.get("a"))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidCredential("the credential does not name one shopper") from error


def new_authless_id() -> str:
    """An authless identity nobody can guess."""
    return secrets.token_urlsafe(AUTHLESS_ID_BYTES)


def init_credentials(app: Flask) -> None:
    """The app's signer, from SECRET_KEYS (called by the factory)."""
    app.extensions[EXTENSION_KEY] = CredentialSigner(
        keys=list(app.config["SECRET_KEYS"]), max_age=int(app.config["SHOPPER_CREDENTIAL_SECONDS"])
    )


def get_signer() -> CredentialSigner:
    """The credential signer of the current app."""
    signer: CredentialSigner = current_app.extensions[EXTENSION_KEY]
    return signer

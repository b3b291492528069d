"""Shoppers' credentials: what prerender issues so that a browser can act for one shopper (docs/security.md).

A credential is signed with the app's SECRET_KEYS (HMAC-SHA256, itsdangerous), expires after
SHOPPER_CREDENTIAL_SECONDS, and is bound to the supplier and to one identity, a logged-in user or an
authless visitor. Only the customer's server can obtain one, through a private fragment or the bootstrap
it asks for with its supplier token; a browser cannot make or alter one. Key rotation: the last key of
SECRET_KEYS signs, every key verifies (the three deploys of a rotation: docs/security.md).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app
from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer

log = logging.getLogger(__name__)

EXTENSION_KEY = "prerender.credentials"
# Distinguishes these signatures from any other use of the same keys.
SALT = "prerender.shopper-credential.v1"
# An authless id the service issues: 32 random bytes, URL-safe (43 characters).
AUTHLESS_ID_BYTES = 32
# Credentials are time-stamped to this many seconds: the same shopper gets the same credential for that
# long, so private fragments keep their ETags (and revalidate to 304) instead of changing on every call.
TIMESTAMP_STEP = 600
MIN_LIFETIME = 2 * TIMESTAMP_STEP
# How far ahead of this node's clock a credential's time stamp may be: the nodes' clocks differ by milliseconds
# when kept in step (NTP). A stamp further ahead comes from a node whose clock runs ahead, and would make its
# credentials live longer than SHOPPER_CREDENTIAL_SECONDS on every other node (days, for a clock days ahead).
MAX_CLOCK_AHEAD_SECONDS = 60
# The warning of such a credential is logged once in this many seconds per worker: every call a shopper's page
# makes with one would otherwise write it again (and anyone holding one could fill the log).
CLOCK_WARNING_EVERY_SECONDS = 600


class SteppedTimestampSigner(TimestampSigner):
    """itsdangerous' timestamp signer with time stamps rounded down to TIMESTAMP_STEP seconds."""

    def get_timestamp(self) -> int:
        now = int(time.time())
        return now - now % TIMESTAMP_STEP


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

    @property
    def kind(self) -> str:
        """`user` or `authless`."""
        return "user" if self.user_id is not None else "authless"

    @property
    def identity(self) -> str:
        """The user id or the authless id."""
        return self.user_id if self.user_id is not None else str(self.authless_id)


@dataclass(frozen=True)
class IssuedCredential:
    """A credential and when it stops being valid (epoch seconds)."""

    token: str = field(repr=False)
    shopper: Shopper
    expires_at: int


class CredentialSigner:
    """Issues and verifies shoppers' credentials with a list of keys (the last one signs)."""

    def __init__(self, *, keys: list[str], max_age: int) -> None:
        if not keys:
            raise ValueError("no signing key")
        if max_age < MIN_LIFETIME:
            # Time stamps are rounded down a step: a shorter life could end before the credential is used.
            raise ValueError(f"SHOPPER_CREDENTIAL_SECONDS must be {MIN_LIFETIME} at least (two time steps)")
        self.max_age = max_age
        self._clock_warned_at: float | None = None
        self._clock_warning = threading.Lock()
        self._serializer = URLSafeTimedSerializer(
            keys, salt=SALT, signer=SteppedTimestampSigner, signer_kwargs={"digest_method": hashlib.sha256}
        )

    def issue(self, shopper: Shopper) -> str:
        """A credential for the shopper, valid for max_age seconds from its time stamp (now, rounded down to
        TIMESTAMP_STEP: the same credential for the same shopper during one step)."""
        payload: dict[str, Any] = {"s": shopper.supplier_id}
        if shopper.user_id is not None:
            payload["u"] = shopper.user_id
        else:
            payload["a"] = shopper.authless_id
        return str(self._serializer.dumps(payload))

    def issue_with_expiry(self, shopper: Shopper) -> IssuedCredential:
        """The credential of `issue`, with the time it expires."""
        now = int(time.time())
        return IssuedCredential(
            token=self.issue(shopper), shopper=shopper, expires_at=now - now % TIMESTAMP_STEP + self.max_age
        )

    def verify(self, credential: str) -> Shopper:
        """The shopper of a valid credential, or InvalidCredential saying why not."""
        try:
            payload, issued_at = self._serializer.loads(credential, return_timestamp=True)
        except BadSignature as error:
            raise InvalidCredential("the credential is not one this service issued") from error
        # The age is checked here, against the clock: itsdangerous would read "now" through the stepped
        # signer, rounded down, and let a credential live up to a step longer than max_age; nor would it refuse
        # a time stamp from the future, which it checks only with a max_age.
        age = time.time() - issued_at.timestamp()
        if age > self.max_age:
            raise InvalidCredential("the credential has expired")
        if age < -MAX_CLOCK_AHEAD_SECONDS:
            self._warn_of_clocks(-age)
            raise InvalidCredential("the credential was issued later than now (the issuing node's clock is ahead)")
        return shopper_of(payload)

    def _warn_of_clocks(self, ahead: float) -> None:
        """Says that a credential from the future was refused, once every CLOCK_WARNING_EVERY_SECONDS."""
        now = time.monotonic()
        with self._clock_warning:
            if self._clock_warned_at is not None and now - self._clock_warned_at < CLOCK_WARNING_EVERY_SECONDS:
                return
            self._clock_warned_at = now
        log.warning(
            "a credential stamped %.0f s ahead of this node's clock was refused (and any more for %d s, unlogged): "
            "is the clock of the node that issued it ahead, or this one's behind? (keep the nodes' clocks in step, "
            "docs/operations.md)",
            ahead,
            CLOCK_WARNING_EVERY_SECONDS,
        )


def shopper_of(payload: Any) -> Shopper:
    """The shopper a credential's payload names: an object whose supplier (`s`) and one identity (`u` or `a`)
    are non-empty strings. A validly signed payload of any other shape (a number for a user, a list) is
    InvalidCredential, never a shopper whose id is not a string."""
    if not isinstance(payload, dict):
        raise InvalidCredential("the credential does not name one shopper")
    supplier_id, user_id, authless_id = (payload.get(key) for key in ("s", "u", "a"))
    identities = (user_id, authless_id)
    if not isinstance(supplier_id, str) or not supplier_id or any(not isinstance(v, str | None) for v in identities):
        raise InvalidCredential("the credential does not name one shopper")
    try:
        return Shopper(supplier_id=supplier_id, user_id=user_id or None, authless_id=authless_id or None)
    except ValueError as error:
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

"""The caller, as the request headers describe it: identity, supplier, language, session, profiling."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from coreapi.services.text import DEFAULT_LANGUAGE

LANGUAGES = ("fr", "en")
# Identities are stored (likes, baskets, events): an ID is at most this long.
MAX_ID_LENGTH = 200


class IdentityKind(StrEnum):
    USER = "user_id"  # a connected user
    AUTHLESS = "authless_id"  # a logged-out visitor


@dataclass(frozen=True)
class Identity:
    kind: IdentityKind
    value: str


@dataclass(frozen=True)
class RequestContext:
    """Everything the headers say about a request, parsed once."""

    identity: Identity | None = None
    supplier_token: str | None = None
    # A service acting for a supplier (coreapi.context): the supplier's id, and the service's key
    # (a secret: out of the repr, so that no log of the context writes it).
    supplier_id: str | None = None
    service_key: str | None = field(default=None, repr=False)
    language: str = DEFAULT_LANGUAGE
    session_id: str = ""
    profiling: bool = True

    @property
    def user_id(self) -> str | None:
        """The connected user's id; ``None`` for a logged-out visitor or an anonymous call."""
        if self.identity is not None and self.identity.kind is IdentityKind.USER:
            return self.identity.value
        return None


def parse_authorization(value: str) -> Identity:
    """``user_id <ID>`` or ``authless_id <ID>``; ``ValueError`` for anything else."""
    scheme, _, credential = value.strip().partition(" ")
    credential = credential.strip()
    try:
        kind = IdentityKind(scheme.lower())
    except ValueError:
        raise ValueError("Expected 'user_id <ID>' or 'authless_id <ID>'.") from None
    if not credential or any(char.isspace() for char in credential):
        raise ValueError(f"Expected '{kind.value} <ID>' with a non-empty ID.")
    if len(credential) > MAX_ID_LENGTH:
        raise ValueError(f"The ID is longer than {MAX_ID_LENGTH} characters.")
    return Identity(kind, credential)


def parse_language(value: str) -> str:
    """``fr``, ``en``, or ``fr-<retailer>`` read as ``fr``; ``ValueError`` otherwise."""
    language = value.strip().lower().split("-", 1)[0]
    if language not in LANGUAGES:
        raise ValueError(f"Must be one of {', '.join(LANGUAGES)} (optionally '-<retailer>').")
    return language

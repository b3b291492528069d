"""What the logs write for a shopper's identity: a stable stand-in that cannot be read back without the key."""

from __future__ import annotations

import hashlib
import hmac

PSEUDONYM_LENGTH = 16


def pseudonym(key: bytes, identity: str) -> str:
    """The first 16 hex digits of the identity's HMAC-SHA256 under `key`: the same identity reads the same in
    every line logged with the same key, and a guessable id (an email, a sequence number) cannot be found again
    by hashing candidates."""
    return hmac.new(key, identity.encode(), hashlib.sha256).hexdigest()[:PSEUDONYM_LENGTH]

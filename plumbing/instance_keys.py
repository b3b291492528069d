"""The keys an instance makes for itself on first start (prerender's signing key, coreapi's service key...): a
file of the instance folder, readable by its owner only, that every worker of the machine reads."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

# How long a process that finds the file just created by another, still empty, waits for its content.
KEY_FILE_WAIT_SECONDS = 1.0


def instance_key(path: Path, *, min_length: int) -> str:
    """The key of `path`, made there (0600, 64 URL-safe characters) when the file does not exist. Processes
    racing to make it all end up reading the one file that won. ValueError: the file's key is shorter than
    `min_length`."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(48))
    deadline = time.monotonic() + KEY_FILE_WAIT_SECONDS
    key = path.read_text().strip()
    while not key and time.monotonic() < deadline:
        time.sleep(0.01)
        key = path.read_text().strip()
    if len(key) < min_length:
        raise ValueError(f"{path}: the key is shorter than {min_length} characters")
    return key

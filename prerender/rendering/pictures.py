"""Upstream picture URLs made safe for `src` attributes, for every component that shows one."""

from __future__ import annotations

from urllib.parse import urlsplit


def safe_picture_url(url: str) -> str | None:
    """Only absolute http(s) URLs, never javascript: or data: (None: the component's picture placeholder)."""
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None

"""The API versions served side by side: the first path segment of every versioned route."""

from __future__ import annotations

API_VERSIONS = ("v1", "v2")

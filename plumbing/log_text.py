"""How much of a client's input a log line of either service holds: a path, a query or a validation error's
messages are the client's to choose, up to the request's limits (an 8 000-byte URL, a 64 KiB body). Logged
whole, one request could write a line of tens of kilobytes, a hundred times the usual one; clipped, a line
stays a line, and says how long the text was."""

from __future__ import annotations

# Enough for any path, query or error of a real integration (the longest route with its parameters is a few
# hundred characters).
LOG_TEXT_MAX = 1024


def clipped(text: str, limit: int = LOG_TEXT_MAX) -> str:
    """`text`, or its first `limit` characters and how many it had."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"

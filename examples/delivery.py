"""How the demo sites (the shop, the blog) deliver their own responses: compressed, and their static files at
addresses that change with their content, cached a year.

- Pages, stylesheets, scripts, JSON and SVG pictures are compressed (brotli or gzip, as the browser's
  `Accept-Encoding` allows) by flask-compress; an answer under 500 bytes is sent as it is.
- The static folder is served under `/static/<version>/`, `<version>` a digest of every file in the folder
  (`static_url_path`), so `url_for('static', ...)` names the content: a changed file is a new address, and an
  address can be cached for good (`Cache-Control: public, max-age=31536000, immutable`). One version for the
  whole folder rather than one per file keeps the relative imports of the sites' modules (`./svc-setup.js`)
  on the address the page loaded, so a module is never loaded twice under two addresses.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Flask, Response, request
from flask_compress import Compress

# What is worth compressing among the sites' answers (pictures other than SVG are compressed already).
COMPRESSED_TYPES = (
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
)
# Brotli first (smaller), gzip for the rest; files (streamed by send_file) are compressed as they are sent.
ALGORITHMS = ("br", "gzip")
STATIC_CACHE_CONTROL = "public, max-age=31536000, immutable"
VERSION_LENGTH = 12


def static_version(folder: Path) -> str:
    """A digest of every file of `folder` (their paths and contents): it changes when any of them does."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:VERSION_LENGTH]


def static_url_path(folder: Path) -> str:
    """The address of the static folder: `/static/<version>` (give it to `Flask(static_url_path=...)`)."""
    return f"/static/{static_version(folder)}"


def init_delivery(app: Flask) -> None:
    """Compression of the app's answers and the year-long cache of its (versioned) static files."""
    app.config.setdefault("COMPRESS_MIMETYPES", list(COMPRESSED_TYPES))
    app.config.setdefault("COMPRESS_ALGORITHM", list(ALGORITHMS))
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", list(ALGORITHMS))
    Compress(app)
    app.after_request(_cache_static)


def _cache_static(response: Response) -> Response:
    """A static file's address names its content (`static_url_path`): it is cached a year, by anyone."""
    if request.endpoint == "static" and response.status_code in (200, 304):
        response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
    return response

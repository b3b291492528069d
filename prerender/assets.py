"""Content-hashed URLs of the static files (stylesheets, ES modules).

Every URL carries the build id, a hash of the whole static tree, as a path segment:
`/static/<build_id>/components/recipe-card.js`. A path segment (not a per-file hash) keeps relative
`import` statements between modules on the same hashed URLs, so a module is never loaded twice under two
names, and lets every file be cached for a year as immutable: a change in any file is a new build id.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Flask, current_app, request

STATIC_DIR = Path(__file__).parent / "static"
EXTENSION_KEY = "prerender.assets"


class AssetManifest:
    """The build id of a static tree and the URLs of its files."""

    def __init__(self, *, root: Path, public_url: str | None) -> None:
        self.root = root
        self.public_url = public_url.rstrip("/") if public_url else None
        self.files = frozenset(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode())
            digest.update(b"\0")
            digest.update((root / name).read_bytes())
        self.build_id = digest.hexdigest()[:12]

    def url(self, name: str) -> str:
        """The absolute URL of a static file; a name not in the tree is a programming error."""
        if name not in self.files:
            raise KeyError(f"no static file {name!r}")
        base = self.public_url or request.host_url.rstrip("/")
        return f"{base}/static/{self.build_id}/{name}"


def init_assets(app: Flask) -> None:
    """Hash the static tree once, at application start (called by the factory)."""
    app.extensions[EXTENSION_KEY] = AssetManifest(root=STATIC_DIR,
                                                  public_url=app.config["CDN_URL"] or app.config["PUBLIC_URL"])


def get_assets() -> AssetManifest:
    """The asset manifest of the current app."""
    return current_app.extensions[EXTENSION_KEY]

"""Content-hashed URLs of the static files (stylesheets, ES modules).

Every URL carries the build id, a hash of the whole static tree, as a path segment:
`/static/<build_id>/components/recipe-card.js`. A path segment (not a per-file hash) keeps relative
`import` statements between modules on the same hashed URLs, so a module is never loaded twice under two
names, and lets every file be cached for a year as immutable: a change in any file is a new build id.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask, current_app, request

STATIC_DIR = Path(__file__).parent.parent / "static"
EXTENSION_KEY = "prerender.rendering.assets"


class AssetManifest:
    """The build id of a static tree and the URLs of its files."""

    def __init__(self, *, root: Path, static_url: str | None, api_url: str | None, element_prefix: str) -> None:
        self.root = root
        self.static_url = static_url.rstrip("/") if static_url else None
        self.api_url = api_url.rstrip("/") if api_url else None
        self.element_prefix = element_prefix
        self.files = frozenset(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode())
            digest.update(b"\0")
            digest.update((root / name).read_bytes())
        self.build_id = digest.hexdigest()[:12]

    def url(self, name: str, *, base: str | None = None) -> str:
        """The absolute URL of a static file; a name not in the tree is a programming error."""
        if name not in self.files:
            raise KeyError(f"no static file {name!r}")
        base = base or self.static_url or request_base_url()
        return f"{base}/static/{self.build_id}/{name}"

    def module_urls(self, names: Iterable[str]) -> list[str]:
        """URLs of ES modules, all with the same query (docs/sdk.md): `prefix` when the element prefix is
        not the default, `api` when the modules are not served by this service, whose routes they call."""
        host_url = None if self.static_url and self.api_url else request_base_url()
        return list(self._module_urls(tuple(names), host_url))

    @functools.lru_cache(maxsize=64)  # noqa: B019 -- one manifest per app, alive as long as the app
    def _module_urls(self, names: tuple[str, ...], host_url: str | None) -> tuple[str, ...]:
        """module_urls for one request host (fragments link back to the host they were asked from)."""
        params: dict[str, str] = {}
        if self.element_prefix != "svc":
            params["prefix"] = self.element_prefix
        api_url = self.api_url or host_url  # host_url is None only when api_url is set
        if self.static_url and self.static_url != self.api_url and api_url:
            params["api"] = api_url
        query = f"?{urlencode(params)}" if params else ""
        base = self.static_url or host_url
        return tuple(self.url(name, base=base) + query for name in names)


def request_base_url() -> str:
    """`scheme://host[:port]` of the current request (the host as sent: werkzeug's host_url would also
    convert it to an IRI, at several times the cost, for links that must stay ASCII anyway)."""
    return f"{request.scheme}://{request.host}"


def init_assets(app: Flask) -> None:
    """Hash the static tree once, at application start (called by the factory)."""
    config = app.config
    app.extensions[EXTENSION_KEY] = AssetManifest(
        root=STATIC_DIR,
        static_url=config["CDN_URL"] or config["PUBLIC_URL"],
        api_url=config["PUBLIC_URL"],
        element_prefix=config["ELEMENT_PREFIX"],
    )


def get_assets() -> AssetManifest:
    """The asset manifest of the current app."""
    assets: AssetManifest = current_app.extensions[EXTENSION_KEY]
    return assets

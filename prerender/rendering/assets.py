"""Content-hashed URLs of the static files (stylesheets, ES modules), and which tree serves them.

Every URL carries the build id, a hash of the served static tree, as a path segment:
`/static/<build_id>/components/recipe-card.js`. A path segment (not a per-file hash) keeps relative
`import` statements between modules on the same hashed URLs, so a module is never loaded twice under two
names, and lets every file be cached for a year as immutable: a change in any file is a new build id.

Two trees can serve them: the release tree `static_build/` that `make static` makes from the readable
`static/` (tools/build_static.mjs: minified, the SDK in one module, gzip and brotli siblings), while it was
built from the current sources (the digest it records is theirs); otherwise `static/` itself, with a warning.
Each tree is read and hashed once per process: applications made later (tests make thousands) reuse it. Its files
are served from the bytes read then, so that an installation in place (a later release's files replacing these on
disk) changes nothing a running process serves (docs/decisions.md, "A running process never reads a later release's
files"); in development (debug, TEMPLATES_AUTO_RELOAD) they are sent from disk, as edited.

The module URLs of a service whose element prefix is not the default, or whose modules come from a CDN, carry
that configuration as one more path segment after the build id, for the same reason: the modules import each
other by relative paths (`import ... from "./ui.js"`), so every module of a page is loaded under the same
configuration, once. `/static/<build_id>/~<config>/components/recipe-card.js`, where `<config>` is the
unpadded base64url of the query `prefix=<p>&api=<url>` (docs/sdk.md, section 1; sdk/config.js reads it).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Flask, current_app, request

from prerender.config_checks import valid_prefix
from prerender.rendering.templates import reads_files_at_start

PACKAGE_DIR = Path(__file__).parent.parent
SOURCE_DIR = PACKAGE_DIR / "static"
BUILD_DIR = PACKAGE_DIR / "static_build"
# The release tree's record of the source digest it was built from (tools/build_static.mjs); not served.
DIGEST_FILE = "source-digest"
# Precompressed siblings of a release file, by Content-Coding, in the order preferred when a browser accepts
# both (brotli is the smaller). They are variants of their file, never files of their own.
ENCODINGS: dict[str, str] = {"br": ".br", "gzip": ".gz"}
EXTENSION_KEY = "prerender.rendering.assets"

# The modules each module imports statically (`import ... from`): a fragment announces those its scripts will
# import with <link rel="modulepreload">, so the browser fetches them with the scripts instead of one import
# after the other. Later imports (`import("./drawer.js")`: the drawer, the catalog shell from the drawer) are
# left out: they load when first needed. A component's private parts (components/<name>/*.js) are left out too:
# the release tree has them inside the component (tools/build_static.mjs). tests/unit/test_assets.py compares
# this table with the modules.
EAGER_IMPORTS: dict[str, tuple[str, ...]] = {
    "components/basket-transfer.js": ("components/ui.js", "components/no-supplier-cta.js"),
    "components/catalog.js": ("components/ui.js",),
    "components/drawer.js": ("components/ui.js", "components/recipe-details.js"),
    "components/no-supplier-cta.js": ("components/ui.js",),
    "components/planner-entry.js": ("components/ui.js",),
    "components/planner-onboarding.js": ("components/ui.js",),
    "components/planner-panel.js": ("components/ui.js",),
    "components/planner-retry.js": ("components/ui.js",),
    "components/planner.js": (
        "components/ui.js",
        "components/planner-onboarding.js",
        "components/planner-panel.js",
        "components/planner-retry.js",
    ),
    "components/recipe-card.js": ("components/ui.js",),
    "components/recipe-details.js": ("components/ui.js",),
    "components/ui.js": ("sdk/svc.js",),
}

# The configuration segment of module URLs: its mark, and what it may hold.
CONFIG_MARK = "~"
CONFIG_KEYS = ("prefix", "api")
CONFIG_SEGMENT_MAX = 512

log = logging.getLogger(__name__)


def config_segment(config: Mapping[str, str]) -> str:
    """The path segment of a module configuration (keys of CONFIG_KEYS), or "" for the default one."""
    if not config:
        return ""
    query = urlencode([(key, config[key]) for key in CONFIG_KEYS if key in config])
    return CONFIG_MARK + base64.urlsafe_b64encode(query.encode()).decode().rstrip("=")


def parse_config_segment(segment: str) -> dict[str, str] | None:
    """The configuration a segment of config_segment holds, or None when it is not one (a 404)."""
    if not segment.startswith(CONFIG_MARK) or len(segment) > CONFIG_SEGMENT_MAX:
        return None
    encoded = segment[len(CONFIG_MARK) :]
    try:
        query = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    pairs = parse_qsl(query, keep_blank_values=True)
    config = dict(pairs)
    if not config or len(config) != len(pairs) or not config.keys() <= set(CONFIG_KEYS):
        return None
    if "prefix" in config and not valid_prefix(config["prefix"]):
        return None
    if "api" in config and not valid_api_base(config["api"]):
        return None
    return config if config_segment(config) == segment else None  # one spelling per configuration


def valid_api_base(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not parts.query and not parts.fragment


@dataclass(frozen=True)
class StaticFile:
    """A served file, or a precompressed sibling of one, as it was read at start: its bytes, the ETag of those bytes
    and the file's time (`Last-Modified`)."""

    data: bytes
    etag: str
    modified: float


@dataclass(frozen=True)
class StaticTree:
    """A folder of static files: the names it serves, the encodings precompressed for each, its digest, and the bytes
    of each file and sibling as read once (docs/decisions.md, "A running process never reads a later release's
    files")."""

    root: Path
    files: frozenset[str]
    encodings: Mapping[str, tuple[str, ...]]  # name -> the ENCODINGS it has a sibling for, preferred first
    digest: str  # tree_digest of every file the tree serves, its variants included
    contents: Mapping[str, StaticFile]  # every file the tree serves and every sibling, by name (`sdk/svc.js.br`)

    @property
    def build_id(self) -> str:
        return self.digest[:12]


def tree_digest(root: Path, names: Iterable[str]) -> str:
    """SHA-256 over the files in name order, each as its name, a NUL byte, its content (the digest the
    release tree records of its sources: tools/build_static.mjs computes it the same way)."""
    return contents_digest({name: (root / name).read_bytes() for name in names})


def contents_digest(contents: Mapping[str, bytes]) -> str:
    """tree_digest of files already read."""
    digest = hashlib.sha256()
    for name in sorted(contents):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(contents[name])
    return digest.hexdigest()


def content_etag(data: bytes) -> str:
    """The ETag of a file's bytes: the same bytes have the same one in every process and release, whatever the
    file's time or path."""
    return hashlib.sha256(data).hexdigest()[:16]


def tree_names(root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """The names under `root` it serves, and their precompressed siblings. A name with an ENCODINGS suffix whose
    file without it exists is that file's variant; the digest file is the build's record: neither is served."""
    found = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    suffixes = tuple(ENCODINGS.values())
    variants = frozenset(name for name in found if name.endswith(suffixes) and name.rsplit(".", 1)[0] in found)
    return frozenset(found - variants - {DIGEST_FILE}), variants


@functools.cache
def read_tree(root: Path) -> StaticTree:
    """The files under `root`, read once per process and folder: their names, and their bytes, from which the digest
    (hence the build id) is computed, so that the build id names the very bytes served."""
    files, variants = tree_names(root)
    encodings = {
        name: codings
        for name in files
        if (codings := tuple(coding for coding, suffix in ENCODINGS.items() if name + suffix in variants))
    }
    contents: dict[str, StaticFile] = {}
    for name in sorted(files | variants):
        path = root / name
        data = path.read_bytes()
        contents[name] = StaticFile(data, content_etag(data), path.stat().st_mtime)
    digest = contents_digest({name: stored.data for name, stored in contents.items()})
    return StaticTree(root, files, encodings, digest, contents)


@functools.cache
def served_tree(source: Path, build: Path) -> StaticTree:
    """The release tree when it was built from the sources as they are, else the sources (with one warning). Only
    the served tree is kept in memory: the sources are read for their digest alone when the release tree is
    served."""
    try:
        recorded = (build / DIGEST_FILE).read_text().strip()
    except FileNotFoundError:
        log.warning(
            "No release build of the static files in %s: serving %s as it is; run `make static`.", build, source
        )
        return read_tree(source)
    files, variants = tree_names(source)
    if recorded != tree_digest(source, files | variants):
        log.warning(
            "The release build in %s was made from other sources than %s: serving the sources as they are; "
            "run `make static`.",
            build,
            source,
        )
        return read_tree(source)
    return read_tree(build)


@dataclass(frozen=True)
class ModuleUrls:
    """The module scripts of a fragment, and the modules they import at once, to preload (same query)."""

    scripts: tuple[str, ...]
    preloads: tuple[str, ...]


class AssetManifest:
    """The build id of the served static tree and the URLs of its files."""

    def __init__(
        self,
        *,
        tree: StaticTree,
        static_url: str | None,
        api_url: str | None,
        element_prefix: str,
        from_disk: bool = False,
    ) -> None:
        self.tree = tree
        # Whether the files are sent from disk at each request (development: an edit shows at once) rather than from
        # the bytes read at start (tree.contents).
        self.from_disk = from_disk
        self.root = tree.root
        self.files = tree.files
        self.build_id = tree.build_id
        self.static_url = static_url.rstrip("/") if static_url else None
        self.api_url = api_url.rstrip("/") if api_url else None
        self.element_prefix = element_prefix

    def url(self, name: str, *, base: str | None = None, segment: str = "") -> str:
        """The absolute URL of a static file, under a configuration segment if given; a name not in the tree
        is a programming error."""
        if name not in self.files:
            raise KeyError(f"no static file {name!r}")
        base = base or self.static_url or request_base_url()
        folder = f"{self.build_id}/{segment}" if segment else self.build_id
        return f"{base}/static/{folder}/{name}"

    def module_urls(self, names: Iterable[str]) -> ModuleUrls:
        """URLs of ES modules, all under the same configuration segment (docs/sdk.md): `prefix` when the
        element prefix is not the default, `api` when the modules are not served by this service, whose
        routes they call; and those of the modules they import at once (EAGER_IMPORTS), to preload."""
        host_url = None if self.static_url and self.api_url else request_base_url()
        return self._module_urls(tuple(names), host_url)

    @functools.lru_cache(maxsize=64)  # noqa: B019 -- one manifest per app, alive as long as the app
    def _module_urls(self, names: tuple[str, ...], host_url: str | None) -> ModuleUrls:
        """module_urls for one request host (fragments link back to the host they were asked from)."""
        config: dict[str, str] = {}
        if self.element_prefix != "svc":
            config["prefix"] = self.element_prefix
        api_url = self.api_url or host_url  # host_url is None only when api_url is set
        if self.static_url and self.static_url != self.api_url and api_url:
            config["api"] = api_url
        segment = config_segment(config)
        base = self.static_url or host_url
        return ModuleUrls(
            scripts=tuple(self.url(name, base=base, segment=segment) for name in names),
            preloads=tuple(self.url(name, base=base, segment=segment) for name in eager_imports(names)),
        )


def eager_imports(names: Iterable[str]) -> tuple[str, ...]:
    """Every module that the modules `names` import at once, directly or not, other than `names`, in order."""
    entries = tuple(names)
    found: dict[str, None] = {}
    pending = list(entries)
    while pending:
        for imported in EAGER_IMPORTS.get(pending.pop(0), ()):
            if imported not in entries and imported not in found:
                found[imported] = None
                pending.append(imported)
    return tuple(found)


def request_base_url() -> str:
    """`scheme://host[:port]` of the current request (the host as sent: werkzeug's host_url would also
    convert it to an IRI, at several times the cost, for links that must stay ASCII anyway)."""
    return f"{request.scheme}://{request.host}"


def init_assets(app: Flask) -> None:
    """The served static tree (read and hashed once per process, its bytes kept), and the app's URLs of it (called by
    the factory). In development (prerender/rendering/templates.py, `reads_files_at_start`) the files are sent from
    disk, as edited."""
    config = app.config
    app.extensions[EXTENSION_KEY] = AssetManifest(
        tree=served_tree(SOURCE_DIR, BUILD_DIR),
        static_url=config["CDN_URL"] or config["PUBLIC_URL"],
        api_url=config["PUBLIC_URL"],
        element_prefix=config["ELEMENT_PREFIX"],
        from_disk=not reads_files_at_start(app),
    )


def get_assets() -> AssetManifest:
    """The asset manifest of the current app."""
    assets: AssetManifest = current_app.extensions[EXTENSION_KEY]
    return assets

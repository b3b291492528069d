"""Which release this process runs, for /healthz and /readyz (docs/operations.md, "Health checks"): the version of
the installed distribution as it was when the code was imported, and the build id of the static files it serves.

Both are read at start, as the code, the templates and the static files are (docs/decisions.md, "A running process
never reads a later release's files"): the distribution's metadata read at each probe would name the release
installed in place after this one, while the process still runs this one.
"""

from __future__ import annotations

from plumbing.release import installed_version
from prerender.rendering.assets import get_assets

DISTRIBUTION = "prerender"

# Read when the code is imported: the version of the code this process runs.
PACKAGE_VERSION = installed_version(DISTRIBUTION)


def release() -> dict[str, str | None]:
    """This process's release: `package`, the distribution's version, and `static_build`, the build id in the URLs of
    the static files it serves (prerender/rendering/assets.py)."""
    return {"package": PACKAGE_VERSION, "static_build": get_assets().build_id}
